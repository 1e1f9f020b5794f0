#include "workloads/program.hpp"

#include "workloads/memory.hpp"
#include "workloads/program_detail.hpp"

namespace rigsim::workloads {
namespace detail {
namespace {

std::optional<std::size_t> last_compute(RankContext& ctx) {
  return ctx.b.last(Stream::Compute);
}

Unit unit_from(const Scenario& s, const std::string& name, const RankParams& rp, bool root) {
  const BytesPerParam bpp = bytes_per_param(s.dtype, s.optimizer);
  const double base = rp.dense + rp.experts;
  const double q = base > 0 ? rp.quantized / base : 0.0;
  const double stored = bpp.weight * (1 - q) + kNf4BytesPerParam * q;
  const bool lora = s.lora.enabled();
  Unit u;
  u.name = name;
  u.root = root;
  u.weight_bytes = rp.dense * stored + rp.lora * bpp.weight;
  u.expert_weight_bytes = rp.experts * stored;
  u.trainable = lora ? rp.lora : rp.dense;
  u.expert_trainable = lora ? 0.0 : rp.experts;
  u.grad_bytes = u.trainable * bpp.gradient;
  u.expert_grad_bytes = u.expert_trainable * bpp.gradient;
  if (lora && root) u.trainable = u.grad_bytes = 0;  // embedding and logits stay frozen under LoRA
  return u;
}

// Gradient accumulation: DDP and ZeRO-1 reduce only in the last micro-batch; ZeRO-2/3 and FSDP
// reduce in every micro-batch (DeepSpeed partitions gradients as they appear; FSDP without no_sync).
bool syncs_every_microbatch(const ParallelPlan& p) {
  return p.shard_stage() >= 2;
}

bool gathers_params(const ParallelPlan& p) {
  return p.shard_stage() >= 3 || p.fsdp != Fsdp::None;
}

std::string mb_tag(int first, int count) {
  return count == 1 ? "mb" + std::to_string(first)
                    : "mb" + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

void forward_pass(RankContext& ctx, double fold, bool sync, const std::string& tag) {
  const bool per_layer = sync && gathers_params(ctx.s.plan);
  DpSync& dp = *ctx.dp;
  if (sync) dp.forward_begin(*ctx.embedding_unit, fold);
  piece(ctx, embedding_forward(ctx.s, ctx.m), fold, tag + " embedding");
  if (sync) dp.forward_end(*ctx.embedding_unit);
  for (const LayerRange& block : blocks(ctx.m, {0, ctx.m.layers}, per_layer)) {
    if (sync && per_layer) dp.forward_begin(ctx.unit_of_layer.at(block.first), fold);
    block_forward(ctx, block, fold, tag);
    if (sync && per_layer) dp.forward_end(ctx.unit_of_layer.at(block.first));
  }
  if (sync) dp.forward_begin(*ctx.head_unit, fold);
  piece(ctx, head_forward(ctx.s, ctx.m), fold, tag + " head");
  if (sync) dp.forward_end(*ctx.head_unit);
}

void backward_pass(RankContext& ctx, double fold, bool sync, const std::string& tag) {
  const bool per_layer = sync && (ctx.g.dp.size() > 1 || ctx.g.expert_dp.size() > 1);
  DpSync& dp = *ctx.dp;
  if (sync) dp.backward_begin(*ctx.head_unit, fold);
  piece(ctx, head_backward(ctx.s, ctx.m), fold, tag + " head");
  if (sync) dp.grads_ready(*ctx.head_unit, fold);
  auto layer_blocks = blocks(ctx.m, {0, ctx.m.layers}, per_layer);
  for (auto it = layer_blocks.rbegin(); it != layer_blocks.rend(); ++it) {
    if (sync) dp.backward_begin(ctx.unit_of_layer.at(it->first + it->count - 1), fold);
    block_backward(ctx, *it, fold, tag);
    for (int l = it->first + it->count - 1; sync && l >= it->first; --l)
      dp.grads_ready(ctx.unit_of_layer.at(l), fold);
  }
  if (sync) dp.backward_begin(*ctx.embedding_unit, fold);
  piece(ctx, embedding_backward(ctx.s, ctx.m), fold, tag + " embedding");
  if (sync) dp.grads_ready(*ctx.embedding_unit, fold);
}

// No pipeline: micro-batches are folded (see program.hpp); the synchronised one(s) come last.
void build_flat(RankContext& ctx) {
  DpSync dp(ctx.s, ctx.b, ctx.g, make_units(ctx, 0));
  ctx.dp = &dp;
  const int m = ctx.s.micro_batches();
  const bool every = syncs_every_microbatch(ctx.s.plan);
  if (!every && m > 1) {
    dp.set_pass(mb_tag(0, m - 1));
    forward_pass(ctx, m - 1, false, mb_tag(0, m - 1));
    backward_pass(ctx, m - 1, false, mb_tag(0, m - 1));
  }
  const int first = every ? 0 : m - 1, fold = every ? m : 1;
  dp.set_pass(mb_tag(first, fold));
  forward_pass(ctx, fold, true, mb_tag(first, fold));
  backward_pass(ctx, fold, true, mb_tag(first, fold));
  dp.flush(fold);
  dp.step();
}

// Model FLOPs per step (see Program::model_flops_per_step for the convention).
double model_flops(const Scenario& s, const ModelConfig& m) {
  const ParamCounts pc = param_counts(m);
  const double tokens = static_cast<double>(s.global_batch) * s.seq_len;
  const double matmul =
      pc.active - pc.embedding + (m.tied_embeddings ? static_cast<double>(m.vocab) * m.hidden : 0.0);
  const double attention = 12.0 * m.layers * m.hidden * s.seq_len * tokens;
  if (!s.lora.enabled()) return 6 * matmul * tokens + attention;
  Scenario whole = s;
  whole.plan.tp = whole.plan.ep = 1;
  double adapters = 0;
  for (int i = 0; i < m.layers; ++i) adapters += lora_layer_params(whole, m, i);
  return (4 * matmul + 6 * adapters) * tokens + attention;
}

}  // namespace

std::vector<Unit> make_units(RankContext& ctx, int stage) {
  std::vector<Unit> units;
  if (stage == 0) {
    ctx.embedding_unit = units.size();
    units.push_back(unit_from(ctx.s, "embedding", embedding_rank_params(ctx.s, ctx.m), true));
  }
  for (const LayerRange& chunk : stage_chunks(ctx.s.plan, ctx.m, stage)) {
    for (int l = chunk.first; l < chunk.first + chunk.count; ++l) {
      ctx.unit_of_layer[l] = units.size();
      units.push_back(unit_from(ctx.s, "L" + std::to_string(l), layer_rank_params(ctx.s, ctx.m, l), false));
    }
  }
  if (stage == ctx.s.plan.pp - 1) {
    ctx.head_unit = units.size();
    units.push_back(unit_from(ctx.s, "head", head_rank_params(ctx.s, ctx.m), true));
  }
  return units;
}

void emit(RankContext& ctx, const Steps& steps, const std::string& prefix) {
  for (const Step& st : steps) {
    const std::string name = prefix + " " + st.name;
    if (!st.comm) {
      ctx.b.kernel(st.purpose, name, st.work, st.repeat);
      continue;
    }
    const auto& group = st.group == Group::Tp ? ctx.g.tp : ctx.g.ep;
    std::vector<std::size_t> after;
    if (const auto last = last_compute(ctx)) after.push_back(*last);
    ctx.b.wait_for(
        ctx.b.collective(st.purpose, name, st.kind, group, st.bytes, st.count, after, Stream::Compute));
  }
}

std::vector<LayerRange> blocks(const ModelConfig& m, const LayerRange& range, bool per_layer) {
  std::vector<LayerRange> out;
  for (int l = range.first; l < range.first + range.count; ++l) {
    const bool extend = !per_layer && !out.empty() && m.is_moe_layer(l) == m.is_moe_layer(out.back().first);
    if (extend)
      ++out.back().count;
    else
      out.push_back({l, 1});
  }
  return out;
}

std::string layer_label(const LayerRange& r) {
  return r.count == 1 ? "L" + std::to_string(r.first)
                      : "L" + std::to_string(r.first) + "-" + std::to_string(r.first + r.count - 1);
}

void piece(RankContext& ctx, Steps steps, double fold, const std::string& prefix) {
  steps = compact(steps);
  scale(steps, fold);
  emit(ctx, steps, prefix);
}

void block_forward(RankContext& ctx, const LayerRange& block, double fold, const std::string& tag) {
  piece(ctx, layer_forward(ctx.s, ctx.m, block.first, Purpose::Forward), block.count * fold,
        tag + " " + layer_label(block) + " fwd");
}

void block_backward(RankContext& ctx, const LayerRange& block, double fold, const std::string& tag) {
  const std::string label = tag + " " + layer_label(block);
  const double n = block.count * fold;
  switch (ctx.s.plan.recompute) {
    case Recompute::Full:  // the whole forward again, tensor-parallel collectives included
      piece(ctx, layer_forward(ctx.s, ctx.m, block.first, Purpose::Recompute), n, label + " recompute");
      break;
    case Recompute::Selective:
      piece(ctx, attention_recompute(ctx.s, ctx.m), n, label + " recompute");
      break;
    case Recompute::None:
      break;
  }
  piece(ctx, layer_backward(ctx.s, ctx.m, block.first), n, label + " bwd");
}

}  // namespace detail

Program build_program(const Scenario& s, const ModelConfig& m) {
  Program program;
  program.ranks.resize(s.plan.world());
  detail::Registry registry(program);
  for (int rank = 0; rank < s.plan.world(); ++rank) {
    detail::RankBuilder builder(rank, registry, program.ranks[rank]);
    const detail::RankGroups groups = detail::rank_groups(s.plan, rank);
    detail::RankContext ctx{s,       m,  builder,      groups,      rank_coords(s.plan, rank),
                            nullptr, {}, std::nullopt, std::nullopt};
    if (s.plan.pp > 1)
      detail::build_pipelined(ctx);
    else
      detail::build_flat(ctx);
  }
  program.tokens_per_step = static_cast<double>(s.global_batch) * s.seq_len;
  program.model_flops_per_step = detail::model_flops(s, m);
  return program;
}

}  // namespace rigsim::workloads
