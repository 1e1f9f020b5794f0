// The calibration promise on real systems: for every dev case (scenarios/dev-cases/*.json), a profile
// fitted on that system's measurements never predicts them worse (median |error|) than the defaults.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/executor.hpp"
#include "model/fit.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

namespace fs = std::filesystem;

TEST(DevCaseFit, FittedProfileIsNeverWorseOnItsOwnRig) {
  const fs::path dir = fs::path(RIGSIM_SOURCE_DIR) / "scenarios" / "dev-cases";
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const calibration::Measurements m = calibration::load_measurements(entry.path().string());
    const std::string layout = (entry.path().parent_path() / m.rig.layout).string();
    const PlatformMaker make = [&](const calibration::CostModel& cm, int nodes) {
      return Platform(topology::read_layout(layout, nodes), cm);
    };
    const FitResult r = fit(make, engine::run, m, calibration::default_cost_model());
    const double before = median_abs_error(r.before), after = median_abs_error(r.after);
    EXPECT_LE(after, before + 1e-12) << entry.path().filename() << ": median |error| " << before << " -> " << after;
    ++files;
  }
  EXPECT_GE(files, 16u);
}

}  // namespace
}  // namespace rigsim::model
