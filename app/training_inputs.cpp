#include "app/training_inputs.hpp"

#include <cstdlib>

#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::app {

std::string data_dir() {
  if (const char* env = std::getenv("RIGSIM_DATA"); env != nullptr && *env != '\0') return env;
  return RIGSIM_DATA_DIR;
}

const char* default_scenario_json() {
  // Why this workload: full fine-tuning of a 7B model is what many people buying a used multi-GPU box
  // want to do, and PyTorch FSDP (full_shard) with the optimizer states offloaded to the CPU
  // (ZeRO-Offload's recipe, Ren et al. 2021, arXiv:2101.06840) is how it fits on 24 GB cards, from two
  // GPUs to eight. The same job then exercises everything the boxes differ in: per-layer parameter
  // all-gathers and gradient reduce-scatters over each GPU's links, the optimizer state traffic over
  // each GPU's PCIe path and its socket's memory, and the GPUs' compute. Sequence 2048 and 64 sequences
  // per step are common fine-tuning settings; full recomputation keeps activations small.
  return R"({
  "$comment": "rigsim's embedded default scenario: full fine-tuning of Llama-2-7B with FSDP and CPU offload",
  "name": "llama-2-7b-fsdp-offload",
  "model": "llama-2-7b",
  "global_batch": 64,
  "micro_batch": 1,
  "seq_len": 2048,
  "dtype": "bf16",
  "optimizer": "adamw",
  "recompute": "full",
  "parallel": {"dp": 8, "fsdp": "full_shard", "offload": {"optimizer": true}}
})";
}

workloads::Scenario read_scenario(const std::string& path) {
  if (path.empty())
    return workloads::parse_scenario(parse_json_text(default_scenario_json(), "<default scenario>"),
                                     "<default scenario>");
  return workloads::load_scenario(path);
}

workloads::ModelConfig read_model(const workloads::Scenario& s) {
  return workloads::scenario_model(s, data_dir() + "/models");
}

topology::Topology read_training_layout(const workloads::Scenario& s, const std::string& override_path,
                                        const std::string& gpu_model, int nodes) {
  const std::string path = override_path.empty() ? s.layout : override_path;
  if (path.empty())
    throw InputError(s.file, "/layout", "no layout: give --layout LAYOUT or a \"layout\" in the scenario");
  if (nodes < 1) throw InputError("", "--nodes", "expected at least 1 server, got " + std::to_string(nodes));
  topology::LayoutSpec spec = topology::read_layout_spec(path);
  for (auto& g : spec.gpus)
    if (!gpu_model.empty()) g.model = gpu_model;
  return nodes == 1 ? topology::build_topology(spec) : topology::build_cluster(spec, nodes);
}

calibration::CostModel read_cost_model(const std::string& path) {
  return path.empty() ? calibration::default_cost_model() : calibration::load_cost_model(path);
}

}  // namespace rigsim::app
