// The engine: runs a task graph (model/task_graph.hpp) on a Platform with SimGrid and reports when each
// task started and finished, the makespan and the busiest links. The only library that includes
// SimGrid; everything it simulates is decided by the model (routes, transports, rates: the Platform).
//
// Timing of one task: it becomes ready when every task in `after` and the previous task of its stream
// have finished, plus its own `latency` (TransferTiming::start). A transfer's flow then needs the
// route's latency (the transport's setup time from the CostModel, left out when Transfer::connected,
// plus the latencies of the links crossed) and bytes / bandwidth, where the bandwidth is what max-min
// fair sharing with every other flow in flight leaves it. A compute task occupies its stream for its
// `duration`.
//
// Each call runs SimGrid in a forked child process (SimGrid 3.32 has one engine per process that cannot
// be reset), so any number of runs can follow each other in one process, each starting at time 0 and
// each deterministic. Throws std::invalid_argument for a malformed DAG or an impossible transport, and
// std::runtime_error if the simulation process fails.
#pragma once

#include <functional>
#include <vector>

#include "model/platform.hpp"
#include "model/task_graph.hpp"
#include "topology/p2p.hpp"

namespace rigsim::engine {

/// Runs `tasks` on `platform`. Transport::Auto is resolved per transfer by the Platform
/// (Platform::resolve_transport) under `policy`, for a communicator made of the GPUs that appear in
/// `tasks`. Matches model::Executor, so model code that needs a run takes this function as a value.
model::RunResult run(const model::Platform& platform, const std::vector<model::Transfer>& tasks,
                     const topology::P2pPolicy& policy = {});

/// Starts the same run in its own process and returns at once; calling the result waits for it and
/// gives what run() gives. `tasks` and `platform` must outlive that call: independent runs go side by
/// side on several cores (run_phases_async below is the one the bench sweep uses).
std::function<model::RunResult()> run_async(const model::Platform& platform, const std::vector<model::Transfer>& tasks,
                                            const topology::P2pPolicy& policy = {});

/// Starts several independent task graphs in one process, one after another in one simulation: each
/// phase starts when the one before has finished, with nothing in flight, and its timings are measured
/// from its own start. Cheaper than a run each (one process, one platform, one pool of actors): the
/// sizes of a bench sweep. Matches model::PhasesExecutor. The task graphs must outlive the wait.
std::function<std::vector<model::RunResult>()> run_phases_async(
    const model::Platform& platform, const std::vector<const std::vector<model::Transfer>*>& phases,
    const topology::P2pPolicy& policy = {});

}  // namespace rigsim::engine
