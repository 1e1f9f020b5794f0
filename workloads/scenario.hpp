// A training scenario: which model, on which GPUs, with what batch, precision, optimizer and
// parallelism plan. Read strictly (docs/scenario-format.md), then checked against the model and the
// number of GPUs by validate(). Rank placement (which rank is which dp/tp/pp/ep coordinate, and the
// communication groups) is a pure function of the plan.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "workloads/model.hpp"

namespace rigsim::workloads {

enum class Optimizer { AdamW, Sgd, AdamW8bit };
enum class Recompute { None, Selective, Full };
enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };
enum class Fsdp { None, FullShard, ShardGradOp, HybridShard };
enum class Axis { Tp, Dp, Pp };

/// ZeRO-Offload / FSDP cpu_offload: what lives in host memory, and so where the optimizer runs.
struct Offload {
  bool optimizer = false;  // fp32 master weights and optimizer states on the host; step on the CPU
  bool params = false;     // parameter shards on the host too (ZeRO-Infinity, FSDP offload_params)
  bool any() const { return optimizer || params; }
  auto operator<=>(const Offload&) const = default;
};

/// Low-rank adapters on frozen base weights (Hu et al. 2021, arXiv:2106.09685); QLoRA stores the base
/// in 4-bit NormalFloat (Dettmers et al. 2023, arXiv:2305.14314).
struct Lora {
  int rank = 0;  // 0: no LoRA (full training)
  double alpha = 0;
  std::vector<std::string> targets;  // subset of q, k, v, o, gate, up, down
  bool qlora = false;
  bool enabled() const { return rank > 0; }
  bool targets_module(const std::string& name) const;
};

/// How the ranks split the work. world() = dp · tp · pp ranks; ep is carved out of the dp · tp ranks
/// of each pipeline stage (it multiplies nothing).
struct ParallelPlan {
  int dp = 1, tp = 1, pp = 1, ep = 1;
  bool sequence_parallel = false;  // Megatron SP: norms/dropout split along the sequence over tp
  PipelineSchedule pp_schedule = PipelineSchedule::OneFOneB;
  int virtual_stages = 1;  // model chunks per rank (interleaved schedule)
  int zero = 0;            // DeepSpeed ZeRO stage 0..3
  Fsdp fsdp = Fsdp::None;  // PyTorch FSDP sharding strategy (instead of zero)
  int hybrid_group = 0;    // hybrid_shard: ranks per shard group (states replicated across groups)
  Offload offload;
  Recompute recompute = Recompute::None;                  // read from the scenario's top-level "recompute"
  std::vector<Axis> order{Axis::Tp, Axis::Dp, Axis::Pp};  // placement, innermost (fastest) first

  int world() const { return dp * tp * pp; }
  /// The ZeRO stage in effect: zero, or FSDP's (full/hybrid shard: 3, shard_grad_op: 2).
  int shard_stage() const;
  /// Ranks that share (shard) one copy of the states: dp, or the hybrid group.
  int shard_group_size() const;
  bool operator==(const ParallelPlan&) const = default;
};

struct Scenario {
  std::string file;  // where it was read from ("" in memory); errors name it
  std::string name;
  std::string model;              // built-in name, or a path (made relative to the working directory)
  std::string layout;             // path ("" when the caller gives one), relative paths resolved
  std::vector<std::string> gpus;  // GPU ids of the layout to use ("": all, in layout order)
  int global_batch = 1;           // sequences per optimizer step
  int micro_batch = 1;            // sequences per forward/backward of one rank
  int seq_len = 1;                // tokens per sequence
  Dtype dtype = Dtype::Bf16;      // compute and weight dtype; bf16/fp16/fp8 keep fp32 master weights
  Optimizer optimizer = Optimizer::AdamW;
  bool flash_attention = true;  // fused attention: no s² activations kept, attention traffic ∝ s
  double moe_imbalance = 1.25;  // busiest expert rank's load / mean (see scenario.cpp)
  Lora lora;
  double ddp_bucket_mb = 25;  // PyTorch DDP bucket_cap_mb default
  bool gradient_as_bucket_view = false;
  ParallelPlan plan;

  /// Micro-batches per step per data-parallel rank (gradient accumulation steps).
  int micro_batches() const { return global_batch / (plan.dp * micro_batch); }
};

Scenario parse_scenario(const nlohmann::json& doc, const std::string& file);
Scenario load_scenario(const std::string& path);
/// Resolves the scenario's model (built-in name or path); errors point at "/model" of the scenario.
ModelConfig scenario_model(const Scenario& s, const std::string& models_dir);

/// Rejects invalid combinations with the reason and the JSON pointer of the key to change (InputError).
/// `gpus_available`: GPUs of the layout; the plan must use all of them, or exactly the `gpus` listed.
void validate(const Scenario& s, const ModelConfig& m, int gpus_available);

/// "dp4 tp2 pp1 zero3 …": a compact, stable description of a plan (sweep tables, test names).
std::string describe(const ParallelPlan& p);
std::string to_string(Optimizer o);
std::string to_string(Recompute r);
std::string to_string(PipelineSchedule s);
std::string to_string(Fsdp f);

// ---- rank placement (placement.cpp) ----

struct RankCoords {
  int dp = 0, tp = 0, pp = 0;
  int ep = 0;  // index inside the rank's expert-parallel group
  bool operator==(const RankCoords&) const = default;
};
using Groups = std::vector<std::vector<int>>;

RankCoords rank_coords(const ParallelPlan& p, int rank);
int rank_of(const ParallelPlan& p, int dp, int tp, int pp);
Groups tp_groups(const ParallelPlan& p);  // ranks that differ only in tp, ordered by tp
Groups dp_groups(const ParallelPlan& p);  // ranks that differ only in dp
Groups pp_groups(const ParallelPlan& p);  // ranks that differ only in pp, ordered by stage
/// Expert-parallel groups: ep consecutive ranks (tp fastest, then dp) of one pipeline stage.
Groups ep_groups(const ParallelPlan& p);
/// Ranks holding the same experts (same stage, same ep index): they all-reduce expert gradients.
Groups expert_dp_groups(const ParallelPlan& p);
/// ZeRO/FSDP shard groups: the dp groups, or (hybrid shard) consecutive pieces of hybrid_group ranks.
Groups shard_groups(const ParallelPlan& p);
/// Hybrid shard: ranks holding the same shard in different groups (they all-reduce it); else empty.
Groups replica_groups(const ParallelPlan& p);
/// Parses "tp,dp,pp" (innermost first) or "tp-innermost"; empty optional if malformed.
std::optional<std::vector<Axis>> parse_placement(const std::string& text);

}  // namespace rigsim::workloads
