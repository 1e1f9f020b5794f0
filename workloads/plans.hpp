// Enumeration of parallelism plans for `rigsim sweep`: every dp×tp×pp×ep×ZeRO×offload×recompute
// combination that validate() accepts for a model on a number of GPUs, in a deterministic order.
#pragma once

#include <vector>

#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::workloads {

/// Plans for `gpus` GPUs, keeping everything else of `base` (batch, dtype, optimizer, LoRA, schedule,
/// placement). Order: tp, then pp, ascending (dp = gpus / (tp·pp)); then ep ascending; ZeRO stage 0..3;
/// offload none, optimizer, optimizer + params; recompute none, selective, full. Sequence parallelism
/// is on whenever tp > 1 (Megatron's recommendation: same traffic, less activation memory). ZeRO
/// stages above 0 on a single data-parallel rank only appear with offload (otherwise they equal stage 0).
/// An interleaved base schedule falls back to 1F1B where its constraints fail, and to none when pp = 1.
std::vector<ParallelPlan> enumerate_plans(const ModelConfig& m, int gpus, const Scenario& base);

/// `base` with `plan` in place, as a scenario for `gpus` GPUs (the GPU list cleared when its size differs).
Scenario with_plan(const Scenario& base, const ParallelPlan& plan, int gpus);

}  // namespace rigsim::workloads
