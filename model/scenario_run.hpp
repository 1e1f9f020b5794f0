// From a scenario and a platform to one simulated training step: the scenario's GPUs resolved on the
// layout (or, for comparisons, its data-parallel degree scaled to the layout's GPU count), validated,
// its program built and run.
#pragma once

#include <string>
#include <vector>

#include "model/training.hpp"
#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::model {

struct ScenarioRun {
  workloads::Scenario scenario;  // as run (adapted when asked)
  workloads::ModelConfig model;
  std::vector<topology::DeviceId> gpus;  // rank i runs on gpus[i]
  std::vector<std::string> notes;        // what was adapted, for reports
};

/// Resolves and validates `s` on `platform` (rigsim::InputError with the scenario's file and pointer).
/// With `adapt`, the scenario's GPU list is dropped and dp becomes (the layout's GPUs) / (tp·pp), and the
/// global batch is rounded down to a multiple of dp × micro_batch: the same workload on another box.
/// Also rejects a dtype a GPU cannot compute (fp8 before Ada/Hopper).
ScenarioRun prepare_scenario(const Platform& platform, workloads::Scenario s, const workloads::ModelConfig& m,
                             bool adapt);

/// Builds the program of `run` and simulates one step.
TrainingResult simulate_scenario(const Platform& platform, const Executor& execute, const ScenarioRun& run,
                                 const TrainingOptions& options = {});

}  // namespace rigsim::model
