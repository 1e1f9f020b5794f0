// Golden tests of `rigsim topo --format json` on every catalog layout: the report must match its
// reviewed expectation in scenarios/expected/topo/ (regenerate with tools/regen-golden.sh and review
// the diff), and its nvidia-smi and P2P matrices must match the ones derived by hand from the hardware
// description in scenarios/expected/topo-derived/.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/input.hpp"
#include "tests/golden/catalog_layouts.hpp"
#include "tests/golden/json_compare.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"
#include "report/topo.hpp"

namespace rigsim {
namespace {

namespace fs = std::filesystem;


class TopoGolden : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path layout() const {
    return fs::path(RIGSIM_SOURCE_DIR) / "scenarios/layouts" / (GetParam() + ".json");
  }
  nlohmann::json report() const {
    return report::topo_json(topology::load_layout(layout().string()), topology::P2pPolicy{});
  }
};

TEST_P(TopoGolden, ReportMatchesReviewedExpectation) {
  const fs::path expected = fs::path(RIGSIM_SOURCE_DIR) / "scenarios/expected/topo" / (GetParam() + ".json");
  ASSERT_TRUE(fs::exists(expected)) << expected << " is missing: run tools/regen-golden.sh and review it";
  const auto diffs = testing::json_diff(load_json_file(expected.string()), report(), 1e-6);
  std::string all;
  for (const auto& d : diffs) all += "  " + d + "\n";
  EXPECT_TRUE(diffs.empty()) << GetParam() << " differs from its expectation:\n" << all;
}

TEST_P(TopoGolden, MatricesMatchTheOnesDerivedFromTheHardware) {
  const fs::path derived =
      fs::path(RIGSIM_SOURCE_DIR) / "scenarios/expected/topo-derived" / (GetParam() + ".json");
  ASSERT_TRUE(fs::exists(derived)) << derived << " is missing";
  const auto want = load_json_file(derived.string());
  const auto got = report();
  EXPECT_EQ(want.at("devices"), got.at("matrix_devices"));
  EXPECT_EQ(want.at("matrix"), got.at("matrix")) << "derivation: " << want.at("derivation").dump();
  EXPECT_EQ(want.at("p2p"), got.at("p2p")) << "derivation: " << want.at("derivation").dump();
}

INSTANTIATE_TEST_SUITE_P(Layouts, TopoGolden, ::testing::ValuesIn(testing::catalog_layout_names()),
                         testing::LayoutTestName());

// Vendor terms: a layout of AMD GPUs also gets rocm-smi's tables and RCCL's name; NVIDIA ones do not.
TEST(TopoVendorTerms, AmdGpusGetRocmSmiTablesAndRcclNvidiaKeepsNccl) {
  const auto layout = [](const std::string& gpu) {
    return topology::build_topology(topology::parse_layout(
        parse_json_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
          "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
          "slots": [{"id": "s1", "parent": "rc0", "gen": 4, "width": 16}, {"id": "s2", "parent": "rc1", "gen": 4, "width": 16}],
          "gpus": [{"id": "g0", "model": ")" + gpu + R"(", "slot": "s1"}, {"id": "g1", "model": ")" + gpu +
                            R"(", "slot": "s2"}]})",
                        "t.json"),
        "t.json"));
  };
  const std::string amd = report::topo_text(layout("mi100"), topology::P2pPolicy{});
  EXPECT_NE(amd.find("As rocm-smi --showtopo shows it"), std::string::npos);
  EXPECT_NE(amd.find("=== Link Type between two GPUs ==="), std::string::npos);
  EXPECT_NE(amd.find("P2P (what RCCL would use"), std::string::npos);
  EXPECT_TRUE(report::topo_json(layout("mi100"), topology::P2pPolicy{}).contains("rocm_smi"));
  const std::string nvidia = report::topo_text(layout("a100-pcie-40gb"), topology::P2pPolicy{});
  EXPECT_EQ(nvidia.find("rocm-smi"), std::string::npos);
  EXPECT_NE(nvidia.find("P2P (what NCCL would use"), std::string::npos);
  EXPECT_FALSE(report::topo_json(layout("a100-pcie-40gb"), topology::P2pPolicy{}).contains("rocm_smi"));
}

}  // namespace
}  // namespace rigsim
