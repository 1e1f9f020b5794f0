// `rigsim bench`: nccl-tests on a server you do not own. For each size of a sweep: plan the collective
// (collectives.hpp), run its transfers on the Platform (a model::Executor: engine::run), and report time, algbw and busbw
// as nccl-tests would (nccl_tests.hpp), plus why: the connections used and the busiest links.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/collectives.hpp"
#include "model/nccl_tests.hpp"
#include "model/platform.hpp"
#include "model/task_graph.hpp"

namespace rigsim::model {

struct BenchOptions {
  CollectiveOp op = CollectiveOp::AllReduce;
  std::vector<topology::DeviceId> gpus;  // ranks in order; empty: every GPU of the topology
  nccl_tests::Sweep sweep;
  CollectiveOptions collective;
  /// GPUs one host thread drives, as nccl-tests' own -g: that thread enqueues and launches the
  /// collective on each of them in turn every iteration, so an iteration takes at least
  /// gpus_per_thread x CostModel::nccl_launch_per_gpu. 0: all of a server's ranks (nccl-tests run as one
  /// process per server, `./all_reduce_perf -g 8`); 1: one process or thread per GPU (`mpirun -np 8
  /// ./all_reduce_perf -g 1`, or -t 8).
  std::size_t gpus_per_thread = 0;
};

struct BenchRow {
  nccl_tests::Row row;
  Algorithm algorithm = Algorithm::Ring;
  PlanModel model = PlanModel::Step;
  Protocol protocol = Protocol::Simple;
  std::size_t transfers = 0;
  bool host_bound = false;  // the row's time is the host's launches (BenchResult::launch), not the GPUs'
};

struct BenchResult {
  CollectiveOp op = CollectiveOp::AllReduce;
  std::vector<topology::DeviceId> gpus;
  std::vector<BenchRow> rows;
  double avg_busbw = 0;               // GB/s, as nccl-tests' footer
  CollectivePlan largest;             // plan of the largest size, transfers dropped (for "why")
  std::vector<LinkUsage> bottleneck;  // busiest links while the largest size ran
  std::size_t gpus_per_thread = 0;    // GPUs one thread launches (resolved: at least 1)
  Seconds launch;                     // the host's time per iteration, gpus_per_thread x launch per GPU
};

/// The network policy a bench's Platform needs: NCCL's environment (options.collective.net) with the
/// communicator's GPUs and the NCCL release, on which NCCL's default GDR read rule depends.
NetPolicy bench_net_policy(const BenchOptions& options);

/// Simulated duration of one plan: the makespan of its transfers, or its latency term when it moves
/// nothing (one GPU), or 0 for 0 bytes. `run` receives the executor's result when given.
Seconds simulate_plan(const Platform& platform, const Executor& execute, const CollectivePlan& plan,
                      RunResult* run = nullptr);

/// The whole sweep, one simulation per size. Throws rigsim::InputError for bad options (see
/// plan_collective, sweep_sizes).
BenchResult run_bench(const Platform& platform, const Executor& execute, const BenchOptions& options);
/// The same sweep with the sizes as phases of a few simulations (kSweepGroups, sizes dealt in turn),
/// up to `jobs` of them at once: what `rigsim bench` runs. The result does not depend on `jobs`.
BenchResult run_bench(const Platform& platform, const PhasesExecutor& start, const BenchOptions& options,
                      std::size_t jobs);
/// How many simulations the sizes of a sweep are dealt to: enough for this many cores to share the
/// work, few enough that each simulation's set-up (process, platform, actors) serves several sizes.
/// Fixed, so that the report is the same for any `jobs`.
inline constexpr std::size_t kSweepGroups = 4;

/// The GPUs of a bench, like nccl-tests' -g: per server, the first `per_node` GPUs (all when nullopt),
/// or the GPUs at `indices` (positions in the server's GPU list, as CUDA device ids). Servers in order.
/// Throws rigsim::InputError when a count or index exceeds a server's GPUs.
std::vector<topology::DeviceId> select_gpus(const topology::Topology& topo,
                                            std::optional<std::size_t> per_node,
                                            const std::vector<std::size_t>& indices);

}  // namespace rigsim::model
