// Power checks of a layout (topology/power.cpp, DESIGN/DECISIONS "Power"): the sustained load against
// the supplies that carry it, and GPU load peaks per generation against what each kind of PSU carries
// for the same time, at 100 us / 1 ms / 10 ms / 100 ms.
#include "topology/power.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/topology/layout_fixture.hpp"

namespace rigsim::topology {
namespace {

using testing::input_error_of;
using testing::layout_from_text;

// A Ryzen 9000 (170 W) desktop with two x8 slots holding `model` cards, and the given PSU keys.
std::string desktop(const std::string& model, const std::string& psu) {
  return R"({"name": "t", )" + psu + R"(, "cpus": [{"id": "cpu0", "model": "ryzen-9000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 24}],
    "slots": [{"id": "s1", "parent": "rc0", "width": 8}, {"id": "s2", "parent": "rc0", "width": 8}],
    "gpus": [{"id": "g0", "model": ")" +
         model + R"(", "slot": "s1"}, {"id": "g1", "model": ")" + model + R"(", "slot": "s2"}]})";
}

std::vector<std::string> power_warnings(const std::string& text) {
  std::vector<std::string> out;
  const Topology t = layout_from_text(text);
  for (const auto& w : t.warnings())
    if (w.rfind("power:", 0) == 0) out.push_back(w);
  return out;
}

TEST(Power, Cem5EnvelopeIsThreeTimesUpTo100UsThenFallsWithTheLogOfTheDuration) {
  EXPECT_DOUBLE_EQ(power::cem5_envelope(50e-6), 3.0);
  EXPECT_DOUBLE_EQ(power::cem5_envelope(100e-6), 3.0);
  for (const double t : {1e-3, 10e-3, 100e-3}) {
    const double expected = 4 - 0.2171 * std::log(t * 1e6);
    EXPECT_NEAR(power::cem5_envelope(t), expected, 1e-12)
        << "expected 4 - 0.2171 ln(T/us) at T = " << t << " s";
  }
  EXPECT_NEAR(power::cem5_envelope(1e-3), 2.5, 0.001);
  EXPECT_NEAR(power::cem5_envelope(10e-3), 2.0, 0.001);
  EXPECT_NEAR(power::cem5_envelope(100e-3), 1.5, 0.001);
  EXPECT_DOUBLE_EQ(power::cem5_envelope(10.0), 1.0);  // never below the rating
}

TEST(Power, EveryGenerationsPeaksFallWithDurationAndStayWithinTheEnvelope) {
  for (const PowerTransients p :
       {PowerTransients::Cem5Envelope, PowerTransients::GeforceAmpere, PowerTransients::Geforce3090Ti,
        PowerTransients::GeforceAda, PowerTransients::GeforceBlackwell}) {
    double previous = 1e9;
    for (std::size_t w = 0; w < power::kWindowsS.size(); ++w) {
      const double f = power::gpu_transient_factor(p, w);
      EXPECT_GE(f, 1.0) << to_string(p) << " window " << w;
      EXPECT_LE(f, power::cem5_envelope(power::kWindowsS[w]) + 1e-12) << to_string(p) << " window " << w;
      EXPECT_LE(f, previous) << to_string(p) << ": a longer load does not peak higher, window " << w;
      previous = f;
    }
  }
}

TEST(Power, MeasuredWindowsTakeTheMeasurementAndTheOthersCarryOrFallBackToTheEnvelope) {
  using power::gpu_transient_factor;
  // RTX 5090 FE, 575 W: 901.1 / 823.6 / 738.2 W, and 659 W lasting 0.1 s or more.
  EXPECT_DOUBLE_EQ(gpu_transient_factor(PowerTransients::GeforceBlackwell, 0), 901.1 / 575);
  EXPECT_DOUBLE_EQ(gpu_transient_factor(PowerTransients::GeforceBlackwell, 3), 659.0 / 575);
  // RTX 4090: nothing under 1 ms -> the envelope's 3x; 1 ms measured (638.24 / 450) carries to 10 ms.
  EXPECT_DOUBLE_EQ(gpu_transient_factor(PowerTransients::GeforceAda, 0), 3.0);
  EXPECT_DOUBLE_EQ(gpu_transient_factor(PowerTransients::GeforceAda, 2), 638.24 / 450);
  // RTX 3080/3090: 1.625 at 100 us carries on until the envelope (1.5 at 100 ms) is lower.
  EXPECT_DOUBLE_EQ(gpu_transient_factor(PowerTransients::GeforceAmpere, 2), 1.625);
  EXPECT_DOUBLE_EQ(gpu_transient_factor(PowerTransients::GeforceAmpere, 3), power::cem5_envelope(0.1));
}

TEST(Power, PsuKindsCarryTheirSpecifiedExcursions) {
  using power::psu_transient_factor;
  using power::PsuKind;
  EXPECT_DOUBLE_EQ(psu_transient_factor(PsuKind::Atx3, 1000, 0), 2.0);  // ATX 3.x > 450 W: 200 % for 100 us
  EXPECT_DOUBLE_EQ(psu_transient_factor(PsuKind::Atx3, 1000, 3), 1.2);
  EXPECT_DOUBLE_EQ(psu_transient_factor(PsuKind::Atx3, 450, 0), 1.5);  // 450 W or less: the lower column
  EXPECT_DOUBLE_EQ(psu_transient_factor(PsuKind::Atx3No12vhpwr, 1000, 0), 1.5);
  EXPECT_DOUBLE_EQ(psu_transient_factor(PsuKind::Atx2, 1000, 0), 1.25);
  EXPECT_DOUBLE_EQ(psu_transient_factor(PsuKind::Server, 2000, 1), 1.4);
  for (const PsuKind k : power::kPsuKinds)
    for (std::size_t w = 1; w < power::kWindowsS.size(); ++w)
      EXPECT_LE(psu_transient_factor(k, 1000, w), psu_transient_factor(k, 1000, w - 1)) << to_string(k);
}

TEST(Power, TwoRtx5090OnAn1600WAtx3PsuPassButOnAnAtx2PsuPeakOver100Us) {
  // 2 x 575 W + 170 W + 150 W = 1470 W sustained, under 1600 W either way.
  EXPECT_TRUE(power_warnings(desktop("rtx-5090", R"("psu_w": 1600)")).empty());
  // ATX 2.x: at 100 us 2 x 575 x 901.1/575 + 320 = 2122 W against 1.25 x 1600 = 2000 W.
  const auto w = power_warnings(desktop("rtx-5090", R"("psu": {"kind": "atx2", "unit_w": 1600})"));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("lasting 100 us reach 2122 W"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("carry 2000 W (1.25x)"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("expect shutdowns under load"), std::string::npos) << w[0];
}

TEST(Power, TheOld3xRuleNoLongerFlagsTwoRtx3090OnAn1200WPsu) {
  // 2 x 350 W GeForce Ampere with a Ryzen 9000 (170 W) and 150 W rest: at 100 us 700 x 1.625 + 320 =
  // 1457.5 W against 2 x 1200 W; at 100 ms 700 x 1.5 + 320 = 1370.4 W against 1.2 x 1200 = 1440 W.
  EXPECT_TRUE(power_warnings(desktop("rtx-3090", R"("psu_w": 1200)")).empty());
  // The same cards taken at the CEM 5.0 envelope (3 x 700 + 320 = 2420 W > 2400 W) would warn: a
  // user part "like" the 3090 without its measurement shows the difference.
  const std::string unmeasured = R"x("parts": {"gpus": [{"key": "test-3090-unmeasured", "like": "rtx-3090",
    "name": "RTX 3090 (no measurement)",
                    "power_transients" : "cem5-envelope", "source" : "test"
}]
}, "psu_w": 1200)x";
  const auto w = power_warnings(desktop("test-3090-unmeasured", unmeasured));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("shutdowns are possible"), std::string::npos) << w[0];
}

TEST(Power, RedundantSuppliesDoNotCountTowardsCapacity) {
  // 2 x RTX 4090 (900 W) + 170 W + 150 W = 1220 W sustained.
  const std::string one_of_two = R"("psu": {"kind": "server", "units": 2, "unit_w": 1000, "redundant": 1})";
  const auto w = power_warnings(desktop("rtx-4090", one_of_two));
  ASSERT_FALSE(w.empty());
  EXPECT_NE(
      w[0].find(
          "1220 W sustained exceeds the 1000 W that 1 of 2 x 1000 W server supplies (1 redundant) carry"),
      std::string::npos)
      << w[0];
  const std::string both = R"("psu": {"kind": "server", "units": 2, "unit_w": 1000})";
  for (const auto& text : power_warnings(desktop("rtx-4090", both)))
    EXPECT_EQ(text.find("sustained"), std::string::npos) << text;
}

TEST(Power, MoreSupplyNeverAddsWarnings) {
  std::size_t previous = 99;
  for (const int w : {800, 1000, 1200, 1600, 2000, 3000}) {
    const auto n = power_warnings(desktop("rtx-4090", R"("psu_w": )" + std::to_string(w))).size();
    EXPECT_LE(n, previous) << w << " W";
    previous = n;
  }
  EXPECT_EQ(previous, 0u);
}

TEST(Power, PsuEntriesAreValidated) {
  const auto error = [](const std::string& psu) {
    return input_error_of([&] { layout_from_text(desktop("rtx-4090", psu)); });
  };
  EXPECT_EQ(error(R"("psu_w": 1000, "psu": {"unit_w": 1000})").first, "/psu_w");
  const auto [where, what] = error(R"("psu": {"kind": "atx4", "unit_w": 1000})");
  EXPECT_EQ(where, "/psu/kind");
  EXPECT_NE(what.find("atx3, atx3-no-12vhpwr, atx2, server"), std::string::npos) << what;
  EXPECT_EQ(error(R"("psu": {"kind": "server", "units": 2, "unit_w": 1000, "redundant": 2})").first,
            "/psu/redundant");
  EXPECT_EQ(error(R"("psu": {"kind": "server"})").first, "/psu");
  EXPECT_EQ(error(R"("psu": {"unit_w": 1000, "watts": 3})").first, "/psu/watts");
}

}  // namespace
}  // namespace rigsim::topology
