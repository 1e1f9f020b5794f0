// Work per layer. FLOPs: a GEMM (m×k)·(k×n) is 2·m·n·k; backward is a data-gradient GEMM of the same
// size plus a weight-gradient GEMM (none for frozen LoRA/QLoRA base weights). Attention is
// FlashAttention-style: causal forward 2·b·s²·h (half of 4·b·s²·h), backward 2.5× forward (five
// matrix products instead of two; Dao 2023, arXiv:2307.08691 §3.1), memory traffic ∝ s.
// Tensor parallelism follows Megatron-LM (Shoeybi et al. 2019, arXiv:1909.08053 §3): column-parallel
// QKV/up, row-parallel o/down, two all-reduces forward (g) and two backward (f) per layer; with
// sequence parallelism (Korthikanti et al. 2022 §4.2.2) each becomes a reduce-scatter/all-gather pair.
#include "workloads/layer_steps.hpp"

#include <algorithm>
#include <map>

namespace rigsim::workloads::detail {
namespace {

KernelWork gemm(const Dims& d, double m, double n, double k) {
  KernelWork w;
  w.kind = KernelClass::Gemm;
  w.dtype = d.gemm;
  w.flops = 2 * m * n * k;
  w.bytes = (m * k + k * n) * bytes_per_element(d.gemm) + m * n * d.act;
  w.m = m, w.n = n, w.k = k;
  return w;
}

// Data gradient (m×n)·(n×k) and, for trained weights, weight gradient (k×m)·(m×n).
KernelWork gemm_backward(const KernelWork& f, bool weight_grad) {
  KernelWork w = f;
  const double factor = weight_grad ? 2 : 1;
  w.flops = f.flops * factor;
  w.bytes = f.bytes * factor;
  w.n = f.k;
  w.k = f.n;
  return w;
}

KernelWork memory_bound(KernelClass kind, const Dims& d, double elements) {
  KernelWork w;
  w.kind = kind;
  w.dtype = d.act == 4 ? Dtype::Fp32 : Dtype::Bf16;
  w.bytes = elements * d.act;
  w.flops = elements;  // about one operation per element moved: never the bound
  return w;
}

Step kernel(Purpose purpose, const std::string& name, const KernelWork& work, double repeat = 1) {
  Step s;
  s.purpose = purpose;
  s.name = name;
  s.work = work;
  s.repeat = repeat;
  return s;
}

Step comm(CommKind kind, Group group, double bytes, const std::string& name) {
  Step s;
  s.comm = true;
  s.purpose = group == Group::Tp ? Purpose::TensorParallel : Purpose::ExpertAllToAll;
  s.kind = kind;
  s.group = group;
  s.bytes = bytes;
  s.name = name;
  return s;
}

bool frozen(const Scenario& s) {
  return s.lora.enabled();
}

// The Megatron "g" operator after a row-parallel GEMM (forward) or "f" before a column-parallel one
// (backward): an all-reduce, or a reduce-scatter under sequence parallelism.
void reduce_tp(Steps& out, const Dims& d, const std::string& name) {
  if (d.tp > 1)
    out.push_back(
        comm(d.sp ? CommKind::ReduceScatter : CommKind::AllReduce, Group::Tp, d.tokens * d.h * d.act, name));
}

// Under sequence parallelism, the all-gather that restores the full sequence before a column-parallel GEMM.
void gather_sp(Steps& out, const Dims& d, const std::string& name) {
  if (d.tp > 1 && d.sp) out.push_back(comm(CommKind::AllGather, Group::Tp, d.tokens * d.h * d.act, name));
}

struct AttentionWork {
  KernelWork qkv, core, o;
};

AttentionWork attention_work(const Scenario& s, const Dims& d) {
  AttentionWork a;
  a.qkv = gemm(d, d.tokens, (d.h + 2 * d.kv) / d.tp, d.h);
  a.core.kind = KernelClass::Attention;
  a.core.dtype = d.gemm == Dtype::Fp32 ? Dtype::Fp32 : Dtype::Bf16;
  a.core.flops = 2 * d.b * d.s * d.s * d.h / d.tp;
  a.core.bytes = (2 * d.h + 2 * d.kv) / d.tp * d.tokens * d.act;
  // Without fusion the b·a·s² scores are written, read for the softmax, written and read again.
  if (!s.flash_attention) a.core.bytes += 4 * d.b * d.heads / d.tp * d.s * d.s * d.act;
  a.o = gemm(d, d.tokens, d.h, d.h / d.tp);
  return a;
}

struct MlpWork {
  KernelWork up, down;  // dense MLP, or shared experts
  KernelWork router, experts_up, experts_down;
  double local_experts = 0;   // experts this rank runs (experts_* are per expert)
  double dispatch_bytes = 0;  // all-to-all: bytes each rank sends
};

double up_width(const ModelConfig& m, double ffn) {
  return (m.gated_mlp ? 2.0 : 1.0) * ffn;
}

MlpWork dense_mlp(const ModelConfig& m, const Dims& d) {
  MlpWork w;
  w.up = gemm(d, d.tokens, up_width(m, m.ffn) / d.tp, d.h);
  w.down = gemm(d, d.tokens, d.h, m.ffn / d.tp);
  return w;
}

// Routed tokens spread over the ep ranks of the group; the busiest rank gets `moe_imbalance` times the
// mean, and the program is written at the busiest rank's load (all-to-alls wait for it).
MlpWork moe_mlp(const Scenario& s, const ModelConfig& m, const Dims& d) {
  MlpWork w;
  const double ep = s.plan.ep, imbalance = ep > 1 ? s.moe_imbalance : 1.0;
  const double routed = d.moe_tokens * m.top_k * imbalance;
  w.local_experts = m.experts / ep;
  const double per_expert = routed / w.local_experts;
  w.router = gemm(d, d.moe_tokens, m.experts, d.h);
  w.experts_up = gemm(d, per_expert, up_width(m, m.expert_ffn), d.h);
  w.experts_down = gemm(d, per_expert, d.h, m.expert_ffn);
  if (m.shared_experts > 0) {
    w.up = gemm(d, d.moe_tokens, up_width(m, m.expert_ffn) * m.shared_experts, d.h);
    w.down = gemm(d, d.moe_tokens, d.h, m.expert_ffn * m.shared_experts);
  }
  w.dispatch_bytes = ep > 1 ? routed * d.h * d.act : 0.0;
  return w;
}

// Norms, residual adds, the MLP activation and rotary embedding: elements read + written.
double elementwise_elements(const ModelConfig& m, const Dims& d, bool moe_layer) {
  const double unsplit = (2 * 2 + 2 * 3) * d.tokens * d.h;  // 2 norms (r+w), 2 residual adds (2r+w)
  const double ffn = moe_layer ? (m.top_k + m.shared_experts) * static_cast<double>(m.expert_ffn) : m.ffn;
  const double activation = (m.gated_mlp ? 3.0 : 2.0) * d.tokens * ffn / d.tp;
  const double rotary = m.position == Position::Rotary ? 2 * d.tokens * (d.h + d.kv) / d.tp : 0.0;
  return (d.sp ? unsplit / d.tp : unsplit) + activation + rotary;
}

// LoRA adapters of one layer: x·A then (x·A)·B per targeted matrix, as one folded GEMM.
KernelWork lora_forward(const Scenario& s, const ModelConfig& m, const Dims& d, int layer) {
  const double r = s.lora.rank;
  KernelWork w = gemm(d, d.tokens, r, d.h);
  // 2·tokens·r·(d_in + d_out) per adapter pair: tokens × adapter parameters × 2.
  double adapter_params = 0;
  const double h = d.h, kv = m.kv_dim(), ffn = m.is_moe_layer(layer) ? m.expert_ffn : m.ffn;
  const double mlp_mult = m.is_moe_layer(layer) ? m.top_k + m.shared_experts : 1.0;
  if (s.lora.targets_module("q")) adapter_params += r * 2 * h;
  if (s.lora.targets_module("k")) adapter_params += r * (h + kv);
  if (s.lora.targets_module("v")) adapter_params += r * (h + kv);
  if (s.lora.targets_module("o")) adapter_params += r * 2 * h;
  if (s.lora.targets_module("gate")) adapter_params += mlp_mult * r * (h + ffn);
  if (s.lora.targets_module("up")) adapter_params += mlp_mult * r * (h + ffn);
  if (s.lora.targets_module("down")) adapter_params += mlp_mult * r * (h + ffn);
  w.flops = 2 * d.tokens * adapter_params / d.tp;
  w.bytes = d.tokens * 4 * r * d.act + adapter_params / d.tp * bytes_per_element(d.gemm);
  return w;
}

void attention_forward(Steps& out, const Scenario& s, const Dims& d, Purpose p) {
  const AttentionWork a = attention_work(s, d);
  gather_sp(out, d, "sp-ag attn");
  out.push_back(kernel(p, "qkv", a.qkv));
  out.push_back(kernel(p, "attention", a.core));
  out.push_back(kernel(p, "o-proj", a.o));
  reduce_tp(out, d, "tp-g attn");
}

void mlp_forward(Steps& out, const Scenario& s, const ModelConfig& m, const Dims& d, bool moe, Purpose p) {
  if (!moe) {
    const MlpWork w = dense_mlp(m, d);
    gather_sp(out, d, "sp-ag mlp");
    out.push_back(kernel(p, "mlp-up", w.up));
    out.push_back(kernel(p, "mlp-down", w.down));
    reduce_tp(out, d, "tp-g mlp");
    return;
  }
  // MoE under tensor parallelism runs on the rank's s/tp tokens (sequence parallel): no tp collectives.
  const MlpWork w = moe_mlp(s, m, d);
  out.push_back(kernel(p, "router", w.router));
  if (w.dispatch_bytes > 0)
    out.push_back(comm(CommKind::AllToAll, Group::Ep, w.dispatch_bytes, "a2a dispatch"));
  out.push_back(kernel(p, "experts-up", w.experts_up, w.local_experts));
  out.push_back(kernel(p, "experts-down", w.experts_down, w.local_experts));
  if (w.dispatch_bytes > 0)
    out.push_back(comm(CommKind::AllToAll, Group::Ep, w.dispatch_bytes, "a2a combine"));
  if (m.shared_experts > 0) {
    out.push_back(kernel(p, "shared-up", w.up));
    out.push_back(kernel(p, "shared-down", w.down));
  }
}

void mlp_backward(Steps& out, const Scenario& s, const ModelConfig& m, const Dims& d, bool moe) {
  const Purpose p = Purpose::Backward;
  const bool train = !frozen(s);
  if (!moe) {
    const MlpWork w = dense_mlp(m, d);
    gather_sp(out, d, "sp-ag mlp bwd");
    out.push_back(kernel(p, "mlp-down bwd", gemm_backward(w.down, train)));
    out.push_back(kernel(p, "mlp-up bwd", gemm_backward(w.up, train)));
    reduce_tp(out, d, "tp-f mlp bwd");
    return;
  }
  const MlpWork w = moe_mlp(s, m, d);
  if (m.shared_experts > 0) {
    out.push_back(kernel(p, "shared-down bwd", gemm_backward(w.down, train)));
    out.push_back(kernel(p, "shared-up bwd", gemm_backward(w.up, train)));
  }
  if (w.dispatch_bytes > 0)
    out.push_back(comm(CommKind::AllToAll, Group::Ep, w.dispatch_bytes, "a2a combine bwd"));
  out.push_back(kernel(p, "experts-down bwd", gemm_backward(w.experts_down, train), w.local_experts));
  out.push_back(kernel(p, "experts-up bwd", gemm_backward(w.experts_up, train), w.local_experts));
  if (w.dispatch_bytes > 0)
    out.push_back(comm(CommKind::AllToAll, Group::Ep, w.dispatch_bytes, "a2a dispatch bwd"));
  out.push_back(kernel(p, "router bwd", gemm_backward(w.router, train)));
}

void attention_backward(Steps& out, const Scenario& s, const Dims& d) {
  const Purpose p = Purpose::Backward;
  const bool train = !frozen(s);
  const AttentionWork a = attention_work(s, d);
  gather_sp(out, d, "sp-ag attn bwd");
  out.push_back(kernel(p, "o-proj bwd", gemm_backward(a.o, train)));
  KernelWork core = a.core;
  core.flops *= 2.5;
  core.bytes *= 2;
  out.push_back(kernel(p, "attention bwd", core));
  out.push_back(kernel(p, "qkv bwd", gemm_backward(a.qkv, train)));
  reduce_tp(out, d, "tp-f attn bwd");
}

}  // namespace

Dims dims_of(const Scenario& s, const ModelConfig& m) {
  Dims d;
  d.b = s.micro_batch;
  d.s = s.seq_len;
  d.tokens = d.b * d.s;
  d.h = m.hidden;
  d.kv = m.kv_dim();
  d.heads = m.heads;
  d.vocab = m.vocab;
  d.tp = s.plan.tp;
  d.sp = s.plan.sequence_parallel;
  d.gemm = s.dtype;
  d.act = s.dtype == Dtype::Fp32 ? 4 : 2;  // fp8 recipes keep bf16 activations between GEMMs
  d.moe_tokens = d.sp ? d.tokens / d.tp : d.tokens;
  return d;
}

Steps layer_forward(const Scenario& s, const ModelConfig& m, int layer, Purpose purpose) {
  const Dims d = dims_of(s, m);
  const bool moe = m.is_moe_layer(layer);
  Steps out;
  attention_forward(out, s, d, purpose);
  mlp_forward(out, s, m, d, moe, purpose);
  if (s.lora.enabled()) out.push_back(kernel(purpose, "lora", lora_forward(s, m, d, layer)));
  out.push_back(kernel(purpose, "elementwise",
                       memory_bound(KernelClass::Elementwise, d, elementwise_elements(m, d, moe))));
  return out;
}

Steps layer_backward(const Scenario& s, const ModelConfig& m, int layer) {
  const Dims d = dims_of(s, m);
  const bool moe = m.is_moe_layer(layer);
  Steps out;
  const double elements = elementwise_elements(m, d, moe);
  out.push_back(
      kernel(Purpose::Backward, "elementwise bwd", memory_bound(KernelClass::Elementwise, d, 2 * elements)));
  if (s.lora.enabled())
    out.push_back(kernel(Purpose::Backward, "lora bwd", gemm_backward(lora_forward(s, m, d, layer), true)));
  mlp_backward(out, s, m, d, moe);
  attention_backward(out, s, d);
  return out;
}

Steps attention_recompute(const Scenario& s, const ModelConfig& m) {
  const Dims d = dims_of(s, m);
  return {kernel(Purpose::Recompute, "attention recompute", attention_work(s, d).core)};
}

Steps embedding_forward(const Scenario& s, const ModelConfig& m) {
  const Dims d = dims_of(s, m);
  const double tables = m.position == Position::Learned ? 2 : 1;
  Steps out{kernel(Purpose::Forward, "embedding",
                   memory_bound(KernelClass::Embedding, d, 2 * tables * d.tokens * d.h))};
  // Vocabulary-parallel embedding: each tp rank looks up its slice, then the partial rows are summed.
  reduce_tp(out, d, "tp-g embedding");
  return out;
}

Steps embedding_backward(const Scenario& s, const ModelConfig& m) {
  const Dims d = dims_of(s, m);
  Steps out;
  gather_sp(out, d, "sp-ag embedding bwd");
  out.push_back(kernel(Purpose::Backward, "embedding bwd",
                       memory_bound(KernelClass::Embedding, d, 2 * d.tokens * d.h)));
  return out;
}

Steps head_forward(const Scenario& s, const ModelConfig& m) {
  const Dims d = dims_of(s, m);
  Steps out{kernel(Purpose::Forward, "final norm",
                   memory_bound(KernelClass::Norm, d, 2 * d.tokens * d.h / (d.sp ? d.tp : 1)))};
  gather_sp(out, d, "sp-ag logits");
  out.push_back(kernel(Purpose::Forward, "logits", gemm(d, d.tokens, d.vocab / d.tp, d.h)));
  // Cross-entropy: read the logits, write fp32 softmax statistics and probabilities (4 + 4 bytes).
  KernelWork loss = memory_bound(KernelClass::Elementwise, d, d.tokens * d.vocab / d.tp);
  loss.bytes *= (d.act + 8) / d.act;
  out.push_back(kernel(Purpose::Forward, "loss", loss));
  return out;
}

Steps head_backward(const Scenario& s, const ModelConfig& m) {
  const Dims d = dims_of(s, m);
  KernelWork loss = memory_bound(KernelClass::Elementwise, d, d.tokens * d.vocab / d.tp);
  loss.bytes *= (d.act + 4) / d.act;
  Steps out{kernel(Purpose::Backward, "loss bwd", loss)};
  out.push_back(kernel(Purpose::Backward, "logits bwd",
                       gemm_backward(gemm(d, d.tokens, d.vocab / d.tp, d.h), !frozen(s))));
  reduce_tp(out, d, "tp-f logits bwd");
  out.push_back(kernel(Purpose::Backward, "final norm bwd",
                       memory_bound(KernelClass::Norm, d, 4 * d.tokens * d.h / (d.sp ? d.tp : 1))));
  return out;
}

void scale(Steps& steps, double factor) {
  for (Step& s : steps) (s.comm ? s.count : s.repeat) *= factor;
}

bool has_comm(const Steps& steps) {
  return std::any_of(steps.begin(), steps.end(), [](const Step& s) { return s.comm; });
}

Steps compact(const Steps& steps) {
  if (has_comm(steps)) return steps;
  // Kernels folded with repeat > 1 (per-expert GEMMs) keep their own op.
  std::map<std::pair<KernelClass, Purpose>, std::size_t> slot;
  Steps out;
  for (const Step& s : steps) {
    const auto key = std::make_pair(s.work.kind, s.purpose);
    const auto it = slot.find(key);
    if (s.repeat != 1 || it == slot.end()) {
      if (s.repeat == 1) slot[key] = out.size();
      out.push_back(s);
      continue;
    }
    Step& into = out[it->second];
    if (s.work.flops > into.work.flops)
      into.work.m = s.work.m, into.work.n = s.work.n, into.work.k = s.work.k;
    into.work.flops += s.work.flops;
    into.work.bytes += s.work.bytes;
    into.name = std::string(to_string(s.work.kind)) + (s.purpose == Purpose::Backward ? " bwd" : "");
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Step& a, const Step& b) { return a.work.kind < b.work.kind; });
  return out;
}

}  // namespace rigsim::workloads::detail
