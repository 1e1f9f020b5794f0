// Ring order from the Platform's connections and routes, in the spirit of NCCL's channel search (reference
// nccl.md §d.4): a ring's throughput is set by its slowest hop *after sharing* (two hops crossing the same
// link in the same direction halve it), so rings are scored by
//   1. throughput: min over hops of (link rate / hops using that link direction), higher is better;
//   2. fewest hops of the worst path classes (SYS, then PHB, PXB, PIX, NVB): fewest slow crossings;
//   3. total hop throughput, as a tie-break.
// Candidates: greedy nearest neighbour by (path class, bandwidth), a depth-first search for an
// all-NVLink ring, and the given order; each is improved by 2-opt moves, the best wins. All choices
// break ties by position in the input, so the result is deterministic. Further channels: rings packed
// onto NVLink capacity at a per-channel speed (channel_rings); across servers: server_rings.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "model/collectives_detail.hpp"

namespace rigsim::model {
namespace {

using topology::DeviceId;
using topology::PathClass;

constexpr int kSearchBudget = 50000;  // DFS expansions per search; rings are small (one server)
constexpr double kRelTol = 1e-9;

/// A connection and the platform links its bytes cross (Platform::route of its transport).
struct EdgeRoute {
  Connection hop;
  std::vector<Crossing> links;
};

/// Connections and routes between every ordered pair of the GPUs of one server, from the Platform.
class EdgeTable {
 public:
  EdgeTable(const Platform& platform, const std::vector<DeviceId>& gpus, const topology::P2pPolicy& policy,
            std::size_t rank_count)
      : platform_(platform), n_(gpus.size()), routes_(n_ * n_) {
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t j = 0; j < n_; ++j)
        if (i != j) routes_[i * n_ + j] = edge(gpus[i], gpus[j], policy, rank_count);
  }
  const EdgeRoute& at(std::size_t i, std::size_t j) const { return routes_[i * n_ + j]; }
  std::size_t size() const { return n_; }
  /// Bytes per second of one platform link (per direction, or in total for a shared one).
  /// The rate NCCL's search sees: its own constants for socket links (PlatformLink::nccl_bandwidth),
  /// the simulated rate for every other link.
  double rate(const Crossing& l) const { return platform_.links()[l.link].nccl_bandwidth.value; }
  /// NVLink links in a platform link that models an NVLink (its Topology link's width).
  int width(const Crossing& l) const { return platform_.topology().link(l.link).width; }
  bool nvlink_only(std::size_t i, std::size_t j) const {
    const auto& r = at(i, j);
    return r.hop.transport == Transport::P2p &&
           (r.hop.path == PathClass::NVL || r.hop.path == PathClass::NVB) && !r.links.empty() &&
           std::all_of(r.links.begin(), r.links.end(), [&](const Crossing& l) { return is_nvlink(l); });
  }

 private:
  EdgeRoute edge(DeviceId a, DeviceId b, const topology::P2pPolicy& policy, std::size_t rank_count) const {
    EdgeRoute e{platform_.connect(a, b, policy, rank_count), {}};
    e.links = platform_.route(a, b, e.hop.transport).crossings;
    return e;
  }
  bool is_nvlink(const Crossing& l) const {
    const auto& topo = platform_.topology();
    return l.link < topo.links().size() && topo.link(l.link).kind == topology::LinkKind::NvLink;
  }

  const Platform& platform_;
  std::size_t n_;
  std::vector<EdgeRoute> routes_;
};

struct Score {
  double throughput = 0;             // bytes/s of the slowest hop after sharing
  std::array<int, 8> worst_first{};  // hop counts per class, NET first, LOC last (fewer is better)
  double total = 0;                  // sum of hop rates after sharing
};

bool better(const Score& a, const Score& b) {
  if (a.throughput > b.throughput * (1 + kRelTol)) return true;
  if (b.throughput > a.throughput * (1 + kRelTol)) return false;
  if (a.worst_first != b.worst_first) return a.worst_first < b.worst_first;
  return a.total > b.total * (1 + kRelTol);
}

using Order = std::vector<std::size_t>;  // positions into the GPU list

std::map<Crossing, int> loads_of(const EdgeTable& t, const Order& o) {
  std::map<Crossing, int> load;
  for (std::size_t k = 0; k < o.size(); ++k)
    for (const auto& l : t.at(o[k], o[(k + 1) % o.size()]).links) ++load[l];
  return load;
}

/// Rate of each hop of ring `o` when its hops share links with each other.
std::vector<double> hop_rates(const EdgeTable& t, const Order& o) {
  const auto load = loads_of(t, o);
  std::vector<double> rates;
  for (std::size_t k = 0; k < o.size(); ++k) {
    double r = std::numeric_limits<double>::infinity();
    for (const auto& l : t.at(o[k], o[(k + 1) % o.size()]).links) r = std::min(r, t.rate(l) / load.at(l));
    rates.push_back(r);
  }
  return rates;
}

Score score(const EdgeTable& t, const Order& o) {
  Score s;
  const auto rates = hop_rates(t, o);
  s.throughput = *std::min_element(rates.begin(), rates.end());
  for (std::size_t k = 0; k < o.size(); ++k) {
    const auto cls = static_cast<std::size_t>(t.at(o[k], o[(k + 1) % o.size()]).hop.path);
    ++s.worst_first[s.worst_first.size() - 1 - cls];
    s.total += rates[k];
  }
  return s;
}

/// Neighbours of `from` among `candidates`, best first: lower class, then higher bandwidth.
Order by_preference(const EdgeTable& t, std::size_t from, Order candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    const Connection& x = t.at(from, a).hop;
    const Connection& y = t.at(from, b).hop;
    if (x.path != y.path) return x.path < y.path;
    return x.rate.value > y.rate.value;
  });
  return candidates;
}

Order greedy(const EdgeTable& t) {
  Order o{0};
  std::vector<bool> seen(t.size(), false);
  seen[0] = true;
  while (o.size() < t.size()) {
    Order rest;
    for (std::size_t j = 0; j < t.size(); ++j)
      if (!seen[j]) rest.push_back(j);
    const std::size_t next = by_preference(t, o.back(), rest).front();
    seen[next] = true;
    o.push_back(next);
  }
  return o;
}

/// Units of capacity left per directed link: a ring takes one unit of every link it crosses.
using Capacity = std::map<Crossing, int>;

/// Whether hop a -> b has a unit left on every link it crosses (links absent from `left` have none).
bool hop_fits(const EdgeTable& t, const Capacity& left, std::size_t a, std::size_t b) {
  return std::all_of(t.at(a, b).links.begin(), t.at(a, b).links.end(), [&](const Crossing& l) {
    auto it = left.find(l);
    return it != left.end() && it->second > 0;
  });
}

/// Takes `units` of every link hop a -> b crosses (negative: gives them back).
void take_hop(const EdgeTable& t, Capacity& left, std::size_t a, std::size_t b, int units) {
  for (const auto& l : t.at(a, b).links) left[l] -= units;
}

/// Depth-first search for a Hamiltonian ring whose hops satisfy `allowed` and fit in `left` (links
/// absent from it have none). Returns an empty order when none is found within the budget.
template <typename Allowed>
Order fitting_ring(const EdgeTable& t, Capacity left, Allowed allowed) {
  const std::size_t n = t.size();
  Order path{0};
  std::vector<bool> seen(n, false);
  seen[0] = true;
  int budget = kSearchBudget;
  auto fits = [&](std::size_t a, std::size_t b) { return allowed(a, b) && hop_fits(t, left, a, b); };
  auto take = [&](std::size_t a, std::size_t b, int units) { take_hop(t, left, a, b, units); };
  auto dfs = [&](auto&& self) -> bool {
    if (--budget < 0) return false;
    const std::size_t at = path.back();
    if (path.size() == n) return fits(at, 0);
    Order rest;
    for (std::size_t j = 0; j < n; ++j)
      if (!seen[j]) rest.push_back(j);
    for (std::size_t next : by_preference(t, at, rest)) {
      if (!fits(at, next)) continue;
      take(at, next, 1);
      seen[next] = true;
      path.push_back(next);
      if (self(self)) return true;
      path.pop_back();
      seen[next] = false;
      take(at, next, -1);
    }
    return false;
  };
  return dfs(dfs) ? path : Order{};
}

/// Every directed NVLink link any GPU pair's route uses, with `units` of capacity each.
template <typename Units>
Capacity nvlink_capacity(const EdgeTable& t, Units units) {
  Capacity c;
  for (std::size_t a = 0; a < t.size(); ++a)
    for (std::size_t b = 0; b < t.size(); ++b)
      if (a != b && t.nvlink_only(a, b))
        for (const auto& l : t.at(a, b).links) c[l] = units(l);
  return c;
}

/// 2-opt: reverse segments while that improves the score (position 0 stays first).
Order two_opt(const EdgeTable& t, Order o) {
  Score best = score(t, o);
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t i = 0; i + 2 < o.size() && !improved; ++i) {
      for (std::size_t j = i + 2; j < o.size() && !improved; ++j) {
        Order c = o;
        std::reverse(c.begin() + static_cast<long>(i) + 1, c.begin() + static_cast<long>(j) + 1);
        const Score s = score(t, c);
        if (better(s, best)) {
          o = std::move(c);
          best = s;
          improved = true;
        }
      }
    }
  }
  return o;
}

Order first_ring(const EdgeTable& t) {
  Order identity(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) identity[i] = i;
  std::vector<Order> candidates{greedy(t), identity};
  Order nv = fitting_ring(t, nvlink_capacity(t, [](const Crossing&) { return 1; }),
                          [&](std::size_t a, std::size_t b) { return t.nvlink_only(a, b); });
  if (!nv.empty()) candidates.push_back(nv);
  Order best;
  Score best_score;
  for (auto& c : candidates) {
    Order o = two_opt(t, c);
    const Score s = score(t, o);
    if (best.empty() || better(s, best_score)) {
      best = std::move(o);
      best_score = s;
    }
  }
  return best;
}

bool all_nvlink(const EdgeTable& t, const Order& o) {
  for (std::size_t k = 0; k < o.size(); ++k)
    if (!t.nvlink_only(o[k], o[(k + 1) % o.size()])) return false;
  return true;
}

/// The most rings any packing can hold: each ring leaves and enters every GPU once, taking a unit of
/// the first and of the last link of that hop's route, so no GPU's distinct first (last) links hold
/// more units than rings.
int ring_bound(const EdgeTable& t, const Capacity& cap) {
  int bound = std::numeric_limits<int>::max();
  for (std::size_t g = 0; g < t.size(); ++g) {
    std::set<Crossing> out, in;
    for (std::size_t o = 0; o < t.size(); ++o)
      if (o != g && t.nvlink_only(g, o) && t.nvlink_only(o, g)) {
        out.insert(t.at(g, o).links.front());
        in.insert(t.at(o, g).links.back());
      }
    int outs = 0, ins = 0;
    for (const Crossing& l : out) outs += cap.count(l) ? cap.at(l) : 0;
    for (const Crossing& l : in) ins += cap.count(l) ? cap.at(l) : 0;
    bound = std::min({bound, outs, ins});
  }
  return bound;
}

/// NCCL's search backtracks across channels (search.cc ncclTopoSearchRecGpu: a completed ring starts
/// the search of the next one, and the graph with the most channels at the speed is kept, within
/// NCCL_SEARCH_TIMEOUT steps). Depth-first over rings after `first`: each ring a Hamiltonian cycle of
/// NVLink-only hops fitting in what is left, rings after the first in lexicographic order (a multiset of
/// rings is tried once), stopping at `bound` rings or when the budget is spent.
class RingPacker {
 public:
  RingPacker(const EdgeTable& t, Capacity left, int bound) : t_(t), left_(std::move(left)), bound_(bound) {}
  std::vector<Order> run(const Order& first) {
    rings_ = {first};
    next_ring();
    return best_;
  }

 private:
  bool fits(std::size_t a, std::size_t b) const { return t_.nvlink_only(a, b) && hop_fits(t_, left_, a, b); }
  void take(std::size_t a, std::size_t b, int units) { take_hop(t_, left_, a, b, units); }
  /// Whether the partial ring sorts before the last ring found (rings after the first only).
  bool before_last() const {
    if (rings_.size() < 2) return false;
    const Order& last = rings_.back();
    return std::lexicographical_compare(path_.begin(), path_.end(), last.begin(),
                                        last.begin() + static_cast<long>(path_.size()));
  }
  /// Records the rings so far and searches one more; true to stop the whole search.
  bool next_ring() {
    if (rings_.size() > best_.size()) best_ = rings_;
    if (static_cast<int>(best_.size()) >= bound_) return true;
    const Order saved_path = path_;
    const std::vector<bool> saved_seen = seen_;
    path_ = {0};
    seen_.assign(t_.size(), false);
    seen_[0] = true;
    const bool stop = extend();
    path_ = saved_path;
    seen_ = saved_seen;
    return stop;
  }
  bool extend() {
    if (--budget_ < 0) return true;
    const std::size_t at = path_.back();
    if (path_.size() == t_.size()) {
      if (!fits(at, 0)) return false;
      take(at, 0, 1);
      rings_.push_back(path_);
      const bool stop = next_ring();
      rings_.pop_back();
      take(at, 0, -1);
      return stop;
    }
    Order rest;
    for (std::size_t j = 0; j < t_.size(); ++j)
      if (!seen_[j]) rest.push_back(j);
    for (std::size_t next : by_preference(t_, at, rest)) {
      if (!fits(at, next)) continue;
      path_.push_back(next);
      if (before_last()) {
        path_.pop_back();
        continue;
      }
      take(at, next, 1);
      seen_[next] = true;
      const bool stop = extend();
      seen_[next] = false;
      take(at, next, -1);
      path_.pop_back();
      if (stop) return true;
    }
    return false;
  }

  const EdgeTable& t_;
  Capacity left_;
  int bound_;
  int budget_ = kSearchBudget;
  std::vector<Order> rings_, best_;
  Order path_;
  std::vector<bool> seen_;
};

/// NCCL's channel search (nccl.md §d.4) on NVLink: for a per-channel speed s, every directed link of
/// rate R carries floor(R / s) rings. Rings are packed greedily (ring 0 first); where that leaves fewer
/// than the GPUs' links could hold (a full mesh of four GPUs: two rings each way use up their links
/// and leave the diagonals, which alone form no ring), RingPacker searches as NCCL's backtracking does.
std::vector<Order> pack_rings(const EdgeTable& t, const Order& first, double speed, int max_channels) {
  const Capacity full = nvlink_capacity(
      t, [&](const Crossing& l) { return static_cast<int>(std::floor(t.rate(l) / speed * (1 + kRelTol))); });
  Capacity left = full;
  auto allowed = [&](std::size_t a, std::size_t b) { return t.nvlink_only(a, b); };
  std::vector<Order> rings;
  Order next = first;
  while (static_cast<int>(rings.size()) < max_channels) {
    bool fits = true;
    for (std::size_t k = 0; k < next.size() && fits; ++k)
      for (const auto& l : t.at(next[k], next[(k + 1) % next.size()]).links) fits = fits && left[l]-- > 0;
    if (!fits) break;
    rings.push_back(next);
    next = fitting_ring(t, left, allowed);
    if (next.empty()) break;
  }
  const int bound = std::min(max_channels, ring_bound(t, full));
  if (rings.empty() || static_cast<int>(rings.size()) >= bound) return rings;
  Capacity after_first = full;
  for (std::size_t k = 0; k < first.size(); ++k)
    take_hop(t, after_first, first[k], first[(k + 1) % first.size()], 1);
  std::vector<Order> searched = RingPacker(t, std::move(after_first), bound).run(first);
  return searched.size() > rings.size() ? searched : rings;
}

std::vector<Order> channel_rings(const EdgeTable& t, int max_channels) {
  const Order first = first_ring(t);
  if (t.size() < 2 || !all_nvlink(t, first) || max_channels < 2) return {first};
  std::set<double> speeds;  // per-link rates of every NVLink link: rate / k for k = 1..links
  for (const auto& [l, units] : nvlink_capacity(t, [](const Crossing&) { return 1; }))
    for (int k = 1; k <= std::max(1, t.width(l)); ++k) speeds.insert(t.rate(l) / k);
  std::vector<Order> best{first};
  double best_total = score(t, first).throughput;
  for (auto it = speeds.rbegin(); it != speeds.rend(); ++it) {  // fastest speed first
    auto rings = pack_rings(t, first, *it, max_channels);
    const double total = *it * static_cast<double>(rings.size());
    if (!rings.empty() && total > best_total * (1 + 1e-6)) {
      best = std::move(rings);
      best_total = total;
    }
  }
  return best;
}

std::vector<std::vector<DeviceId>> to_devices(const std::vector<Order>& rings,
                                              const std::vector<DeviceId>& gpus) {
  std::vector<std::vector<DeviceId>> out;
  for (const auto& r : rings) {
    std::vector<DeviceId> d;
    d.reserve(r.size());
    for (std::size_t i : r) d.push_back(gpus[i]);
    out.push_back(std::move(d));
  }
  return out;
}

/// The GPUs of each server, servers in order of first appearance.
std::vector<std::vector<DeviceId>> by_node(const topology::Topology& topo,
                                           const std::vector<DeviceId>& gpus) {
  std::vector<int> nodes;
  std::vector<std::vector<DeviceId>> groups;
  for (DeviceId g : gpus) {
    const int node = topo.device(g).node;
    auto it = std::find(nodes.begin(), nodes.end(), node);
    if (it == nodes.end()) {
      nodes.push_back(node);
      groups.emplace_back();
      it = nodes.end() - 1;
    }
    groups[static_cast<std::size_t>(it - nodes.begin())].push_back(g);
  }
  return groups;
}

/// Maps a server's rings onto another server with the same local GPU names; empty if they differ.
std::vector<std::vector<DeviceId>> same_shape(const topology::Topology& topo,
                                              const std::vector<DeviceId>& model,
                                              const std::vector<DeviceId>& group,
                                              const std::vector<std::vector<DeviceId>>& rings) {
  if (model.size() != group.size()) return {};
  std::map<std::string_view, DeviceId> local;
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (topo.device(model[i]).local_name != topo.device(group[i]).local_name) return {};
    local[topo.device(group[i]).local_name] = group[i];
  }
  auto mapped = rings;
  for (auto& r : mapped)
    for (auto& d : r) d = local.at(topo.device(d).local_name);
  return mapped;
}

/// The NICs of the server `gpu` belongs to.
std::vector<DeviceId> nics_of(const topology::Topology& topo, DeviceId gpu) {
  std::vector<DeviceId> out;
  for (DeviceId n : topo.nics())
    if (topo.device(n).node == topo.device(gpu).node) out.push_back(n);
  return out;
}

/// For each of the first `count` NICs, the closest GPU (fewest PCIe links) not taken by an earlier NIC;
/// then the remaining GPUs in order, up to `channels` entries.
Order entry_points(const topology::Topology& topo, const std::vector<DeviceId>& g,
                   const std::vector<DeviceId>& nics, std::size_t channels) {
  Order starts;
  std::vector<bool> taken(g.size(), false);
  for (std::size_t k = 0; k < channels; ++k) {
    std::size_t best = g.size(), best_len = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (taken[i]) continue;
      const std::size_t len = k < nics.size() ? topo.pcie_path(nics[k], g[i]).links.size() : 0;
      if (best == g.size() || len < best_len) {
        best = i;
        best_len = len;
      }
    }
    taken[best] = true;
    starts.push_back(best);
  }
  return starts;
}

/// Rings inside one server of a cluster, one per channel. NCCL gives every NIC its own channels and
/// enters a server at a GPU close to the channel's NIC; the ring's hop into that GPU is the one the
/// network replaces. It leaves the server through the same NIC where it can (search.cc: crossNic 0 is
/// tried first, at the closest GPU-NIC path class first), so where the ring run backwards ends at a GPU
/// nearer that NIC than the ring run forwards, the channel runs it backwards (net_exit then finds that
/// GPU's path to the NIC). (build_cluster refuses servers without a NIC.)
std::vector<std::vector<DeviceId>> server_rings(const Platform& platform, const std::vector<DeviceId>& g,
                                                const topology::P2pPolicy& policy, std::size_t rank_count,
                                                int max_channels) {
  if (g.size() <= 2) return {g};
  const auto& topo = platform.topology();
  const EdgeTable t(platform, g, policy, rank_count);
  std::vector<Order> rings = channel_rings(t, max_channels);
  const auto nics = nics_of(topo, g.front());
  const std::size_t channels = std::min(
      {std::max(rings.size(), nics.size()), static_cast<std::size_t>(std::max(1, max_channels)), g.size()});
  const Order starts = entry_points(topo, g, nics, channels);
  std::vector<Order> out;
  const auto exit_class = [&](const Order& r, std::size_t c) {
    return c < nics.size() ? topo.pcie_path(g[r.back()], nics[c]).nccl : topology::PathClass::LOC;
  };
  for (std::size_t c = 0; c < channels; ++c) {
    Order r = rings[c % rings.size()];
    std::rotate(r.begin(), std::find(r.begin(), r.end(), starts[c]), r.end());
    Order back = r;
    std::reverse(back.begin() + 1, back.end());
    out.push_back(exit_class(back, c) < exit_class(r, c) ? std::move(back) : std::move(r));
  }
  return to_devices(out, g);
}

}  // namespace

std::vector<std::vector<DeviceId>> ring_channels(const Platform& platform, const std::vector<DeviceId>& gpus,
                                                 const topology::P2pPolicy& policy, int max_channels) {
  if (gpus.size() <= 2) return {gpus};
  const auto& topo = platform.topology();
  const auto groups = by_node(topo, gpus);
  if (groups.size() == 1)
    return to_devices(channel_rings(EdgeTable(platform, gpus, policy, gpus.size()), max_channels), gpus);
  // Several servers: rings inside the first, reused on identical servers, chained server after server
  // (NCCL's inter-node rings enter and leave each server once per channel).
  std::vector<std::vector<std::vector<DeviceId>>> per_node;
  for (const auto& g : groups) {
    if (!per_node.empty()) {
      auto mapped = same_shape(topo, groups.front(), g, per_node.front());
      if (!mapped.empty()) {
        per_node.push_back(std::move(mapped));
        continue;
      }
    }
    per_node.push_back(server_rings(platform, g, policy, g.size(), max_channels));
  }
  std::size_t channels = per_node.front().size();
  for (const auto& p : per_node) channels = std::min(channels, p.size());
  std::vector<std::vector<DeviceId>> out(channels);
  for (std::size_t c = 0; c < channels; ++c)
    for (const auto& p : per_node) out[c].insert(out[c].end(), p[c].begin(), p[c].end());
  return out;
}

std::vector<DeviceId> ring_order(const Platform& platform, const std::vector<DeviceId>& gpus,
                                 const topology::P2pPolicy& policy) {
  return ring_channels(platform, gpus, policy, 1).front();
}

}  // namespace rigsim::model
