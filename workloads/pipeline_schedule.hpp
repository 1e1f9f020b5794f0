// Pipeline schedules as pure data: the order of forward and backward chunk passes on each stage, the
// boundary crossings (activations forward, gradients backward) between virtual stages, and a global
// order of those crossings that the per-rank programs follow. Internal to workloads/.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <vector>

#include "workloads/scenario.hpp"

namespace rigsim::workloads::detail {

/// One pass of one model chunk over one micro-batch.
struct Item {
  bool forward = true;
  int mb = 0;
  int chunk = 0;
};

/// The passes of pipeline stage `stage` in execution order (m micro-batches).
std::vector<Item> schedule(const ParallelPlan& p, int m, int stage);

/// An activation (forward) or gradient (backward) of micro-batch `mb` crossing from virtual stage
/// `from` to `to` (virtual stage vs = chunk·pp + stage).
struct Crossing {
  bool grad = false;
  int mb = 0;
  int from = 0;
  int to = 0;
  auto operator<=>(const Crossing&) const = default;
};

/// What an item at virtual stage vs receives and sends (none at the ends of the pipeline).
std::optional<Crossing> input_of(const Item& item, int vs, int last_vs);
std::optional<Crossing> output_of(const Item& item, int vs, int last_vs);

/// When every crossing leaves its sender in an eager run of all stages (forward 1, backward 2 time
/// units; a pass starts when its stage is free and its input has arrived). Ordering every rank's
/// sends and receives by (time, crossing) gives one global order, so rendezvous messages on in-order
/// streams cannot deadlock. Throws std::logic_error if the schedules cannot complete.
std::map<Crossing, double> crossing_times(const ParallelPlan& p, int m);

}  // namespace rigsim::workloads::detail
