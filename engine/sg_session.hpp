// Private to engine/: one SimGrid simulation of routed transfers. Must run in a process that has never
// created a SimGrid engine (see isolated.hpp); creates the engine, the part of the platform the routes
// use, runs the transfers and returns their timings.
#pragma once

#include <vector>

#include "model/platform.hpp"
#include "model/task_graph.hpp"

namespace rigsim::engine::detail {

using model::Platform;
using model::Route;
using model::Transfer;
using model::TransferTiming;

/// One distinct route used by a run.
struct RoutePlan {
  topology::DeviceId src = 0;
  topology::DeviceId dst = 0;
  Route route;
};

/// One task graph of a run: its transfers and, per transfer, the index of its route in SimPlan::routes.
struct SimPhase {
  const std::vector<Transfer>* transfers = nullptr;
  std::vector<std::size_t> route_of;  // per transfer
};

/// What the simulation needs: the distinct routes, and the task graphs to run one after another.
struct SimPlan {
  const Platform* platform = nullptr;
  std::vector<RoutePlan> routes;
  std::vector<SimPhase> phases;
};

/// Runs the phases in SimGrid one after another, each starting when the one before has finished (on a
/// network with nothing in flight), and returns each phase's timings measured from its own start. Call
/// once per process.
std::vector<std::vector<TransferTiming>> simulate(const SimPlan& plan);

}  // namespace rigsim::engine::detail
