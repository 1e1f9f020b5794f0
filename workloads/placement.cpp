// Rank placement: ranks are numbered by a mixed radix over (tp, dp, pp) in the plan's order,
// innermost first. The default "tp,dp,pp" puts tensor-parallel peers on neighbouring GPUs (they
// talk most), pipeline stages outermost (Megatron-LM's default order, Narayanan et al. 2021,
// arXiv:2104.04473 §3.3: tensor parallelism inside a server, pipeline across).
#include <algorithm>
#include <map>
#include <sstream>

#include "workloads/scenario.hpp"

namespace rigsim::workloads {
namespace {

int size_of(const ParallelPlan& p, Axis a) {
  return a == Axis::Tp ? p.tp : a == Axis::Dp ? p.dp : p.pp;
}

int stride_of(const ParallelPlan& p, Axis a) {
  int stride = 1;
  for (Axis b : p.order) {
    if (b == a) return stride;
    stride *= size_of(p, b);
  }
  return stride;
}

int coord_of(const RankCoords& c, Axis a) {
  return a == Axis::Tp ? c.tp : a == Axis::Dp ? c.dp : c.pp;
}

// Index of a rank among the dp · tp ranks of its pipeline stage, tp fastest.
int stage_local(const ParallelPlan& p, const RankCoords& c) {
  return c.dp * p.tp + c.tp;
}

// The groups of a map, ordered by their lowest rank (deterministic and easy to read).
Groups sorted_groups(const std::map<std::vector<int>, std::vector<int>>& by_key) {
  Groups out;
  for (const auto& [key, ranks] : by_key) out.push_back(ranks);
  std::sort(out.begin(), out.end());
  return out;
}

// Groups of ranks that share every coordinate but `varying`, each ordered along `varying`.
Groups groups_along(const ParallelPlan& p, Axis varying) {
  std::map<std::vector<int>, std::vector<int>> by_rest;
  for (int r = 0; r < p.world(); ++r) {
    const RankCoords c = rank_coords(p, r);
    std::vector<int> key;
    for (Axis a : {Axis::Tp, Axis::Dp, Axis::Pp})
      if (a != varying) key.push_back(coord_of(c, a));
    by_rest[key].push_back(r);  // ranks ascend, and so does the varying coordinate within a group
  }
  return sorted_groups(by_rest);
}

// Groups keyed by f(rank): ranks with equal keys, in rank order.
template <typename F>
Groups groups_by(const ParallelPlan& p, F&& key_of) {
  std::map<std::vector<int>, std::vector<int>> by_key;
  for (int r = 0; r < p.world(); ++r) by_key[key_of(rank_coords(p, r))].push_back(r);
  return sorted_groups(by_key);
}

}  // namespace

RankCoords rank_coords(const ParallelPlan& p, int rank) {
  RankCoords c;
  c.tp = rank / stride_of(p, Axis::Tp) % p.tp;
  c.dp = rank / stride_of(p, Axis::Dp) % p.dp;
  c.pp = rank / stride_of(p, Axis::Pp) % p.pp;
  c.ep = stage_local(p, c) % p.ep;
  return c;
}

int rank_of(const ParallelPlan& p, int dp, int tp, int pp) {
  return tp * stride_of(p, Axis::Tp) + dp * stride_of(p, Axis::Dp) + pp * stride_of(p, Axis::Pp);
}

Groups tp_groups(const ParallelPlan& p) {
  return groups_along(p, Axis::Tp);
}
Groups dp_groups(const ParallelPlan& p) {
  return groups_along(p, Axis::Dp);
}
Groups pp_groups(const ParallelPlan& p) {
  return groups_along(p, Axis::Pp);
}

Groups ep_groups(const ParallelPlan& p) {
  return groups_by(p, [&](const RankCoords& c) { return std::vector<int>{c.pp, stage_local(p, c) / p.ep}; });
}

Groups expert_dp_groups(const ParallelPlan& p) {
  return groups_by(p, [&](const RankCoords& c) { return std::vector<int>{c.pp, c.ep}; });
}

Groups shard_groups(const ParallelPlan& p) {
  const int size = p.shard_group_size();
  return groups_by(p, [&](const RankCoords& c) { return std::vector<int>{c.pp, c.tp, c.dp / size}; });
}

Groups replica_groups(const ParallelPlan& p) {
  if (p.shard_group_size() == p.dp) return {};
  const int size = p.shard_group_size();
  return groups_by(p, [&](const RankCoords& c) { return std::vector<int>{c.pp, c.tp, c.dp % size}; });
}

std::optional<std::vector<Axis>> parse_placement(const std::string& text) {
  if (text == "tp-innermost") return std::vector<Axis>{Axis::Tp, Axis::Dp, Axis::Pp};
  const std::map<std::string, Axis> names{{"tp", Axis::Tp}, {"dp", Axis::Dp}, {"pp", Axis::Pp}};
  std::vector<Axis> order;
  std::string compact = text;
  std::erase(compact, ' ');
  std::stringstream in(compact);
  for (std::string word; std::getline(in, word, ',');) {
    const auto it = names.find(word);
    if (it == names.end() || std::find(order.begin(), order.end(), it->second) != order.end())
      return std::nullopt;
    order.push_back(it->second);
  }
  return order.size() == 3 ? std::optional(order) : std::nullopt;
}

}  // namespace rigsim::workloads
