// Golden tests of `rigsim topo --format json` on every catalog layout: the report must match its
// reviewed expectation in scenarios/expected/topo/ (regenerate with tools/regen-golden.sh and review
// the diff), and its nvidia-smi and P2P matrices must match the ones derived by hand from the hardware
// description in scenarios/expected/topo-derived/.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/input.hpp"
#include "tests/golden/catalog_layouts.hpp"
#include "tests/golden/json_compare.hpp"
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

}  // namespace
}  // namespace rigsim
