// Inputs shared by `rigsim run`, `compare` and `sweep`: the scenario (a file or the embedded default),
// its model, the layout and the cost model.
#pragma once

#include <string>

#include "calibration/cost_model.hpp"
#include "topology/topology.hpp"
#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::app {

/// Where the built-in data lives: scenarios/ of the source tree (models/, layouts/), or $RIGSIM_DATA.
std::string data_dir();

/// The scenario at `path`, or the embedded default scenario when `path` is empty.
workloads::Scenario read_scenario(const std::string& path);
/// The embedded default: full fine-tuning of Llama-2-7B with FSDP and CPU offload of the optimizer (README).
const char* default_scenario_json();

/// The scenario's model (a built-in name or a path).
workloads::ModelConfig read_model(const workloads::Scenario& s);

/// The layout: `override_path` when given, else the scenario's "layout"; with `gpu_model`, every GPU
/// of the layout replaced by that catalog model; with `nodes` > 1, that many copies of the server joined
/// through their NICs (a cluster). Throws InputError when there is none.
topology::Topology read_training_layout(const workloads::Scenario& s, const std::string& override_path,
                                        const std::string& gpu_model = "", int nodes = 1);

calibration::CostModel read_cost_model(const std::string& path);

}  // namespace rigsim::app
