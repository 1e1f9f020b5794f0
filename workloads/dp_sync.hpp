// Data-parallel communication of one rank: DDP's bucketed gradient all-reduce, DeepSpeed ZeRO-1/2
// bucketed reduce-scatter and parameter all-gather after the step, ZeRO-3/FSDP per-unit all-gathers
// (prefetching the next unit) and reduce-scatters, hybrid-shard replica all-reduces, and the optimizer
// step on the GPU or, offloaded, on the CPU with its copies. Internal to workloads/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/program_builder.hpp"

namespace rigsim::workloads::detail {

/// The communication groups of one rank.
struct RankGroups {
  std::vector<int> tp, dp, shard, replica, ep, expert_dp, pp;
};
RankGroups rank_groups(const ParallelPlan& p, int rank);

/// A unit of gradient synchronisation and (ZeRO-3/FSDP) of parameter gathering: the embedding, one
/// layer, or the head. Bytes are this rank's, after tensor/expert splits and before sharding.
struct Unit {
  std::string name;
  double weight_bytes = 0, expert_weight_bytes = 0;  // stored weights (NF4 for QLoRA bases)
  double grad_bytes = 0, expert_grad_bytes = 0;      // gradients of trainable parameters
  double trainable = 0, expert_trainable = 0;        // trainable parameters
  bool root = false;  // embedding/head: FSDP's root unit is not resharded after forward
};

class DpSync {
 public:
  DpSync(const Scenario& s, RankBuilder& b, RankGroups groups, std::vector<Unit> units);

  /// Names the collectives of the coming pass (e.g. "mb0-6"), so that passes stay distinct.
  void set_pass(const std::string& tag) { pass_ = tag; }
  /// Before a unit's forward kernels (ZeRO-3/FSDP: gather it, prefetch the next); `fold` micro-batches.
  void forward_begin(std::size_t unit, double fold);
  void forward_end(std::size_t unit);
  /// Before a unit's backward kernels (ZeRO-3 / FSDP full shard: gather it again, prefetch the next).
  void backward_begin(std::size_t unit, double fold);
  /// After a unit's backward kernels: its gradients are ready to be reduced.
  void grads_ready(std::size_t unit, double fold);
  /// Reduces what is left in partly filled buckets.
  void flush(double fold);
  /// The optimizer step (GPU kernel, or CPU work with copies) and ZeRO-1/2's parameter all-gather.
  void step();

 private:
  bool gathers() const { return stage_ >= 3 || fsdp_; }
  bool regathers(std::size_t unit) const;
  std::optional<std::size_t> gather(std::size_t unit, double fold, bool backward,
                                    std::optional<std::size_t> after);
  void bucket(double& filled, double bytes, double fold, bool expert, bool final);
  void reduce(const std::string& name, double bytes, double count, bool expert);
  void offload_grads(std::optional<std::size_t> reduced, double bytes);
  double optimizer_params() const;
  std::optional<std::size_t> optimizer_step();

  const Scenario& s_;
  RankBuilder& b_;
  RankGroups g_;
  std::vector<Unit> units_;
  int stage_ = 0;
  bool fsdp_ = false;
  std::map<std::pair<std::size_t, bool>, std::optional<std::size_t>> gathered_;  // (unit, backward) -> op
  std::map<std::pair<std::size_t, bool>, std::size_t> ends_;  // last kernel of a unit's pass
  double filled_ = 0, expert_filled_ = 0;                     // bytes waiting in the open buckets
  int buckets_ = 0;  // buckets emitted (names; PyTorch's small first bucket)
  std::string pass_;
};

}  // namespace rigsim::workloads::detail
