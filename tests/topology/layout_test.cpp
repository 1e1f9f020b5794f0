// Validation rules of the layout format: each physically impossible or malformed layout is
// rejected with its reason and location; negotiated links follow min(device, slot, riser).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/topology/layout_fixture.hpp"

namespace rigsim::topology {
namespace {

using testing::input_error_of;
using testing::layout_from_text;

// A one-socket Ryzen desktop with one slot; {GPU} is replaced by a GPU entry, {EXTRA} by more keys.
std::string desktop(const std::string& gpus, const std::string& extra = "") {
  return R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 24}],
    "slots": [{"id": "s1", "parent": "rc0", "gen": 4, "width": 16}], "gpus": [)" +
         gpus + "]" + extra + "}";
}

void expect_rejected(const std::string& text, const std::string& location, const std::string& phrase) {
  auto [where, what] = input_error_of([&] { layout_from_text(text); });
  EXPECT_EQ(where, location) << what;
  EXPECT_NE(what.find(phrase), std::string::npos)
      << "message: " << what << "\nexpected to contain: " << phrase;
}

TEST(LayoutValidation, AcceptsAMinimalDesktop) {
  const Topology t = layout_from_text(desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1"})"));
  EXPECT_EQ(t.gpus().size(), 1u);
  EXPECT_TRUE(t.warnings().empty());
}

TEST(LayoutValidation, UnknownKeyIsRejectedWithSuggestion) {
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3090", "slto": "s1"})"), "/gpus/0/slto",
                  "did you mean \"slot\"");
}

TEST(LayoutValidation, UnknownModelIsRejectedWithSuggestion) {
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3900", "slot": "s1"})"), "/gpus/0/model",
                  "did you mean one of \"rtx-3090\"");
}

TEST(LayoutValidation, MissingRequiredKeyIsNamed) {
  expect_rejected(desktop(R"({"id": "g0", "slot": "s1"})"), "/gpus/0", "missing required key \"model\"");
}

TEST(LayoutValidation, DuplicateIdsAreRejected) {
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1"},
                             {"id": "g0", "model": "rtx-3090", "parent": "rc0"})"),
                  "/gpus/1/id", "duplicate id \"g0\"");
}

TEST(LayoutValidation, GpuAttachedToNothingIsRejected) {
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3090"})"), "/gpus/0", "attached to nothing");
}

TEST(LayoutValidation, TwoDevicesInOneSlotAreRejected) {
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1"},
                             {"id": "g1", "model": "rtx-3090", "slot": "s1"})"),
                  "/gpus/1/slot", "already holds \"g0\"");
}

TEST(LayoutValidation, MoreLanesThanTheHostBridgeIsRejected) {
  // 16 (slot) + 16 (on-board x16) = 32 lanes below a 24-lane host bridge.
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1"},
                             {"id": "g1", "model": "rtx-3090", "parent": "rc0"})"),
                  "/host_bridges/0", "needs 32 lanes");
}

TEST(LayoutValidation, MoreLanesThanTheCpuIsRejected) {
  // A Ryzen 5000 has 24 PCIe lanes; two host bridges of 16 need 32.
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}]})";
  expect_rejected(text, "/cpus/0", "needs 32 lanes");
}

TEST(LayoutValidation, ReservedLanesCountAgainstTheCpu) {
  const std::string text =
      R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000", "reserved_lanes": 12}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}]})";
  expect_rejected(text, "/cpus/0", "12 reserved");
}

TEST(LayoutValidation, MoreLanesThanTheSwitchIsRejected) {
  // PEX 8747: 48 lanes. x16 uplink + three x16 GPUs = 64.
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
    "switches": [{"id": "plx", "model": "pex8747", "parent": "rc0"}],
    "gpus": [{"id": "g0", "model": "tesla-p40", "parent": "plx"}, {"id": "g1", "model": "tesla-p40", "parent": "plx"},
             {"id": "g2", "model": "tesla-p40", "parent": "plx"}]})";
  expect_rejected(text, "/switches/0", "needs 64 lanes");
}

TEST(LayoutValidation, BifurcationWiderThanTheSlotIsRejected) {
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
    "slots": [{"id": "s1", "parent": "rc0", "width": 16, "bifurcation": [8, 8, 4]}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "slot": "s1", "port": 0}]})";
  expect_rejected(text, "/slots/0/bifurcation", "exceeds the slot's x16");
}

TEST(LayoutValidation, BifurcatedSlotNeedsAValidPort) {
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
    "slots": [{"id": "s1", "parent": "rc0", "width": 16, "bifurcation": [4, 4, 4, 4]}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "slot": "s1", "port": 4}]})";
  expect_rejected(text, "/gpus/0/port", "from 0 to 3");
}

TEST(LayoutValidation, EpycRootPortsAreX16) {
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 32}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}]})";
  expect_rejected(text, "/host_bridges/0/lanes", "one x16 root port");
}

TEST(LayoutValidation, XgmiLinksTakeLanesFromEachEpycSocket) {
  // Two EPYC sockets with 4 xGMI links keep 128 - 4*16 = 64 PCIe lanes each: five x16 root ports do not fit,
  // but with 3 xGMI links (80 lanes each, 160 in the system) they do.
  std::string bridges;
  for (int i = 0; i < 5; ++i)
    bridges +=
        std::string(i ? "," : "") + R"({"id": "rc)" + std::to_string(i) + R"(", "cpu": "cpu0", "lanes": 16})";
  const std::string base =
      R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002"}, {"id": "cpu1", "model": "epyc-7002"}],
    "host_bridges": [)" +
      bridges + R"(, {"id": "rcb", "cpu": "cpu1", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}], "inter_socket": [{"a": "cpu0", "b": "cpu1", "links": )";
  expect_rejected(base + "4}]}", "/cpus/0", "x16 per xGMI link");
  EXPECT_NO_THROW(layout_from_text(base + "3}]}"));
}

TEST(LayoutValidation, NvlinkBridgeOnCardsWithoutNvlinkIsRejected) {
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
    "slots": [{"id": "s1", "parent": "rc0", "width": 8}, {"id": "s2", "parent": "rc0", "width": 8}],
    "gpus": [{"id": "g0", "model": "rtx-4090", "slot": "s1"}, {"id": "g1", "model": "rtx-4090", "slot": "s2"}],
    "nvlinks": [{"gpus": ["g0", "g1"]}]})";
  expect_rejected(text, "/nvlinks/0/gpus", "has no NVLink");
}

TEST(LayoutValidation, MoreNvlinksThanTheGpuHasAreRejected) {
  const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
    "gpus": [{"id": "g0", "model": "v100-sxm2", "parent": "rc0"}, {"id": "g1", "model": "v100-sxm2", "parent": "rc0"}],
    "nvlinks": [{"gpus": ["g0", "g1"], "bridge": false, "links": 7}]})";
  expect_rejected(text, "/nvlinks/0/links", "has 6");
}

TEST(LayoutValidation, NvswitchNeedsSxmGpus) {
  const std::string text =
      desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1"})",
              R"(, "nvswitches": [{"id": "nvs", "model": "nvswitch-gen2", "gpus": ["g0"]}])");
  expect_rejected(text, "/nvswitches/0/gpus/0", "needs SXM NVLink");
}

TEST(LayoutValidation, MixedGpuModelsAreAWarningThatSaysWhatNcclDoes) {
  const std::string two = R"({"id": "g0", "model": "rtx-3090", "parent": "rc0", "link": {"gen": 4, "width": 8}},
                             {"id": "g1", "model": "rtx-4090", "parent": "rc0", "link": {"gen": 4, "width": 8}},
                             {"id": "g2", "model": "rtx-3090", "parent": "rc0", "link": {"gen": 4, "width": 8}})";
  const Topology t = layout_from_text(desktop(two));
  const auto& w = t.warnings();  // also: each GPU runs at x8 instead of x16
  const auto mixed = std::find_if(w.begin(), w.end(), [](const std::string& m) { return m.rfind("mixed", 0) == 0; });
  ASSERT_NE(mixed, w.end());
  EXPECT_EQ(std::count_if(w.begin(), w.end(), [](const std::string& m) { return m.rfind("mixed", 0) == 0; }), 1);
  EXPECT_NE(mixed->find("mixed GPU models: rtx-3090 (g0 and 1 more), rtx-4090 (g1)"), std::string::npos) << *mixed;
  EXPECT_NE(mixed->find("same rings and trees"), std::string::npos) << *mixed;
  // One model: no warning.
  EXPECT_TRUE(layout_from_text(desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1"})")).warnings().empty());
}

TEST(LayoutValidation, BridgeAcrossSocketsIsAWarning) {
  const auto layout = [](const char* second_parent) {
    return std::string(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}, {"id": "cpu1", "model": "xeon-e5-v4"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}, {"id": "rc1", "cpu": "cpu1", "lanes": 40}],
      "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}, {"id": "g1", "model": "rtx-3090", "parent": ")") +
           second_parent + R"("}], "nvlinks": [{"gpus": ["g0", "g1"]}]})";
  };
  const auto bridge_warnings = [](const Topology& t) {
    return std::count_if(t.warnings().begin(), t.warnings().end(),
                         [](const std::string& m) { return m.rfind("NVLink bridge between", 0) == 0; });
  };
  const Topology across = layout_from_text(layout("rc1"));
  EXPECT_EQ(bridge_warnings(across), 1) << ::testing::PrintToString(across.warnings());
  EXPECT_EQ(bridge_warnings(layout_from_text(layout("rc0"))), 0);
}

TEST(LayoutValidation, ReferenceToMissingParentSuggestsTheClosest) {
  expect_rejected(desktop(R"({"id": "g0", "model": "rtx-3090", "parent": "rc1"})"), "/gpus/0/parent",
                  "did you mean \"rc0\"");
}

TEST(LayoutValidation, InterSocketLinkOnASingleSocketPartIsRejected) {
  const std::string text =
      R"({"name": "t", "cpus": [{"id": "a", "model": "ryzen-5000"}, {"id": "b", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "a", "lanes": 16}, {"id": "rc1", "cpu": "b", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}]})";
  expect_rejected(text, "/cpus", "single-socket part");
}

TEST(NegotiatedLink, IsTheMinimumOfDeviceSlotAndRiser) {
  // RTX 3090 (Gen4 x16) in a Gen3 x16 slot through a USB x1 riser: Gen3 x1 = 0.985 GB/s per direction.
  const Topology t = layout_from_text(
      desktop(R"({"id": "g0", "model": "rtx-3090", "slot": "s1", "riser": {"width": 1, "kind": "usb-x1"}})"));
  const Link& l = t.link(*t.uplink(t.find("g0")));
  EXPECT_EQ(l.gen, 4);
  EXPECT_EQ(l.width, 1);
  EXPECT_NEAR(l.bandwidth.gb_per_s(), 1.969, 0.001) << "Gen4 x1 = 1 x 1.969 GB/s";
  EXPECT_NE(l.limited_by.find("riser"), std::string::npos) << l.limited_by;
  ASSERT_EQ(t.warnings().size(), 1u);
  EXPECT_NE(t.warnings()[0].find("Gen4 x1 instead of Gen4 x16"), std::string::npos) << t.warnings()[0];
}

TEST(NegotiatedLink, OlderCardInNewerSlotRunsAtTheCardsGeneration) {
  // Tesla P40 is Gen3 x16: in a Gen4 x16 slot it runs Gen3 x16 = 16 x 0.985 = 15.76 GB/s.
  const Topology t = layout_from_text(desktop(R"({"id": "g0", "model": "tesla-p40", "slot": "s1"})"));
  const Link& l = t.link(*t.uplink(t.find("g0")));
  EXPECT_EQ(l.gen, 3);
  EXPECT_EQ(l.width, 16);
  EXPECT_NEAR(l.bandwidth.gb_per_s(), 15.76, 0.01);
}

TEST(NegotiatedLink, MoreLanesNeverMeansLessBandwidth) {
  double previous = 0;
  for (int width : {1, 2, 4, 8, 16}) {
    const std::string text = R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
      "slots": [{"id": "s1", "parent": "rc0", "width": )" +
                             std::to_string(width) + R"(}],
      "gpus": [{"id": "g0", "model": "rtx-3090", "slot": "s1"}]})";
    const Topology t = layout_from_text(text);
    const double bw = t.link(*t.uplink(t.find("g0"))).bandwidth.gb_per_s();
    EXPECT_GT(bw, previous) << "x" << width;
    previous = bw;
  }
}

// An NVLink bridge spans 2, 3 or 4 slot pitches: where slots give their board positions, a bridge
// between neighbours (or five apart) is a warning; 3 apart is silent.
TEST(LayoutValidation, NvlinkBridgeBetweenSlotsNoBridgeSpansIsWarned) {
  const auto layout = [](int p2) {
    return R"({"name": "t", "cpus": [{"id": "cpu0", "model": "threadripper-pro-5000"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
      "slots": [{"id": "s1", "parent": "rc0", "width": 16, "position": 1},
                {"id": "s2", "parent": "rc1", "width": 16, "position": )" + std::to_string(p2) + R"(}],
      "gpus": [{"id": "g0", "model": "rtx-3090", "slot": "s1"}, {"id": "g1", "model": "rtx-3090", "slot": "s2"}],
      "nvlinks": [{"gpus": ["g0", "g1"]}]})";
  };
  const auto bridge_warnings = [](const Topology& t) {
    return std::count_if(t.warnings().begin(), t.warnings().end(),
                         [](const std::string& w) { return w.find("NVLink bridges span 2, 3 or 4 slots") != std::string::npos; });
  };
  EXPECT_EQ(bridge_warnings(layout_from_text(layout(2))), 1) << "neighbouring slots";
  EXPECT_EQ(bridge_warnings(layout_from_text(layout(4))), 0) << "a 3-slot bridge";
  EXPECT_EQ(bridge_warnings(layout_from_text(layout(6))), 1) << "five pitches apart";
}

}  // namespace
}  // namespace rigsim::topology
