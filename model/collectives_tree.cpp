// NCCL's tree all_reduce across servers (reference nccl.md §d.4/§d.5): inside each server the GPUs
// form a chain (the ring order, cut where the ring left the server); the chain heads form two
// binary trees over the servers (the "double binary tree": the second tree is the first mirrored
// when the server count is even, shifted by one when odd, so a leaf of one is an inner node of the
// other). NCCL builds them per channel on the channel's NIC, so rigsim builds the pair on every distinct
// ring of the plan (each enters a server through its own GPU and NIC); the 2R trees carry S/2R each: a
// reduce up to the root, then a broadcast down, in pipelined chunks.
//
// Step model: chunk j goes up a hop once it has arrived from every child (and chunk j-1 has left
// on that hop); it goes down a hop once the parent has it — the root once all its children's chunk
// j have arrived. Steady model: per tree, one flow up and one down per edge of S/2R bytes each, all
// concurrent, after NCCL's tree latency base + 2((ppn-1)·intra + log2(nodes)·inter).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "model/collectives_detail.hpp"
#include "model/nccl_tuning.hpp"

namespace rigsim::model::detail {
namespace {

constexpr int kSimplerTreeFactorFirst = 21803;  // tuning.cc's 0.85 for a TREE-pattern graph: 2.18.3 on

using topology::DeviceId;

/// Parent of server `r` in a binary tree over 0..n-1 rooted at 0: clear r's lowest set bit and set
/// the next one up, or just clear it when that leaves the range (the shape NCCL's trees.cc builds).
long btree_parent(long r, long n) {
  if (r == 0) return -1;
  long bit = 1;
  while ((r & bit) == 0) bit <<= 1;
  const long up = (r ^ bit) | (bit << 1);
  return up < n ? up : (r ^ bit);
}

long dtree_parent(int tree, long r, long n) {
  if (tree == 0) return btree_parent(r, n);
  if (n % 2 == 1) {  // shifted by one
    const long p = btree_parent((r - 1 + n) % n, n);
    return p < 0 ? -1 : (p + 1) % n;
  }
  const long p = btree_parent(n - 1 - r, n);  // mirrored
  return p < 0 ? -1 : n - 1 - p;
}

/// Rank indices of each server's chain, in the order of `ring` (which visits servers one after another):
/// its head is the GPU the ring enters the server at, whose NIC the tree's edges across servers use.
std::vector<std::vector<long>> chains(const topology::Topology& topo, const CollectivePlan& p,
                                      const Ring& ring) {
  std::map<DeviceId, long> index;
  for (std::size_t i = 0; i < p.ranks.size(); ++i) index[p.ranks[i]] = static_cast<long>(i);
  std::vector<int> nodes;
  std::vector<std::vector<long>> out;
  for (DeviceId d : ring.order) {
    const int node = topo.device(d).node;
    if (nodes.empty() || nodes.back() != node) {
      nodes.push_back(node);
      out.emplace_back();
    }
    out.back().push_back(index.at(d));
  }
  return out;
}

std::vector<long> tree_parents(const std::vector<std::vector<long>>& chain, int tree, std::size_t ranks) {
  std::vector<long> parent(ranks, -1);
  const long servers = static_cast<long>(chain.size());
  for (long v = 0; v < servers; ++v) {
    const auto& c = chain[static_cast<std::size_t>(v)];
    for (std::size_t k = 1; k < c.size(); ++k) parent[static_cast<std::size_t>(c[k])] = c[k - 1];
    const long up = dtree_parent(tree, v, servers);
    if (up >= 0) parent[static_cast<std::size_t>(c.front())] = chain[static_cast<std::size_t>(up)].front();
  }
  return parent;
}

std::vector<std::size_t> depths(const std::vector<long>& parent) {
  std::vector<std::size_t> d(parent.size(), 0);
  for (std::size_t i = 0; i < parent.size(); ++i)
    for (long p = parent[i]; p >= 0; p = parent[static_cast<std::size_t>(p)]) ++d[i];
  return d;
}

std::string tag(const char* dir, int tree, std::size_t chunk) {
  return std::string("all_reduce tree") + std::to_string(tree) + " " + dir + " chunk " +
         std::to_string(chunk);
}

/// Builder of one tree's step-level transfers.
struct TreeSteps {
  const calibration::CostModel& cost;
  ConnectionCache& hops;
  CollectivePlan& plan;
  bool nvl;
  int tree;
  std::vector<long> parent;
  std::vector<std::vector<std::size_t>> children;
  std::vector<std::size_t> up_order, down_order;  // deepest first, shallowest first (roots left out)

  void build(std::size_t chunks) {
    std::vector<std::size_t> up(parent.size()), down(parent.size()), prev_up, prev_down;
    for (std::size_t j = 0; j < chunks; ++j) {
      prev_up = up;
      prev_down = down;
      for (std::size_t i : up_order) {
        std::vector<std::size_t> after;
        for (std::size_t c : children[i]) after.push_back(up[c]);
        if (j > 0) after.push_back(prev_up[i]);
        up[i] = add(i, static_cast<std::size_t>(parent[i]), j, children[i].empty(), std::move(after), "up");
      }
      for (std::size_t i : down_order) {
        const auto p = static_cast<std::size_t>(parent[i]);
        std::vector<std::size_t> after;
        if (parent[p] < 0)
          for (std::size_t c : children[p]) after.push_back(up[c]);
        else
          after.push_back(down[p]);
        if (j > 0) after.push_back(prev_down[i]);
        down[i] = add(p, i, j, false, std::move(after), "down");
      }
    }
  }

  std::size_t add(std::size_t from, std::size_t to, std::size_t chunk, bool leaf,
                  std::vector<std::size_t> after, const char* dir) {
    const Connection& h = hops.get(plan.ranks[from], plan.ranks[to]);
    Seconds lat{};
    if (chunk == 0) {
      const auto [base, rows] = tree_rows(cost, Protocol::Simple, nvl);
      lat = (h.transport == Transport::Net ? rows.inter : rows.intra) + (leaf ? base : Seconds{});
    }
    return add_transfer(plan.transfers, h, plan.chunk, lat, std::move(after), tag(dir, tree, chunk));
  }
};

void collect_hops(ConnectionCache& cache, CollectivePlan& p) {
  std::set<std::pair<DeviceId, DeviceId>> seen;
  for (const auto& parent : p.tree_parents)
    for (std::size_t i = 0; i < parent.size(); ++i) {
      if (parent[i] < 0) continue;
      const DeviceId a = p.ranks[i], b = p.ranks[static_cast<std::size_t>(parent[i])];
      for (auto [s, d] : {std::pair{a, b}, std::pair{b, a}})
        if (seen.insert({s, d}).second) p.connections.push_back(cache.get(s, d));
    }
}

}  // namespace

std::pair<Seconds, StepLatencies> tree_rows(const calibration::CostModel& cost, Protocol p,
                                            bool intra_nvlink) {
  const auto pick = [&](Seconds nvlink, Seconds pcie) { return intra_nvlink ? nvlink : pcie; };
  switch (p) {
    case Protocol::LL:
      return {cost.nccl_tree_ll_base_latency,
              {pick(cost.nccl_tree_ll_step_latency_nvlink, cost.nccl_tree_ll_step_latency_pcie),
               cost.nccl_tree_ll_step_latency_net}};
    case Protocol::LL128:
      return {cost.nccl_tree_ll128_base_latency,
              {pick(cost.nccl_tree_ll128_step_latency_nvlink, cost.nccl_tree_ll128_step_latency_pcie),
               cost.nccl_tree_ll128_step_latency_net}};
    case Protocol::Simple:
      break;
  }
  return {cost.nccl_tree_base_latency,
          {pick(cost.nccl_tree_step_latency_nvlink, cost.nccl_tree_step_latency_pcie),
           cost.nccl_tree_step_latency_net}};
}

Seconds tree_latency(const calibration::CostModel& cost, Protocol p, std::size_t ranks, std::size_t nodes,
                     bool intra_nvlink) {
  const auto [base, lat] = tree_rows(cost, p, intra_nvlink);
  const double ppn = static_cast<double>(ranks) / static_cast<double>(nodes);
  const double log2_nodes = std::floor(std::log2(static_cast<double>(nodes)));  // NCCL's log2i
  return {base.value + 2 * ((ppn - 1) * lat.intra.value + log2_nodes * lat.inter.value)};
}

TreeEstimate tree_estimate(const topology::Topology& topo, const calibration::CostModel& cost,
                           const CollectivePlan& p, std::size_t nodes, bool intra_nvlink, double bus,
                           double channels, int nccl_version) {
  // tuning.cc treeCorrectionFactor[LL, LL128, Simple][log2i(bytes >> 6)], the same 23 columns at v2.18.3,
  // v2.23.4 and v2.29.2: NCCL's scale on the tree's bandwidth by size (none from 2^29 B on, nor below 64 B).
  static constexpr double kCorrection[3][23] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  const NcclTables tables = nccl_tables_at(cost, nccl_version);
  const std::size_t row = nccl_arch_row(topo, p.ranks, nccl_version), col = node_column(nodes);
  const double units = std::floor(p.size.value / 64);
  const int log_size = units >= 1 ? static_cast<int>(std::floor(std::log2(units))) : -1;
  TreeEstimate e;
  e.bus_bw[2] = std::min(cost.nccl_tree_bw_ratio * bus, channels * tables.tree_channel_bw[row][col] * 1e9);
  e.bus_bw[0] = std::min(bus / 3.8, nccl_ll_max_bw(tables, topo, p.ranks, nodes, nccl_version));
  e.bus_bw[1] = std::min(bus * (nodes <= 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                         channels * tables.tree_ll128_channel_bw[row][col] * 1e9);
  // The simpler tree: from 2.18.3 a tree graph of NCCL's TREE pattern is counted at 0.85 (tuning.cc
  // "pattern == NCCL_TOPO_PATTERN_TREE) busBw *= .85"; 2.30: maxTreePattern). The search falls back from
  // BALANCED_TREE to TREE on Hopper and newer only (search.cc "Try a simpler tree", ccMin >= 90).
  if (nccl_version >= kSimplerTreeFactorFirst && detail::min_sm(topo, p.ranks) >= 90)
    for (double& b : e.bus_bw) b *= 0.85;
  for (Protocol proto : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    const std::size_t i = proto_index(proto);
    const double scale = log_size >= 0 && log_size < 23 ? kCorrection[i][log_size] : 1.0;
    e.latency[i] = tree_latency(cost, proto, p.ranks.size(), nodes, intra_nvlink);
    e.time[i] = {e.latency[i].value + p.size.value / (0.5 * e.bus_bw[i] * scale)};
  }
  return e;
}

/// The tree's time model as a ProtocolChoice (the plan's "time model behind it"): NCCL's estimate per
/// protocol (detail::tree_estimate) among the protocols the ring may use, and the bytes each puts on the
/// wire relative to Simple: LL at least 2 (an 8-byte flag with every 8 data bytes), LL128 at least 128/120
/// (one flag line in 16), more where NCCL's bandwidth for it is lower still.
ProtocolChoice tree_choice(const topology::Topology& topo, const calibration::CostModel& cost,
                           const CollectivePlan& p, const ProtocolChoice& ring, std::size_t nodes, bool nvl,
                           int nccl_version) {
  // On two servers tuning.cc counts each tree channel at its graph's bwIntra (more servers: bwInter, the
  // ring's), which the tree search raises above the ring's speed while the chains carry it
  // (NcclChannels::tree_gbs): the ring's bus bandwidth scaled by that.
  const double raise = nodes == 2 && p.nccl.graph_gbs > 0 ? p.nccl.tree_gbs / p.nccl.graph_gbs : 1.0;
  const double bus = ring.bus_bw[proto_index(Protocol::Simple)].value * raise;
  // NCCL decides on its release's tables; the wire bytes follow the rates the simulation moves at.
  const TreeEstimate e = tree_estimate(topo, cost, p, nodes, nvl, bus, p.nccl.graph, nccl_version);
  const TreeEstimate moved =
      tree_estimate(topo, cost, p, nodes, nvl, bus, p.nccl.graph, topology::kNcclVersion);
  ProtocolChoice c;
  std::copy(std::begin(ring.enabled), std::end(ring.enabled), std::begin(c.enabled));
  const double floor[3] = {2.0, 128.0 / 120.0, 1.0};
  double best = std::numeric_limits<double>::infinity();
  for (Protocol proto : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    const std::size_t i = proto_index(proto);
    c.latency[i] = e.latency[i];
    c.bus_bw[i] = {e.bus_bw[i]};
    c.time[i] = e.time[i];
    // LL128's block moves at its own per-channel figure (plan_tree): its wire carries only the flag line.
    c.wire_factor[i] =
        proto == Protocol::LL ? std::max(floor[i], moved.bus_bw[2] / moved.bus_bw[i]) : floor[i];
    if (c.enabled[i] && c.time[i].value < best) {
      best = c.time[i].value;
      c.chosen = proto;
    }
  }
  return c;
}

namespace {

/// The tree's flows: every edge's up and down at once (steady) or Simple's chunk pipeline (step).
void build_tree_transfers(const calibration::CostModel& cost, ConnectionCache& cache, CollectivePlan& p,
                          bool nvl, double share, double wire, std::size_t chunks, std::size_t transfers) {
  const std::size_t trees = p.tree_parents.size();
  if (p.model == PlanModel::Steady) {
    p.chunk = {share};
    for (std::size_t t = 0; t < trees; ++t)
      for (std::size_t i = 0; i < p.ranks.size(); ++i) {
        const long up = p.tree_parents[t][i];
        if (up < 0) continue;
        const DeviceId a = p.ranks[i], b = p.ranks[static_cast<std::size_t>(up)];
        for (const Connection* h : {&cache.get(a, b), &cache.get(b, a)})
          add_transfer(p.transfers, *h, Bytes{share * wire}, p.latency, {},
                       tag(h->src == a ? "up" : "down", static_cast<int>(t), 0));
      }
    return;
  }
  check_step_size(transfers, p);
  p.chunk = {share / static_cast<double>(chunks)};
  for (std::size_t t = 0; t < trees; ++t) {
    TreeSteps b{cost, cache, p, nvl, static_cast<int>(t), p.tree_parents[t], {}, {}, {}};
    b.children.resize(b.parent.size());
    for (std::size_t i = 0; i < b.parent.size(); ++i)
      if (b.parent[i] >= 0) b.children[static_cast<std::size_t>(b.parent[i])].push_back(i);
    const auto d = depths(b.parent);
    for (std::size_t i = 0; i < d.size(); ++i)
      if (b.parent[i] >= 0) b.up_order.push_back(i);
    std::stable_sort(b.up_order.begin(), b.up_order.end(), [&](auto x, auto y) { return d[x] > d[y]; });
    b.down_order.assign(b.up_order.rbegin(), b.up_order.rend());
    std::stable_sort(b.down_order.begin(), b.down_order.end(), [&](auto x, auto y) { return d[x] < d[y]; });
    b.build(chunks);
  }
}

}  // namespace

void plan_tree(const Platform& platform, ConnectionCache& cache, const CollectiveOptions& o,
               CollectivePlan& p) {
  const auto& topo = platform.topology();
  const auto& cost = platform.cost_model();
  // One pair of trees per distinct ring NCCL's channels run (each ring enters every server at its own
  // GPU, so through its own NIC): NCCL builds a tree per channel on the channel's NIC (connect.cc
  // ncclTopoPreset, the tree graph of trees.cc's double binary tree), so the data spreads over the NICs
  // as the rings' does. Tree 2r + t is ring r's chains under double binary tree t.
  p.tree_parents.clear();
  std::size_t servers = 1;
  for (const Ring& ring : p.rings) {
    const auto chain = chains(topo, p, ring);
    servers = chain.size();
    for (int t = 0; t < 2; ++t) p.tree_parents.push_back(tree_parents(chain, t, p.ranks.size()));
  }
  p.connections.clear();
  collect_hops(cache, p);
  const bool nvl = intra_is_nvlink(topo, p.connections);
  const std::size_t trees = p.tree_parents.size();
  p.channels = static_cast<int>(trees);
  p.latency = tree_latency(cost, p.protocol, p.ranks.size(), servers, nvl);
  const double share = p.size.value / static_cast<double>(trees);
  // LL and LL128 forward each line as it arrives (prims_ll.h, prims_ll128.h), so the reduce up the tree
  // and the broadcast down it overlap: every edge's two flows run at once after the latency term, with
  // the protocol's bytes on the wire (ProtocolChoice::wire_factor). Simple pipelines 512 KiB chunks.
  const bool simple = p.protocol == Protocol::Simple;
  const std::size_t chunks = simple ? pieces(share, o.chain_chunk, o.max_tree_chunks) : 1;
  const std::size_t transfers = trees * chunks * 2 * (p.ranks.size() - 1);
  p.model = simple ? resolve_model(o, p.ranks.size(), transfers) : PlanModel::Steady;
  // The flows carry the protocol's wire bytes (LL: at least 2, LL128: 128/120 per data byte).
  const double wire = simple ? 1.0 : p.protocol_choice.wire_factor[proto_index(p.protocol)];
  build_tree_transfers(cost, cache, p, nvl, share, wire, chunks, transfers);
  if (p.protocol == Protocol::LL) return;
  // A tree channel is one thread block whose warps split between the reduce up and the broadcast down
  // (all_reduce.h runTreeSplit), and it moves data at a rate of its own: NCCL's perChMaxTreeBws, its
  // measured tree bandwidth per channel by GPU generation and by one / two / four or more servers
  // (tuning.cc), times its graph's channel count is the tree's bus bandwidth, and half of that its
  // algorithm bandwidth (S up and S down). Every flow of the tree's 2r trees is held to its share of
  // that. Only the channel figure: NCCL's 0.92 x ring bandwidth is a decision on its graph's rates. LL128
  // the same with its own figure (perChMaxTreeLL128Bws); LL has none (its bound is llMaxBws, not per block).
  const auto& figure = simple ? cost.nccl_tree_channel_bw_gbs : cost.nccl_tree_ll128_channel_bw_gbs;
  const double per_channel = figure[arch_row(topo, p.ranks)][node_column(servers)];
  const double bus = p.nccl.graph * per_channel * 1e9;
  p.block_channels = p.nccl.graph;
  p.block_channel_gbs = per_channel;
  p.block_figure = simple ? "perChMaxTreeBw" : "perChMaxTreeLL128Bw";
  // The figure counts data; the flows carry wire bytes.
  if (bus > 0)
    for (Transfer& t : p.transfers) t.rate_cap = {wire * 0.5 * bus / static_cast<double>(trees)};
}

}  // namespace rigsim::model::detail
