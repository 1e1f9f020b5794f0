// Private to sim/: one SimGrid simulation of routed transfers. Must run in a process that has never
// created a SimGrid engine (see isolated.hpp); creates the engine, the part of the platform the routes
// use, runs the transfers and returns their timings.
#pragma once

#include <vector>

#include "sim/platform.hpp"
#include "sim/transfers.hpp"

namespace rigsim::sim::detail {

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

}  // namespace rigsim::sim::detail
