#include "workloads/partition.hpp"

#include <algorithm>

namespace rigsim::workloads {
namespace {

// Linear-layer parameters of one layer on one rank (what QLoRA quantises): everything but norms
// and the router.
double linear_params(const ModelConfig& m, const LayerParams& lp, double tp, double ep, bool moe) {
  const double router = moe ? static_cast<double>(m.hidden) * m.experts : 0.0;
  const double shared = lp.mlp - lp.experts - router;
  return (lp.attention + shared) / tp + lp.experts / ep;
}

struct LayerShare {
  double dense = 0, experts = 0, quantized = 0;
};

LayerShare layer_share(const Scenario& s, const ModelConfig& m, int layer) {
  const ParallelPlan& p = s.plan;
  const LayerParams lp = layer_params(m, layer);
  const bool moe = m.is_moe_layer(layer);
  const double router = moe ? static_cast<double>(m.hidden) * m.experts : 0.0;
  LayerShare out;
  out.experts = lp.experts / p.ep;
  out.dense = (lp.attention + lp.mlp - lp.experts - router) / p.tp + router + lp.norms;
  out.quantized = s.lora.qlora ? linear_params(m, lp, p.tp, p.ep, moe) : 0.0;
  return out;
}

// Parameters of one adapter pair on a d_in x d_out matrix: A is d_in x r, B is r x d_out.
double adapter(const Lora& l, double d_in, double d_out) {
  return l.rank * (d_in + d_out);
}

double mlp_adapters(const Lora& l, double h, double ffn) {
  double n = 0;
  if (l.targets_module("gate")) n += adapter(l, h, ffn);
  if (l.targets_module("up")) n += adapter(l, h, ffn);
  if (l.targets_module("down")) n += adapter(l, ffn, h);
  return n;
}

}  // namespace

std::vector<LayerRange> stage_chunks(const ParallelPlan& p, const ModelConfig& m, int stage) {
  if (p.pp_schedule == PipelineSchedule::Interleaved && p.virtual_stages > 1) {
    const int per_chunk = m.layers / (p.pp * p.virtual_stages);
    std::vector<LayerRange> chunks;
    for (int c = 0; c < p.virtual_stages; ++c) chunks.push_back({(c * p.pp + stage) * per_chunk, per_chunk});
    return chunks;
  }
  const int base = m.layers / p.pp, extra = m.layers % p.pp;
  const int first = stage * base + std::min(stage, extra);
  return {{first, base + (stage < extra ? 1 : 0)}};
}

int stage_layer_count(const ParallelPlan& p, const ModelConfig& m, int stage) {
  int n = 0;
  for (const auto& c : stage_chunks(p, m, stage)) n += c.count;
  return n;
}

double lora_layer_params(const Scenario& s, const ModelConfig& m, int layer) {
  const Lora& l = s.lora;
  if (!l.enabled()) return 0;
  const double h = m.hidden, kv = m.kv_dim();
  double attention = 0;
  if (l.targets_module("q")) attention += adapter(l, h, h);
  if (l.targets_module("k")) attention += adapter(l, h, kv);
  if (l.targets_module("v")) attention += adapter(l, h, kv);
  if (l.targets_module("o")) attention += adapter(l, h, h);
  if (!m.is_moe_layer(layer)) return (attention + mlp_adapters(l, h, m.ffn)) / s.plan.tp;
  const double per_expert = mlp_adapters(l, h, m.expert_ffn);
  return (attention + m.shared_experts * per_expert) / s.plan.tp + per_expert * m.experts / s.plan.ep;
}

double RankParams::frozen() const {
  return lora > 0 ? dense + experts : 0.0;
}

RankParams layer_rank_params(const Scenario& s, const ModelConfig& m, int layer) {
  const LayerShare share = layer_share(s, m, layer);
  RankParams r;
  r.dense = share.dense;
  r.experts = share.experts;
  r.quantized = share.quantized;
  r.lora = lora_layer_params(s, m, layer);
  r.largest_unit = share.dense + share.experts;
  return r;
}

RankParams embedding_rank_params(const Scenario& s, const ModelConfig& m) {
  RankParams r;
  r.dense = r.largest_unit = param_counts(m).embedding / s.plan.tp;
  return r;
}

RankParams head_rank_params(const Scenario& s, const ModelConfig& m) {
  const ParamCounts pc = param_counts(m);
  // Megatron keeps a copy of a tied embedding on the last stage when pp > 1 (its gradient is
  // all-reduced between the two stages); untied logits always live on the last stage.
  const double tied_copy = m.tied_embeddings && s.plan.pp > 1 ? m.vocab * static_cast<double>(m.hidden) : 0.0;
  RankParams r;
  r.dense = r.largest_unit = (pc.lm_head + tied_copy) / s.plan.tp + pc.final_norm;
  return r;
}

RankParams rank_params(const Scenario& s, const ModelConfig& m, int stage) {
  RankParams r;
  auto add = [&r](const RankParams& x) {
    r.dense += x.dense;
    r.experts += x.experts;
    r.quantized += x.quantized;
    r.lora += x.lora;
    r.largest_unit = std::max(r.largest_unit, x.largest_unit);
  };
  for (const auto& chunk : stage_chunks(s.plan, m, stage))
    for (int i = chunk.first; i < chunk.first + chunk.count; ++i) add(layer_rank_params(s, m, i));
  if (stage == 0) add(embedding_rank_params(s, m));
  if (stage == s.plan.pp - 1) add(head_rank_params(s, m));
  return r;
}

}  // namespace rigsim::workloads
