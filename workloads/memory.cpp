#include "workloads/memory.hpp"

#include <algorithm>

#include "workloads/partition.hpp"

namespace rigsim::workloads {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// Memory a process holds once CUDA is initialised (context, cuBLAS/cuDNN handles, NCCL buffers):
// PyTorch users measure ~700-800 MiB before any tensor exists (discuss.pytorch.org/t/73021: 723 MiB;
// /t/81330: "~700+MB depending on the CUDA version and device").
constexpr double kCudaContextBytes = 800 * kMiB;
// The cross-entropy over the logits keeps them in the working dtype and an fp32 copy (PyTorch
// autocast runs cross_entropy/log_softmax in fp32): 2 + 4 bytes per logit.
constexpr double kLogitBytes = 2.0 + 4.0;

// Korthikanti et al. 2022 eq. 1: per layer, s·b·h·(34 + 5·a·s/h) bytes; the 34 splits into 10
// (layer norms, QKV input, attention output projection input, dropout masks) that tensor
// parallelism does not split, and 24 that it does. The MLP's share (16 of the 24: GeLU input and
// output of 4h width) scales with the intermediate width a token visits in MoE layers.
constexpr double kUnsplit = 10, kSplit = 24, kMlpIntermediate = 16;

double split_term(const Scenario& s, const ModelConfig& m, bool moe_layer) {
  if (!moe_layer) return kSplit;
  // With expert parallelism the busiest rank holds moe_imbalance times the mean routed tokens.
  const double imbalance = s.plan.ep > 1 ? s.moe_imbalance : 1.0;
  const double visited = (m.top_k * imbalance + m.shared_experts) * static_cast<double>(m.expert_ffn);
  return kSplit - kMlpIntermediate + kMlpIntermediate * visited / (4.0 * m.hidden);
}

// s·b·h·(unsplit + (split + attention)/t), or everything split by t under sequence parallelism.
double korthikanti(const Scenario& s, const ModelConfig& m, double split, double attention) {
  const double sbh = static_cast<double>(s.seq_len) * s.micro_batch * m.hidden, t = s.plan.tp;
  if (s.plan.sequence_parallel) return sbh * (kUnsplit + split + attention) / t;
  return sbh * (kUnsplit + (split + attention) / t);
}

// Divisor of a parameter kind's state under ZeRO/FSDP: sharded from `min_stage` on, over the shard
// group (expert parameters over their expert-data-parallel replicas).
double shard_div(const ParallelPlan& p, int min_stage, bool expert) {
  if (p.shard_stage() < min_stage) return 1.0;
  const double group = p.shard_group_size();
  return expert ? std::max(1.0, group * p.tp / p.ep) : group;
}

double sharded(const ParallelPlan& p, double dense, double experts, int min_stage) {
  return dense / shard_div(p, min_stage, false) + experts / shard_div(p, min_stage, true);
}

struct States {
  double weights = 0, gradients = 0, optimizer = 0;
};

// Weights, gradients and optimizer states of one rank after sharding, before offload.
States states(const Scenario& s, const RankParams& rp) {
  const ParallelPlan& p = s.plan;
  const BytesPerParam bpp = bytes_per_param(s.dtype, s.optimizer);
  const double base = rp.dense + rp.experts;
  const double q = base > 0 ? rp.quantized / base : 0.0;
  const double base_bytes = bpp.weight * (1 - q) + kNf4BytesPerParam * q;
  States out;
  out.weights =
      sharded(p, rp.dense, rp.experts, 3) * base_bytes + rp.lora / shard_div(p, 3, false) * bpp.weight;
  const bool lora = s.lora.enabled();
  const double trainable2 = lora ? rp.lora / shard_div(p, 2, false) : sharded(p, rp.dense, rp.experts, 2);
  const double trainable1 = lora ? rp.lora / shard_div(p, 1, false) : sharded(p, rp.dense, rp.experts, 1);
  out.gradients = trainable2 * bpp.gradient;
  out.optimizer = trainable1 * bpp.optimizer;
  return out;
}

// Communication buffers: DDP's bucket copy of the gradients (PyTorch DDP docs: gradient_as_bucket_view
// "saves a memory size equal to the total gradients size"), ZeRO-1/2 reduce and gather buckets, and
// ZeRO-3/FSDP gathered units (the current one and the prefetched next, plus the unit's full gradient
// before its reduce-scatter).
double comm_buffers(const Scenario& s, const RankParams& rp) {
  const ParallelPlan& p = s.plan;
  const BytesPerParam bpp = bytes_per_param(s.dtype, s.optimizer);
  const double grads = rp.trainable(s.lora.enabled()) * bpp.gradient;
  const double bucket = s.ddp_bucket_mb * kMiB;
  switch (p.shard_stage()) {
    case 0:
      return p.dp > 1 && !s.gradient_as_bucket_view ? grads : 0.0;
    case 1:
    case 2:
      return std::min(2 * bucket, grads);
    default:
      return 2 * rp.largest_unit * bpp.weight + (s.lora.enabled() ? 0.0 : rp.largest_unit * bpp.gradient);
  }
}

double activations(const Scenario& s, const ModelConfig& m, int stage) {
  double per_microbatch = 0;
  for (const auto& chunk : stage_chunks(s.plan, m, stage))
    for (int i = chunk.first; i < chunk.first + chunk.count; ++i)
      per_microbatch += activation_bytes_per_layer(s, m, m.is_moe_layer(i)).value;
  double total = per_microbatch * inflight_microbatches(s, stage);
  // Full recomputation rebuilds one layer's activations at a time during backward.
  if (s.plan.recompute == Recompute::Full) {
    Scenario selective = s;
    selective.plan.recompute = Recompute::Selective;
    total += activation_bytes_per_layer(selective, m, m.is_moe()).value;
  }
  return total;
}

double logits_buffer(const Scenario& s, const ModelConfig& m, int stage) {
  if (stage != s.plan.pp - 1) return 0;
  return static_cast<double>(s.seq_len) * s.micro_batch * m.vocab / s.plan.tp * kLogitBytes;
}

}  // namespace

Bytes RankMemory::total() const {
  return {weights.value + gradients.value + optimizer.value + activations.value + buffers.value +
          context.value};
}

BytesPerParam bytes_per_param(Dtype dtype, Optimizer optimizer) {
  const bool fp32 = dtype == Dtype::Fp32 || dtype == Dtype::Tf32;
  BytesPerParam b;
  b.weight = b.gradient = fp32 ? 4 : 2;  // fp8 training keeps bf16 weights (Transformer Engine)
  const double master = fp32 ? 0 : 4;
  // AdamW: fp32 m and v; SGD with momentum: one fp32 buffer; bitsandbytes 8-bit AdamW: one byte each
  // for m and v (Dettmers et al. 2022, arXiv:2110.02861).
  const double states = optimizer == Optimizer::AdamW ? 8 : optimizer == Optimizer::Sgd ? 4 : 2;
  b.optimizer = master + states;
  return b;
}

Bytes activation_bytes_per_layer(const Scenario& s, const ModelConfig& m, bool moe_layer) {
  const double split = split_term(s, m, moe_layer);
  const double sbh = static_cast<double>(s.seq_len) * s.micro_batch * m.hidden;
  switch (s.plan.recompute) {
    case Recompute::Full:  // only the layer input: 2·s·b·h (split by t under sequence parallelism)
      return {2 * sbh / (s.plan.sequence_parallel ? s.plan.tp : 1)};
    case Recompute::Selective:  // the attention core (the 5as/h term) is recomputed
      return {korthikanti(s, m, split, 0)};
    case Recompute::None:
      break;
  }
  // FlashAttention keeps no s×s tensors (Dao et al. 2022, arXiv:2205.14135): the term vanishes.
  const double attention = s.flash_attention ? 0.0 : 5.0 * m.heads * s.seq_len / m.hidden;
  return {korthikanti(s, m, split, attention)};
}

double inflight_microbatches(const Scenario& s, int stage) {
  const ParallelPlan& p = s.plan;
  const double m = s.micro_batches();
  if (p.pp == 1) return 1;
  switch (p.pp_schedule) {
    case PipelineSchedule::GPipe:
      return m;
    case PipelineSchedule::OneFOneB:
      return std::min(m, static_cast<double>(p.pp - stage));
    case PipelineSchedule::Interleaved:
      break;
  }
  const double extra = 1.0 + (p.pp - 1.0) / (p.pp * static_cast<double>(p.virtual_stages));
  return std::min(m, (p.pp - stage) * extra);
}

RankMemory rank_memory(const Scenario& s, const ModelConfig& m, int rank) {
  const int stage = rank_coords(s.plan, rank).pp;
  const RankParams rp = rank_params(s, m, stage);
  const States st = states(s, rp);
  const Offload& off = s.plan.offload;
  RankMemory r;
  r.weights = {off.params ? 0.0 : st.weights};
  r.gradients = {off.params || (off.optimizer && s.plan.shard_stage() >= 2) ? 0.0 : st.gradients};
  r.optimizer = {off.optimizer ? 0.0 : st.optimizer};
  r.host = {st.weights * (off.params ? 1 : 0) + (st.gradients - r.gradients.value) +
            (st.optimizer - r.optimizer.value)};
  r.activations = {activations(s, m, stage)};
  r.buffers = {comm_buffers(s, rp) + logits_buffer(s, m, stage)};
  r.context = {kCudaContextBytes};
  return r;
}

std::vector<RankMemory> memory_plan(const Scenario& s, const ModelConfig& m) {
  std::vector<RankMemory> out;
  for (int r = 0; r < s.plan.world(); ++r) out.push_back(rank_memory(s, m, r));
  return out;
}

}  // namespace rigsim::workloads
