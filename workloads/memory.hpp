// Device (and host) memory one rank needs for a training step: weights, gradients, optimizer
// states, activations, communication buffers and the CUDA context. Pure arithmetic on the scenario
// and model; whether it fits is the caller's comparison with the GPU's memory.
#pragma once

#include <vector>

#include "common/units.hpp"
#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::workloads {

/// QLoRA NF4 storage: 4 bits per weight plus 0.127 bits of double-quantised block constants
/// (Dettmers et al. 2023, arXiv:2305.14314 §3, "Double Quantization").
constexpr double kNf4BytesPerParam = (4.0 + 0.127) / 8.0;

/// One rank's memory, in bytes. Device terms add up to total(); host is separate.
struct RankMemory {
  Bytes weights;      // parameters resident on the GPU (shards under ZeRO-3/FSDP)
  Bytes gradients;    // gradients resident between backward and the step (shards under ZeRO-2/3)
  Bytes optimizer;    // fp32 master weights + optimizer states (shards under ZeRO-1..3)
  Bytes activations;  // saved for backward: per layer × layers of the stage × in-flight micro-batches
  Bytes buffers;      // communication buckets, gathered ZeRO-3/FSDP units, logits
  Bytes context;      // CUDA context, cuBLAS/NCCL workspaces
  Bytes host;         // pinned host memory for offloaded states and parameters
  Bytes total() const;
};

/// Bytes per parameter of the precision recipe (ZeRO paper, Rajbhandari et al. 2020,
/// arXiv:1910.02054 §3.1: mixed-precision AdamW = 2 + 2 + 12 = 16).
struct BytesPerParam {
  double weight = 2;      // working weights (bf16/fp16; fp32 when training in fp32)
  double gradient = 2;    // gradients in the working dtype
  double optimizer = 12;  // fp32 master (when not fp32 training) + states
};
BytesPerParam bytes_per_param(Dtype dtype, Optimizer optimizer);

/// Activation bytes one micro-batch keeps for backward in one layer (Korthikanti et al. 2022,
/// arXiv:2205.05198 §4, eq. 1-2 and Table 2), for this rank's tp share and recompute mode.
Bytes activation_bytes_per_layer(const Scenario& s, const ModelConfig& m, bool moe_layer);
/// Micro-batches whose activations stage `stage` holds at its peak (GPipe: all m; 1F1B: pp - stage;
/// interleaved: Narayanan et al. 2021 §2.2.2, (pp - stage)·(1 + (pp-1)/(pp·v)); no pipeline: 1).
double inflight_microbatches(const Scenario& s, int stage);

RankMemory rank_memory(const Scenario& s, const ModelConfig& m, int rank);
/// rank_memory of every rank, in rank order.
std::vector<RankMemory> memory_plan(const Scenario& s, const ModelConfig& m);

}  // namespace rigsim::workloads
