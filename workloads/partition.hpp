// How a model is cut for a plan: which layers a pipeline stage runs (in chunks for the interleaved
// schedule), and how many parameters one rank holds after tensor, expert and LoRA splits. Shared by
// the memory model and the program builder so both count the same things.
#pragma once

#include <vector>

#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::workloads {

/// A run of consecutive layers [first, first + count).
struct LayerRange {
  int first = 0;
  int count = 0;
};

/// The layers stage `stage` runs, as its model chunks in execution order: one range, or v ranges for
/// the interleaved schedule (chunk c of stage s holds global chunk c·pp + s, as Megatron-LM). When
/// pp does not divide the layers, the first stages get one more (the last one carries the logits).
std::vector<LayerRange> stage_chunks(const ParallelPlan& p, const ModelConfig& m, int stage);
int stage_layer_count(const ParallelPlan& p, const ModelConfig& m, int stage);

/// Parameters (element counts) one rank of a pipeline stage holds, before ZeRO/FSDP sharding.
struct RankParams {
  double dense = 0;         // non-expert parameters after the tp split (norms and routers replicated)
  double experts = 0;       // routed-expert parameters after the ep split (experts are not split by tp)
  double quantized = 0;     // of dense + experts: base linear weights stored in NF4 under QLoRA
  double lora = 0;          // adapter parameters (0 without LoRA)
  double largest_unit = 0;  // parameters of the largest FSDP unit (a layer, or embedding/logits)
  double frozen() const;    // parameters without gradients
  double trainable(bool lora_enabled) const { return lora_enabled ? lora : dense + experts; }
};
RankParams rank_params(const Scenario& s, const ModelConfig& m, int stage);
/// The same for single pieces: one layer, the input embedding (stage 0), the head (final norm and
/// logits, last stage; with a copy of tied embeddings when pp > 1, as Megatron-LM).
RankParams layer_rank_params(const Scenario& s, const ModelConfig& m, int layer);
RankParams embedding_rank_params(const Scenario& s, const ModelConfig& m);
RankParams head_rank_params(const Scenario& s, const ModelConfig& m);

/// Adapter parameters LoRA adds to layer `layer` for one rank (after the tp and ep splits).
double lora_layer_params(const Scenario& s, const ModelConfig& m, int layer);

}  // namespace rigsim::workloads
