// Runs a DAG of transfers (sim/transfers.hpp) on a Platform with SimGrid and reports when each one
// started and finished, the makespan and the busiest links.
//
// Timing of one transfer: it becomes ready when every transfer in `after` has finished plus its own
// `latency` (TransferTiming::start); its flow then needs the route's latency (the transport's setup
// time from the CostModel, left out when Transfer::connected, plus the latencies of the links crossed) and bytes / bandwidth, where the
// bandwidth is what max-min fair sharing with every other flow in flight leaves it.
//
// Each call runs SimGrid in a forked child process (SimGrid 3.32 has one engine per process that cannot
// be reset), so any number of runs can follow each other in one process, each starting at time 0 and
// each deterministic. Throws std::invalid_argument for a malformed DAG or an impossible transport, and
// std::runtime_error if the simulation process fails.
#pragma once

#include <vector>

#include "sim/platform.hpp"
#include "sim/transfers.hpp"
#include "topology/p2p.hpp"

namespace rigsim::sim {

/// How many links RunResult::busiest lists at most.
inline constexpr std::size_t kBusiestLinks = 10;

/// Transport::Auto is resolved per transfer with resolve_transport() under `policy`, for a
/// communicator made of the GPUs that appear in `transfers`.
RunResult run_transfers(const Platform& platform, const std::vector<Transfer>& transfers,
                        const topology::P2pPolicy& policy = {});

}  // namespace rigsim::sim
