// The CostModel: sane built-in defaults, strict profile reading (unknown keys, types, ranges, JSON
// pointers in errors) and a lossless JSON round trip.
#include "calibration/cost_model.hpp"

#include <gtest/gtest.h>

#include "common/input.hpp"
#include "tests/topology/layout_fixture.hpp"

namespace rigsim::calibration {
namespace {

using topology::testing::input_error_of;

nlohmann::json doc(const std::string& text) {
  return parse_json_text(text, "profile.json");
}

TEST(CostModel, DefaultFactorsAreFractions) {
  const CostModel m = default_cost_model();
  for (double f : {m.pcie_efficiency, m.qpi_efficiency, m.upi_efficiency, m.xgmi_efficiency, m.chipset_efficiency,
                   m.memory_efficiency, m.network_efficiency, m.gpu_memory_efficiency, m.pcie_duplex_efficiency,
                   m.nvlink_sxm_efficiency[0], m.nvlink_sxm_efficiency[4], m.nvlink_bridge_efficiency[2]}) {
    EXPECT_GT(f, 0.0);
    EXPECT_LE(f, 1.0);
  }
  EXPECT_EQ(m.source, "built-in defaults");
}

TEST(CostModel, DefaultsMatchTheirSources) {
  const CostModel m = default_cost_model();
  // hardware.md §2.2: Gen3 x16 copies reach 12-13 of 15.76 GB/s.
  EXPECT_NEAR(15.76 * m.pcie_efficiency, 12.9, 0.4);
  // NCCL maintainer: ~20 of 25 GB/s per NVLink (NVLink 3 on an SXM board); no single override set.
  EXPECT_DOUBLE_EQ(nvlink_efficiency_of(m, 3, false), 0.8);
  EXPECT_EQ(m.nvlink_efficiency, 0.0);
  // §2.8: 171.5 of 204.8 GB/s.
  EXPECT_NEAR(m.memory_efficiency, 171.5 / 204.8, 0.01);
  // NCCL Ring Simple: base 8.4 us, PCI step 5.7 us, NVLink step 3.4 us.
  EXPECT_DOUBLE_EQ(m.nccl_base_latency.us(), 8.4);
  EXPECT_DOUBLE_EQ(m.nccl_step_latency_pcie.us(), 5.7);
  EXPECT_DOUBLE_EQ(m.nccl_step_latency_nvlink.us(), 3.4);
  // Staged copies are an order of magnitude slower to start than P2P ones (p2pBandwidthLatencyTest).
  EXPECT_GT(m.shm_latency.value, 5 * m.p2p_latency.value);
}

TEST(CostModel, OverridesOnlyTheKeysGiven) {
  const CostModel base = default_cost_model();
  const CostModel m =
      apply_overrides(base, doc(R"({"pcie_efficiency": 0.75, "p2p_latency": "2us"})"), "p.json");
  EXPECT_DOUBLE_EQ(m.pcie_efficiency, 0.75);
  EXPECT_DOUBLE_EQ(m.p2p_latency.us(), 2.0);
  EXPECT_DOUBLE_EQ(m.nvlink_efficiency, base.nvlink_efficiency);
  EXPECT_DOUBLE_EQ(m.shm_latency.value, base.shm_latency.value);
  EXPECT_EQ(m.source, "p.json");
}

TEST(CostModel, UnknownKeyIsAnErrorWithSuggestion) {
  const auto [where, what] = input_error_of(
      [] { apply_overrides(default_cost_model(), doc(R"({"pcie_eficiency": 0.8})"), "p.json"); });
  EXPECT_EQ(where, "/pcie_eficiency");
  EXPECT_NE(what.find("pcie_efficiency"), std::string::npos) << what;
}

TEST(CostModel, FactorOutOfRangeIsAnError) {
  for (const char* text :
       {R"({"memory_efficiency": 0})", R"({"memory_efficiency": 1.5})", R"({"memory_efficiency": -0.2})"}) {
    const auto [where, what] =
        input_error_of([&] { apply_overrides(default_cost_model(), doc(text), "p.json"); });
    EXPECT_EQ(where, "/memory_efficiency") << text;
    EXPECT_NE(what.find("(0, 1]"), std::string::npos) << what;
  }
}

TEST(CostModel, WrongTypesAreErrors) {
  auto where_of = [](const char* text) {
    return input_error_of([&] { apply_overrides(default_cost_model(), doc(text), "p.json"); }).first;
  };
  EXPECT_EQ(where_of(R"({"p2p_latency": 2})"), "/p2p_latency");         // a duration needs its unit
  EXPECT_EQ(where_of(R"({"p2p_latency": "two us"})"), "/p2p_latency");  // not a duration
  EXPECT_EQ(where_of(R"({"p2p_latency": "-2us"})"), "/p2p_latency");    // negative
  EXPECT_EQ(where_of(R"({"pcie_efficiency": "0.8"})"), "/pcie_efficiency");
  EXPECT_EQ(where_of(R"([1, 2])"), "/");
}

TEST(CostModel, JsonRoundTripIsLossless) {
  CostModel m = default_cost_model();
  m.switch_latency = nanoseconds(140);
  m.pcie_duplex_efficiency = 0.6;
  const CostModel back = apply_overrides(default_cost_model(), to_json(m), "round-trip.json");
  EXPECT_EQ(to_json(back).dump(), [&] {
    nlohmann::json j = to_json(m);
    j["source"] = "built-in defaults (round-trip.json)";
    return j.dump();
  }());
  EXPECT_DOUBLE_EQ(back.switch_latency.value, m.switch_latency.value);
  EXPECT_DOUBLE_EQ(back.pcie_duplex_efficiency, 0.6);
}

TEST(CostModel, LoadsAFileAndNamesItInErrors) {
  const auto [where, what] = input_error_of([] { load_cost_model("/nonexistent/profile.json"); });
  EXPECT_NE(what.find("/nonexistent/profile.json"), std::string::npos) << what;
}

}  // namespace
}  // namespace rigsim::calibration
