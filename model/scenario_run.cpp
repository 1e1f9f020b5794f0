#include "model/scenario_run.hpp"

#include <stdexcept>

#include "calibration/compute.hpp"
#include "common/input.hpp"

namespace rigsim::model {
namespace {

void adapt_to(workloads::Scenario& s, int gpus, std::vector<std::string>& notes) {
  auto& p = s.plan;
  s.gpus.clear();
  if (p.world() != gpus) {
    const int model_parallel = p.tp * p.pp;
    if (gpus % model_parallel != 0)
      throw InputError(s.file, "/parallel",
                       "the layout has " + std::to_string(gpus) +
                           " GPUs, not a multiple of tp x pp = " + std::to_string(model_parallel));
    notes.push_back("dp " + std::to_string(p.dp) + " -> " + std::to_string(gpus / model_parallel) +
                    " to use the " + std::to_string(gpus) + " GPUs of this layout");
    p.dp = gpus / model_parallel;
  }
  const int unit = p.dp * s.micro_batch;
  if (s.global_batch % unit != 0) {
    const int rounded = std::max(unit, s.global_batch / unit * unit);
    notes.push_back("global batch " + std::to_string(s.global_batch) + " -> " + std::to_string(rounded) +
                    " (a multiple of dp x micro batch)");
    s.global_batch = rounded;
  }
}

void check_dtype(const Platform& platform, const workloads::Scenario& s,
                 const std::vector<topology::DeviceId>& gpus) {
  for (topology::DeviceId g : gpus) {
    try {
      calibration::peak_tflops(*platform.topology().device(g).gpu, s.dtype);
    } catch (const std::invalid_argument& e) {
      throw InputError(s.file, "/dtype", e.what());
    }
  }
}

}  // namespace

ScenarioRun prepare_scenario(const Platform& platform, workloads::Scenario s, const workloads::ModelConfig& m,
                             bool adapt) {
  ScenarioRun run;
  const auto& topo = platform.topology();
  if (adapt) adapt_to(s, static_cast<int>(topo.gpus().size()), run.notes);
  run.gpus = scenario_gpus(topo, s.gpus, s.file);
  workloads::validate(s, m, static_cast<int>(topo.gpus().size()));
  check_dtype(platform, s, run.gpus);
  run.scenario = std::move(s);
  run.model = m;
  return run;
}

TrainingResult simulate_scenario(const Platform& platform, const Executor& execute, const ScenarioRun& run,
                                 const TrainingOptions& options) {
  const workloads::Program program = workloads::build_program(run.scenario, run.model);
  return run_training(platform, execute, run.scenario, run.model, program, run.gpus, options);
}

}  // namespace rigsim::model
