// Golden tests of training-step predictions: every scenario of scenarios/training/ (one per strategy, on
// catalog layouts) is run as `rigsim run SCENARIO --json` runs it, and its report must match the reviewed
// expectation scenarios/expected/training/<scenario file stem>.json: the same keys, array lengths and
// strings, and every number within kRelTolerance. A change of prediction so shows up as a diff to review
// (regenerate with tools/regen-golden.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "model/scenario_run.hpp"
#include "report/training.hpp"
#include "tests/golden/catalog_layouts.hpp"
#include "tests/golden/json_compare.hpp"
#include "topology/read_layout.hpp"
#include "workloads/scenario.hpp"

namespace rigsim {
namespace {

namespace fs = std::filesystem;

/// The simulation is deterministic (one SimGrid run, no randomness); the tolerance only absorbs
/// floating-point differences between compilers and build types, far below any change of prediction.
constexpr double kRelTolerance = 1e-6;

const fs::path kSource(RIGSIM_SOURCE_DIR);

/// File stems of scenarios/training/*.json, sorted.
std::vector<std::string> training_scenarios() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kSource / "scenarios/training"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// The report `rigsim run FILE --json` prints: the scenario on its own layout, as written (no dp scaling).
nlohmann::json run_report(const fs::path& file) {
  const workloads::Scenario s = workloads::load_scenario(file.string());
  const workloads::ModelConfig m = workloads::scenario_model(s, (kSource / "scenarios/models").string());
  const model::Platform platform(topology::read_layout(s.layout), calibration::default_cost_model());
  const model::ScenarioRun run = model::prepare_scenario(platform, s, m, false);
  const model::TrainingResult r = model::simulate_scenario(platform, engine::run, run);
  return report::training_json({&platform, &run.scenario, &run.model, run.notes}, r);
}

class TrainingGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainingGolden, ReportMatchesReviewedExpectation) {
  const fs::path scenario = kSource / "scenarios/training" / (GetParam() + ".json");
  const fs::path expected = kSource / "scenarios/expected/training" / (GetParam() + ".json");
  ASSERT_TRUE(fs::exists(expected)) << expected << " is missing: run tools/regen-golden.sh and review it";
  const auto diffs =
      testing::json_diff(load_json_file(expected.string()), run_report(scenario), kRelTolerance);
  std::string all;
  for (const auto& d : diffs) all += "  " + d + "\n";
  EXPECT_TRUE(diffs.empty()) << GetParam() << " predicts differently from its expectation (" << diffs.size()
                             << " differences, JSON pointers into the report):\n"
                             << all
                             << "review `git diff scenarios/expected/training` after tools/regen-golden.sh";
}

TEST(TrainingGoldenSet, EveryExpectationHasItsScenario) {
  // A renamed or deleted scenario must not leave a stale expectation behind that nothing checks.
  const auto names = training_scenarios();
  for (const auto& e : fs::directory_iterator(kSource / "scenarios/expected/training"))
    EXPECT_TRUE(std::find(names.begin(), names.end(), e.path().stem().string()) != names.end())
        << e.path() << " has no scenario in scenarios/training/: delete it or restore the scenario";
}

INSTANTIATE_TEST_SUITE_P(Scenarios, TrainingGolden, ::testing::ValuesIn(training_scenarios()),
                         testing::LayoutTestName());

}  // namespace
}  // namespace rigsim
