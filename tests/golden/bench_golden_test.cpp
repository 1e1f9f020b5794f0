// Golden tests of the simulator on every catalog layout: `rigsim bench LAYOUT --op all_reduce -b 1M
// -e 1G -f 32 --json` must match its reviewed expectation in scenarios/expected/bench/, and the
// flattened platform (`--dump-platform`) the one in scenarios/expected/platform/, so every change of a
// prediction or of the platform shows up as a diff to review (regenerate with tools/regen-golden.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "report/bench.hpp"
#include "tests/golden/catalog_layouts.hpp"
#include "tests/golden/json_compare.hpp"
#include "topology/layout_json.hpp"

namespace rigsim {
namespace {

namespace fs = std::filesystem;


class BenchGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(BenchGolden, AllReduceSweepMatchesReviewedExpectation) {
  const fs::path layout = fs::path(RIGSIM_SOURCE_DIR) / "scenarios/layouts" / (GetParam() + ".json");
  const fs::path expected = fs::path(RIGSIM_SOURCE_DIR) / "scenarios/expected/bench" / (GetParam() + ".json");
  ASSERT_TRUE(fs::exists(expected)) << expected << " is missing: run tools/regen-golden.sh and review it";
  const model::Platform platform(topology::load_layout(layout.string()), calibration::default_cost_model());
  model::BenchOptions options;
  options.op = model::CollectiveOp::AllReduce;
  options.sweep.min_bytes = 1ull << 20;
  options.sweep.max_bytes = 1ull << 30;
  options.sweep.step_factor = 32;
  options.gpus = model::select_gpus(platform.topology(), std::nullopt, {});
  const auto result = model::run_bench(platform, engine::run, options);
  // Predictions are deterministic; the tolerance only absorbs floating-point printing.
  const auto diffs = testing::json_diff(load_json_file(expected.string()),
                                        report::bench_json(platform, options, result), 1e-9);
  std::string all;
  for (const auto& d : diffs) all += "  " + d + "\n";
  EXPECT_TRUE(diffs.empty()) << GetParam() << " predicts differently from its expectation:\n" << all;
}

TEST_P(BenchGolden, PlatformDumpMatchesReviewedExpectation) {
  const fs::path layout = fs::path(RIGSIM_SOURCE_DIR) / "scenarios/layouts" / (GetParam() + ".json");
  const fs::path expected = fs::path(RIGSIM_SOURCE_DIR) / "scenarios/expected/platform" / (GetParam() + ".txt");
  ASSERT_TRUE(fs::exists(expected)) << expected << " is missing: run tools/regen-golden.sh and review it";
  std::ifstream in(expected, std::ios::binary);
  const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const model::Platform platform(topology::load_layout(layout.string()), calibration::default_cost_model());
  EXPECT_EQ(want, platform.dump()) << "the flattened platform of " << GetParam()
                                   << " changed: review `git diff` after tools/regen-golden.sh";
}

INSTANTIATE_TEST_SUITE_P(Layouts, BenchGolden, ::testing::ValuesIn(testing::catalog_layout_names()),
                         testing::LayoutTestName());

}  // namespace
}  // namespace rigsim
