#include "workloads/dp_sync.hpp"

#include <algorithm>
#include <cmath>

#include "workloads/memory.hpp"

namespace rigsim::workloads::detail {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// PyTorch DDP closes its first bucket at 1 MiB so that communication starts early
// (torch/nn/parallel/distributed.py, dist._DEFAULT_FIRST_BUCKET_BYTES).
constexpr double kFirstBucketBytes = 1 * kMiB;

// Device-memory traffic of one optimizer update per parameter, counted from the update rules:
// read the gradient (2 B), read and write the fp32 master (8 B) and the states (AdamW m and v: 16 B;
// SGD momentum: 8 B; 8-bit AdamW: 4 B), write the working weight (2 B). fp32 training reads a 4 B
// gradient and has no separate weight copy: the same totals.
double optimizer_traffic(Optimizer o) {
  return o == Optimizer::AdamW ? 28 : o == Optimizer::Sgd ? 20 : 16;
}

// Arithmetic per parameter (AdamW: moments, bias corrections, sqrt, division, decay; Loshchilov &
// Hutter 2019, arXiv:1711.05101, Algorithm 2). Memory-bound either way; the CPU step uses it too.
double optimizer_flops(Optimizer o) {
  return o == Optimizer::AdamW ? 12 : o == Optimizer::Sgd ? 4 : 16;
}

const std::vector<int>& group_of(const Groups& groups, int rank) {
  static const std::vector<int> kNone;
  for (const auto& g : groups)
    if (std::find(g.begin(), g.end(), rank) != g.end()) return g;
  return kNone;
}

std::vector<std::size_t> deps(std::optional<std::size_t> a, std::optional<std::size_t> b = std::nullopt) {
  std::vector<std::size_t> out;
  if (a) out.push_back(*a);
  if (b && b != a) out.push_back(*b);
  return out;
}

}  // namespace

RankGroups rank_groups(const ParallelPlan& p, int rank) {
  RankGroups g;
  g.tp = group_of(tp_groups(p), rank);
  g.dp = group_of(dp_groups(p), rank);
  g.shard = group_of(shard_groups(p), rank);
  g.replica = group_of(replica_groups(p), rank);
  g.ep = group_of(ep_groups(p), rank);
  g.expert_dp = group_of(expert_dp_groups(p), rank);
  g.pp = group_of(pp_groups(p), rank);
  return g;
}

DpSync::DpSync(const Scenario& s, RankBuilder& b, RankGroups groups, std::vector<Unit> units)
    : s_(s), b_(b), g_(std::move(groups)), units_(std::move(units)) {
  stage_ = s.plan.shard_stage();
  fsdp_ = s.plan.fsdp != Fsdp::None;
}

// ZeRO-3 gathers every module again for backward; FSDP full/hybrid shard too, except its root unit
// (embedding and head), which it keeps unsharded between forward and backward; SHARD_GRAD_OP keeps
// every unit gathered until its gradients are reduced.
bool DpSync::regathers(std::size_t unit) const {
  if (!gathers() || s_.plan.fsdp == Fsdp::ShardGradOp) return false;
  return !(fsdp_ && units_[unit].root);
}

std::optional<std::size_t> DpSync::gather(std::size_t unit, double fold, bool backward,
                                          std::optional<std::size_t> after) {
  const Unit& u = units_[unit];
  const std::string name = pass_ + " " + u.name + (backward ? " bwd" : " fwd") + " gather";
  std::vector<std::size_t> before = deps(after);
  if (s_.plan.offload.params) {
    const double shard = u.weight_bytes / g_.shard.size() + u.expert_weight_bytes / g_.expert_dp.size();
    before = {b_.copy(OpKind::HostToDevice, name + " h2d", shard * fold, before)};
  }
  auto dense =
      b_.collective(Purpose::ParamGather, name, CommKind::AllGather, g_.shard, u.weight_bytes, fold, before);
  auto expert = b_.collective(Purpose::ParamGather, name + " experts", CommKind::AllGather, g_.expert_dp,
                              u.expert_weight_bytes, fold, before);
  if (expert) return expert;
  return dense ? dense : (before.empty() ? std::nullopt : std::optional(before.back()));
}

void DpSync::forward_begin(std::size_t unit, double fold) {
  if (!gathers()) return;
  auto end_of = [&](std::size_t u) {
    const auto it = ends_.find({u, false});
    return it == ends_.end() ? std::nullopt : std::optional(it->second);
  };
  if (!gathered_.count({unit, false}))
    gathered_[{unit, false}] = gather(unit, fold, false, unit >= 2 ? end_of(unit - 2) : std::nullopt);
  b_.wait_for(gathered_[{unit, false}]);
  // Prefetch the next unit; it may not start before the previous unit's kernels end (two units live).
  if (unit + 1 < units_.size() && !gathered_.count({unit + 1, false}))
    gathered_[{unit + 1, false}] = gather(unit + 1, fold, false, unit >= 1 ? end_of(unit - 1) : std::nullopt);
}

void DpSync::forward_end(std::size_t unit) {
  if (const auto last = b_.last(Stream::Compute)) ends_[{unit, false}] = *last;
}

void DpSync::backward_begin(std::size_t unit, double fold) {
  if (!gathers()) return;
  auto end_of = [&](std::size_t u) {
    const auto it = ends_.find({u, true});
    return it == ends_.end() ? std::nullopt : std::optional(it->second);
  };
  if (regathers(unit)) {
    if (!gathered_.count({unit, true})) gathered_[{unit, true}] = gather(unit, fold, true, end_of(unit + 2));
    b_.wait_for(gathered_[{unit, true}]);
  }
  // Prefetch the unit that runs next (FSDP BACKWARD_PRE), after the previous unit's kernels end.
  if (unit >= 1 && regathers(unit - 1) && !gathered_.count({unit - 1, true}))
    gathered_[{unit - 1, true}] = gather(unit - 1, fold, true, end_of(unit + 1));
}

void DpSync::grads_ready(std::size_t unit, double fold) {
  if (const auto last = b_.last(Stream::Compute)) ends_[{unit, true}] = *last;
  const Unit& u = units_[unit];
  if (!gathers()) {
    bucket(filled_, u.grad_bytes, fold, false, false);
    bucket(expert_filled_, u.expert_grad_bytes, fold, true, false);
    return;
  }
  reduce(pass_ + " " + u.name + " grads", u.grad_bytes, fold, false);
  // Hybrid shard: the reduced shard is then all-reduced across the groups holding the same shard.
  b_.collective(Purpose::GradSync, pass_ + " " + u.name + " replica", CommKind::AllReduce, g_.replica,
                u.grad_bytes / g_.shard.size(), fold, deps(b_.last(Stream::Comm)));
  reduce(pass_ + " " + u.name + " expert grads", u.expert_grad_bytes, fold, true);
}

void DpSync::reduce(const std::string& name, double bytes, double count, bool expert) {
  const std::vector<int>& group = expert ? g_.expert_dp : (gathers() ? g_.shard : g_.dp);
  const CommKind kind = stage_ == 0 ? CommKind::AllReduce : CommKind::ReduceScatter;
  const auto op =
      b_.collective(Purpose::GradSync, name, kind, group, bytes, count, deps(b_.last(Stream::Compute)));
  if (op && stage_ > 0) offload_grads(op, bytes / group.size() * count);
}

void DpSync::bucket(double& filled, double bytes, double fold, bool expert, bool final) {
  filled += bytes;
  auto emit = [&](double size, double n) {
    const std::string name = pass_ + " bucket " + std::to_string(buckets_) +
                             (n > 1 ? "+" + std::to_string(static_cast<long>(n - 1)) : "");
    reduce(name + (expert ? " experts" : ""), size, n * fold, expert);
    buckets_ += static_cast<int>(n);
  };
  if (!expert && stage_ == 0 && buckets_ == 0 && filled >= kFirstBucketBytes) {
    emit(kFirstBucketBytes, 1);
    filled -= kFirstBucketBytes;
  }
  const double cap = s_.ddp_bucket_mb * kMiB, full = std::floor(filled / cap);
  if (full > 0) {
    emit(cap, full);
    filled = std::max(0.0, filled - full * cap);
  }
  if (final && filled > 0) {
    emit(filled, 1);
    filled = 0;
  }
}

void DpSync::flush(double fold) {
  if (gathers()) return;
  bucket(filled_, 0, fold, false, true);
  bucket(expert_filled_, 0, fold, true, true);
}

void DpSync::offload_grads(std::optional<std::size_t> reduced, double bytes) {
  if (!s_.plan.offload.any()) return;
  b_.copy(OpKind::DeviceToHost, "grads d2h", bytes, deps(reduced));
}

double DpSync::optimizer_params() const {
  const double dense_div =
      stage_ >= 1 ? static_cast<double>(gathers() ? g_.shard.size() : g_.dp.size()) : 1.0;
  const double expert_div = stage_ >= 1 ? static_cast<double>(g_.expert_dp.size()) : 1.0;
  double n = 0;
  for (const Unit& u : units_) n += u.trainable / dense_div + u.expert_trainable / expert_div;
  return n;
}

std::optional<std::size_t> DpSync::optimizer_step() {
  const double params = optimizer_params();
  const double traffic = params * optimizer_traffic(s_.optimizer),
               flops = params * optimizer_flops(s_.optimizer);
  if (!s_.plan.offload.any()) {
    b_.wait_for(b_.last(Stream::Comm));
    KernelWork w;
    w.kind = KernelClass::Optimizer;
    w.dtype = Dtype::Fp32;
    w.flops = flops;
    w.bytes = traffic;
    return b_.kernel(Purpose::Optimizer, "optimizer step", w, 1);
  }
  // ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840 §4): the step runs on the CPU over the fp32 shard,
  // then the updated 16-bit parameters return to the GPU (unless parameters live on the host).
  const auto cpu = b_.cpu(Purpose::Optimizer, "cpu optimizer step", traffic, flops,
                          deps(b_.last(Stream::Copy), b_.last(Stream::Comm)));
  if (s_.plan.offload.params) return cpu;
  const double weight = bytes_per_param(s_.dtype, s_.optimizer).weight;
  return b_.copy(OpKind::HostToDevice, "params h2d", params * weight, {cpu});
}

void DpSync::step() {
  const auto done = optimizer_step();
  if (gathers() || stage_ == 0) return;
  // DeepSpeed ZeRO-1/2: every rank updated its shard; all-gather the updated 16-bit parameters.
  const double weight = bytes_per_param(s_.dtype, s_.optimizer).weight;
  double dense = 0, experts = 0;
  for (const Unit& u : units_) dense += u.trainable * weight, experts += u.expert_trainable * weight;
  b_.collective(Purpose::ParamGather, pass_ + " params after step", CommKind::AllGather, g_.dp, dense, 1,
                deps(done));
  b_.collective(Purpose::ParamGather, pass_ + " expert params after step", CommKind::AllGather, g_.expert_dp,
                experts, 1, deps(done));
}

}  // namespace rigsim::workloads::detail
