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

/// What the simulation needs: transfers and, per transfer, the index of its route in `routes`.
struct SimPlan {
  const Platform* platform = nullptr;
  const std::vector<Transfer>* transfers = nullptr;
  std::vector<RoutePlan> routes;
  std::vector<std::size_t> route_of;  // per transfer
};

/// Runs the plan in SimGrid; call once per process.
std::vector<TransferTiming> simulate(const SimPlan& plan);

}  // namespace rigsim::engine::detail
