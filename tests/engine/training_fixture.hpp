// Helpers for training-step tests: rigs of RTX 3090s built in memory, scenarios from text, a cost model
// without latencies and an executor that makes communication free, for closed forms.
#pragma once

#include <string>

#include "calibration/compute.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "model/scenario_run.hpp"
#include "tests/model/sim_fixture.hpp"
#include "workloads/program.hpp"

namespace rigsim::model::testing {

/// `n` RTX 3090 on a Threadripper PRO, each on its own root port in a Gen4 slot of `width` lanes; an
/// NVLink bridge between the first two when `nvlink`.
inline std::string rig_3090(int n, int width, bool nvlink = false) {
  std::string bridges, slots, gpus;
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    bridges += std::string(i ? ", " : "") + R"({"id": "rc)" + k + R"(", "cpu": "cpu0", "lanes": 16})";
    slots += std::string(i ? ", " : "") + R"({"id": "s)" + k + R"(", "parent": "rc)" + k +
             R"(", "gen": 4, "width": )" + std::to_string(width) + "}";
    gpus += std::string(i ? ", " : "") + R"({"id": "gpu)" + k + R"(", "model": "rtx-3090", "slot": "s)" + k +
            "\"}";
  }
  return R"({"name": "rig-3090", "cpus": [{"id": "cpu0", "model": "threadripper-pro-5000"}], "host_bridges": [)" +
         bridges + R"(], "slots": [)" + slots + R"(], "gpus": [)" + gpus + "]" +
         (nvlink ? R"(, "nvlinks": [{"gpus": ["gpu0", "gpu1"]}])" : "") + "}";
}

inline workloads::Scenario scenario_of(const std::string& json) {
  return workloads::parse_scenario(parse_json_text(json, "scenario.json"), "scenario.json");
}

inline workloads::ModelConfig model_named(const std::string& name) {
  return workloads::find_model(name, std::string(RIGSIM_SOURCE_DIR) + "/scenarios/models");
}

/// One step of `scenario_json` on `p`, dp scaled to the platform's GPUs.
inline TrainingResult step(const Platform& p, const std::string& scenario_json,
                           const Executor& execute = engine::run) {
  const workloads::Scenario s = scenario_of(scenario_json);
  const ScenarioRun run = prepare_scenario(p, s, model_named(s.model), true);
  return simulate_scenario(p, execute, run);
}

/// The built-in cost model with every latency set to zero.
inline calibration::CostModel no_latency_cost_model() {
  calibration::CostModel c = calibration::default_cost_model();
  for (Seconds* s : {&c.pcie_hop_latency,
                     &c.switch_latency,
                     &c.nvlink_hop_latency,
                     &c.inter_socket_latency,
                     &c.p2p_latency,
                     &c.shm_latency,
                     &c.net_latency,
                     &c.host_copy_latency,
                     &c.nccl_base_latency,
                     &c.nccl_step_latency_nvlink,
                     &c.nccl_step_latency_pcie,
                     &c.nccl_step_latency_net,
                     &c.nccl_ll_base_latency,
                     &c.nccl_ll_step_latency_nvlink,
                     &c.nccl_ll_step_latency_pcie,
                     &c.nccl_ll_step_latency_net,
                     &c.nccl_ll128_base_latency,
                     &c.nccl_ll128_step_latency_nvlink,
                     &c.nccl_ll128_step_latency_pcie,
                     &c.nccl_ll128_step_latency_net})
    *s = Seconds{};
  return c;
}

/// The engine with every transfer between two devices emptied: communication costs nothing (use with
/// no_latency_cost_model, whose PCIe switches have no cut-through time either).
inline RunResult free_comm(const Platform& p, const std::vector<Transfer>& tasks,
                           const topology::P2pPolicy& policy) {
  std::vector<Transfer> copy = tasks;
  for (Transfer& t : copy)
    if (t.src != t.dst) {
      t.bytes = Bytes{};
      t.connected = true;
    }
  return engine::run(p, copy, policy);
}

/// Seconds of compute-stream kernels of one rank of `program` on `gpu`, by the compute cost model.
inline double compute_stream_seconds(const Platform& p, const workloads::RankProgram& rank,
                                     const topology::GpuSpec& gpu) {
  double sum = 0;
  for (const auto& op : rank.ops)
    if (op.kind == workloads::OpKind::Kernel && op.stream == workloads::Stream::Compute)
      sum += calibration::kernel_time(gpu, p.cost_model(), op.work).time.value * op.repeat;
  return sum;
}

}  // namespace rigsim::model::testing
