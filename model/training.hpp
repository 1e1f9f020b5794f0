// One training step on a Platform: a workload Program (workloads/program.hpp: per-rank ops on streams,
// shared collectives and pipeline messages) turned into one task graph — kernels timed by the compute
// cost model (calibration/compute.hpp), collectives planned as NCCL would (collectives.hpp) over the
// ranks' GPUs, host copies and pipeline messages routed by the Platform — and run by an Executor, so
// every rank's collectives, offload copies and pipeline transfers contend for the same links.
//
// What the result says: the step time; per rank where the compute stream spent it (kernels, and each
// idle gap attributed to what the next kernel waited for: a collective of some purpose, a pipeline
// message, an offload copy, the host optimizer); memory per GPU against its capacity; the busiest links.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/collectives.hpp"
#include "model/platform.hpp"
#include "workloads/memory.hpp"
#include "workloads/program.hpp"

namespace rigsim::model {

/// Seconds of one rank's step by what its compute stream did or waited for.
struct RankBreakdown {
  int rank = 0;
  topology::DeviceId gpu = 0;
  double compute_s = 0;    // forward, backward and recompute kernels
  double optimizer_s = 0;  // optimizer kernels on the GPU, or waiting for the host optimizer step
  double offload_s = 0;    // waiting for host <-> device copies of offloaded states
  double bubble_s = 0;     // waiting for a pipeline neighbour (activations or gradients)
  double idle_s = 0;       // waiting for nothing attributable (e.g. the step's end on another rank)
  /// Waiting for a collective, by purpose ("grad_sync", "param_gather", "tensor_parallel",
  /// "expert_all_to_all").
  std::map<std::string, double> exposed_comm_s;
  double exposed_comm_total() const;
};

/// Memory of one GPU against its capacity.
struct GpuMemory {
  int rank = 0;
  topology::DeviceId gpu = 0;
  workloads::RankMemory need;
  Bytes capacity;  // the GPU's memory
  bool fits() const { return need.total().value <= capacity.value; }
};

/// One task of the step for traces: where it ran, when, and what it was.
struct TraceEvent {
  int rank = -1;       // -1: a collective's or message's own transfer (no rank stream)
  std::string stream;  // "compute", "comm", "copy", "cpu", or "net" for transfers
  std::string name;
  double start_s = 0;
  double finish_s = 0;
};

struct TrainingResult {
  double step_time_s = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double samples_per_s = 0;
  double model_flops_per_step = 0;
  double peak_flops = 0;  // sum over GPUs of the peak of the scenario's dtype, FLOP/s
  double mfu = 0;         // model FLOPs per second / peak_flops
  bool fits = true;
  std::vector<GpuMemory> memory;
  std::vector<RankBreakdown> breakdown;
  std::vector<LinkUsage> bottlenecks;
  std::vector<TraceEvent> trace;
  std::size_t tasks = 0;  // size of the simulated task graph
};

struct TrainingOptions {
  /// How collectives are planned. Steady by default: one flow per ring hop and channel, all concurrent,
  /// which keeps contention between collectives and costs O(n) flows per collective.
  CollectiveOptions collective = steady_collectives();
  bool keep_trace = false;

  static CollectiveOptions steady_collectives() {
    CollectiveOptions o;
    o.model = PlanModel::Steady;
    return o;
  }
};

/// The GPUs of the scenario in rank order: `names` (layout ids) or, when empty, every GPU of the
/// layout. Throws rigsim::InputError naming the scenario file for an unknown or repeated id.
std::vector<topology::DeviceId> scenario_gpus(const topology::Topology& topo,
                                              const std::vector<std::string>& names, const std::string& file);

/// Memory of every rank against its GPU (no simulation).
std::vector<GpuMemory> memory_fit(const Platform& platform, const workloads::Scenario& s,
                                  const workloads::ModelConfig& m,
                                  const std::vector<topology::DeviceId>& gpus);

/// Simulates one step of `program` with rank i on gpus[i].
TrainingResult run_training(const Platform& platform, const Executor& execute, const workloads::Scenario& s,
                            const workloads::ModelConfig& m, const workloads::Program& program,
                            const std::vector<topology::DeviceId>& gpus, const TrainingOptions& options = {});

}  // namespace rigsim::model
