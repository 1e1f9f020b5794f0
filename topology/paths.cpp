// Routes between devices, computed with Boost.Graph breadth-first search on filtered views of the
// device graph (PCIe tree + inter-socket links, or NVLink only), and their classes in NCCL's and
// nvidia-smi's vocabularies (reference nccl.md §d.1).
#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/visitors.hpp>
#include <boost/pending/queue.hpp>
#include <limits>
#include <map>
#include <stdexcept>

#include "topology/topology.hpp"
#include "topology/topology_impl.hpp"

namespace rigsim::topology {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

/// Keeps the edges whose link kind is (or is not) NVLink.
struct LinkKindFilter {
  const std::vector<Link>* links = nullptr;
  const Graph* graph = nullptr;
  bool nvlink = false;
  template <typename Edge>
  bool operator()(const Edge& e) const {
    const auto id = boost::get(boost::edge_index, *graph, e);
    return ((*links)[id].kind == LinkKind::NvLink) == nvlink;
  }
};

/// Keeps every vertex but the cluster's network switches: a route inside one server never leaves it,
/// and a search that reached the switch would visit every NIC of the cluster.
struct NoNetSwitch {
  const std::vector<Device>* devices = nullptr;
  bool operator()(std::size_t v) const { return (*devices)[v].kind != DeviceKind::NetSwitch; }
};

/// Keeps the vertices an NVLink route may pass through: GPUs and NVSwitches.
struct NvlinkVertexFilter {
  const std::vector<Device>* devices = nullptr;
  bool operator()(std::size_t v) const {
    const auto k = (*devices)[v].kind;
    return k == DeviceKind::Gpu || k == DeviceKind::NvSwitch;
  }
};

/// Breadth-first search of `g` from `a`, stopped once `b` is reached and at least `at_least` devices are
/// discovered: every device discovered by then has its final parent (breadth-first order is
/// deterministic), so the partial tree answers later queries for any of them; `complete` when the
/// search ran out of devices first. `reuse` is a tree nobody else holds: its arrays are reset where its
/// search touched them, so a search costs what it discovers, not the size of the graph (a cluster's
/// routes ask one short search per GPU of a graph of ~100,000 devices).
template <typename G>
std::shared_ptr<Topology::Impl::Tree> bfs_tree(const G& g, DeviceId a, DeviceId b, std::size_t n,
                                               std::size_t at_least,
                                               std::shared_ptr<Topology::Impl::Tree> reuse) {
  std::shared_ptr<Topology::Impl::Tree> tree = std::move(reuse);
  if (tree && tree->pred.size() == n) {
    for (std::size_t v : tree->touched) {
      tree->pred[v] = kNone;
      tree->pred_edge[v] = kNone;
      tree->color[v] = boost::white_color;
    }
    tree->touched.clear();
    tree->discovered = 0;
    tree->complete = false;
  } else {
    tree = std::make_shared<Topology::Impl::Tree>();
    tree->pred.assign(n, kNone);
    tree->pred_edge.assign(n, kNone);
    tree->color.assign(n, boost::white_color);
  }
  tree->pred[a] = a;
  tree->touched.push_back(a);
  struct Found {};  // thrown to stop the search (the Boost idiom for an early exit)
  struct Recorder : boost::default_bfs_visitor {
    Topology::Impl::Tree* tree;
    std::size_t target, at_least;
    mutable bool found = false;
    void tree_edge(typename boost::graph_traits<G>::edge_descriptor e, const G& gr) const {
      const auto t = boost::target(e, gr);
      tree->pred[t] = boost::source(e, gr);
      tree->pred_edge[t] = boost::get(boost::edge_index, gr, e);
      tree->touched.push_back(t);
      ++tree->discovered;
      found = found || t == target;
      if (found && tree->discovered >= at_least) throw Found{};
    }
  } rec;
  rec.tree = tree.get();
  rec.target = b;
  rec.at_least = at_least;
  // breadth_first_visit, unlike breadth_first_search, leaves the colours it did not touch alone.
  boost::queue<typename boost::graph_traits<G>::vertex_descriptor> queue;
  try {
    boost::breadth_first_visit(
        g, a, queue, rec,
        boost::make_iterator_property_map(tree->color.begin(), boost::get(boost::vertex_index, g)));
    tree->complete = true;
  } catch (const Found&) {
  }
  return tree;
}

/// A tree from `a` that reaches `b` (or is complete): a recent one from the cache, or a new search
/// (cached in its place). A search after a miss discovers at least twice as many devices as the tree it
/// replaces, so a matrix row costs O(devices) in all, while a one-off query costs what it always did.
using TreeKind = Topology::Impl::TreeKind;

template <typename G>
std::shared_ptr<const Topology::Impl::Tree> tree_from(const Topology::Impl& impl, const G& g, DeviceId a,
                                                      DeviceId b, TreeKind kind) {
  constexpr std::size_t kKept = 8;
  auto& cache = *impl.cache;
  std::size_t at_least = 0;
  std::shared_ptr<Topology::Impl::Tree> reuse;
  {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    auto& kept = cache.trees[static_cast<std::size_t>(kind)];
    for (const auto& [source, tree] : kept) {
      if (source != a) continue;
      if (tree->complete || tree->pred[b] != kNone) return tree;
      at_least = 2 * tree->discovered;
    }
    // The tree this search will push out of the cache (the one from `a`, else the oldest): its arrays
    // are recycled when no caller still holds it.
    auto old = std::find_if(kept.begin(), kept.end(), [&](const auto& entry) { return entry.first == a; });
    if (old == kept.end() && kept.size() >= kKept) old = std::prev(kept.end());
    if (old != kept.end() && old->second.use_count() == 1) {
      reuse = std::move(old->second);
      kept.erase(old);
    }
  }
  auto tree = bfs_tree(g, a, b, impl.devices.size(), at_least, std::move(reuse));
  const std::lock_guard<std::mutex> lock(cache.mutex);
  auto& kept = cache.trees[static_cast<std::size_t>(kind)];
  std::erase_if(kept, [&](const auto& entry) { return entry.first == a; });
  kept.emplace_front(a, tree);
  if (kept.size() > kKept) kept.pop_back();
  return tree;
}

/// The route a..b in a breadth-first tree from `a`: devices and links, or empty when unreachable.
std::pair<std::vector<DeviceId>, std::vector<LinkId>> route_in(const Topology::Impl::Tree& t, DeviceId a,
                                                               DeviceId b) {
  if (t.pred[b] == kNone) return {};
  std::size_t hops = 0;
  for (std::size_t v = b; v != a; v = t.pred[v]) ++hops;
  std::vector<DeviceId> devices(hops + 1);
  std::vector<LinkId> links(hops);
  devices[hops] = b;
  for (std::size_t v = b, i = hops; v != a; v = t.pred[v]) {  // filled from the end: no reversal
    --i;
    links[i] = t.pred_edge[v];
    devices[i] = t.pred[v];
  }
  return {std::move(devices), std::move(links)};
}

BytesPerSecond bottleneck(const Topology& t, const std::vector<LinkId>& links) {
  double bw = std::numeric_limits<double>::infinity();
  for (LinkId l : links) bw = std::min(bw, t.link(l).bandwidth.value);
  return {links.empty() ? 0.0 : bw};
}

/// Classifies a PCIe / inter-socket route: SYS across sockets or NUMA nodes, PHB through a host bridge
/// (nvidia-smi: NODE when through the CPU between two host bridges), PIX through one switch,
/// PXB through several (NCCL graph.h comments; nvidia-smi topo -m legend).
void classify_pcie(const Topology& t, Path& p) {
  bool through_cpu = false, through_bridge = false;
  int switches = 0;
  for (LinkId l : p.links)
    if (t.link(l).kind == LinkKind::Network) {
      p.nccl = PathClass::NET;
      p.smi = "NET";
      return;
    }
  for (LinkId l : p.links)
    if (t.link(l).kind == LinkKind::InterSocket) {
      p.nccl = PathClass::SYS;
      p.smi = "SYS";
      return;
    }
  for (std::size_t i = 1; i + 1 < p.devices.size(); ++i) {
    switch (t.device(p.devices[i]).kind) {
      case DeviceKind::Cpu:
        through_cpu = true;
        break;
      case DeviceKind::HostBridge:
        through_bridge = true;
        break;
      case DeviceKind::Switch:
      case DeviceKind::Chipset:
        ++switches;
        break;
      default:
        break;
    }
  }
  // NCCL's CPU nodes are NUMA nodes (topo.h: CPU "Actually NUMA domains"), and nvidia-smi's SYS is
  // "between NUMA nodes": with NPS2/NPS4 two quadrants of one socket are SYS, not NODE.
  if (through_cpu && t.device(p.devices.front()).numa != t.device(p.devices.back()).numa) {
    p.nccl = PathClass::SYS;
    p.smi = "SYS";
  } else if (through_cpu) {
    p.nccl = PathClass::PHB;
    p.smi = "NODE";
  } else if (through_bridge) {
    p.nccl = PathClass::PHB;
    p.smi = "PHB";
  } else if (switches >= 2) {
    p.nccl = PathClass::PXB;
    p.smi = "PXB";
  } else {
    p.nccl = PathClass::PIX;
    p.smi = "PIX";
  }
}

}  // namespace

std::pair<std::vector<DeviceId>, std::vector<LinkId>> Topology::pcie_route(DeviceId a, DeviceId b) const {
  const Device& da = impl_->devices[a];
  const Device& db = impl_->devices[b];
  LinkKindFilter filter{&impl_->links, &impl_->graph, false};
  if (da.node == db.node && da.kind != DeviceKind::NetSwitch && db.kind != DeviceKind::NetSwitch) {
    boost::filtered_graph<Graph, LinkKindFilter, NoNetSwitch> g(impl_->graph, filter,
                                                                NoNetSwitch{&impl_->devices});
    return route_in(*tree_from(*impl_, g, a, b, TreeKind::PcieInServer), a, b);
  }
  // Two NICs on one network switch (the middle of every route between servers): NIC, switch, NIC.
  if (da.kind == DeviceKind::Nic && db.kind == DeviceKind::Nic) {
    for (const auto& e : boost::make_iterator_range(boost::out_edges(a, impl_->graph))) {
      const LinkId up = boost::get(boost::edge_index, impl_->graph, e);
      const std::size_t sw = boost::target(e, impl_->graph);
      if (impl_->links[up].kind != LinkKind::Network || impl_->devices[sw].kind != DeviceKind::NetSwitch)
        continue;
      for (const auto& f : boost::make_iterator_range(boost::out_edges(b, impl_->graph))) {
        const LinkId down = boost::get(boost::edge_index, impl_->graph, f);
        if (impl_->links[down].kind == LinkKind::Network && boost::target(f, impl_->graph) == sw)
          return {{a, sw, b}, {up, down}};
      }
    }
  }
  boost::filtered_graph<Graph, LinkKindFilter> g(impl_->graph, filter);
  return route_in(*tree_from(*impl_, g, a, b, TreeKind::Pcie), a, b);
}

Path Topology::pcie_path(DeviceId a, DeviceId b) const {
  Path p;
  if (a == b) {
    p.devices = {a};
    p.smi = "X";
    return p;
  }
  const auto [devices, links] = pcie_route(a, b);
  if (devices.empty())
    throw std::logic_error("no PCIe route between " + device(a).name + " and " + device(b).name +
                           " (validation should have rejected this layout)");
  p.devices = std::move(devices);
  p.links = std::move(links);
  p.bottleneck = bottleneck(*this, p.links);
  classify_pcie(*this, p);
  return p;
}

std::optional<Path> Topology::nvlink_path(DeviceId a, DeviceId b) const {
  if (a == b || device(a).kind != DeviceKind::Gpu || device(b).kind != DeviceKind::Gpu) return std::nullopt;
  LinkKindFilter filter{&impl_->links, &impl_->graph, true};
  boost::filtered_graph<Graph, LinkKindFilter, NvlinkVertexFilter> g(impl_->graph, filter,
                                                                     NvlinkVertexFilter{&impl_->devices});
  auto [devices, links] = route_in(*tree_from(*impl_, g, a, b, TreeKind::Nvlink), a, b);
  if (devices.empty() || devices.size() > 3) return std::nullopt;
  Path p;
  p.devices = std::move(devices);
  p.links = std::move(links);
  p.bottleneck = bottleneck(*this, p.links);
  const bool via_gpu = p.devices.size() == 3 && device(p.devices[1]).kind == DeviceKind::Gpu;
  p.nccl = via_gpu ? PathClass::NVB : PathClass::NVL;
  // nvidia-smi shows only direct NVLink (or NVSwitch) connections as NV#.
  p.smi = via_gpu ? "" : "NV" + std::to_string(nvlink_count(a, b));
  return p;
}

int Topology::nvlink_count(DeviceId a, DeviceId b) const {
  auto& cache = *impl_->cache;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (!cache.nvlinks_of) {  // per device, its NVLink peers (GPUs or NVSwitches) and link counts
    cache.nvlinks_of.emplace(impl_->devices.size());
    for (const auto& l : impl_->links)
      if (l.kind == LinkKind::NvLink) {
        (*cache.nvlinks_of)[l.up].emplace_back(l.down, l.width);
        (*cache.nvlinks_of)[l.down].emplace_back(l.up, l.width);
      }
  }
  // Direct links between a and b, plus through each NVSwitch the fewer of a's and b's links to it.
  std::map<DeviceId, int> to_switch_a;
  int direct = 0;
  for (const auto& [peer, width] : (*cache.nvlinks_of)[a]) {
    if (peer == b) direct += width;
    if (device(peer).kind == DeviceKind::NvSwitch) to_switch_a[peer] += width;
  }
  std::map<DeviceId, int> to_switch_b;
  for (const auto& [peer, width] : (*cache.nvlinks_of)[b])
    if (device(peer).kind == DeviceKind::NvSwitch) to_switch_b[peer] += width;
  int via_switch = 0;
  for (const auto& [sw, width] : to_switch_a)
    if (auto it = to_switch_b.find(sw); it != to_switch_b.end()) via_switch += std::min(width, it->second);
  return direct + via_switch;
}

Path Topology::path(DeviceId a, DeviceId b) const {
  Path pcie = pcie_path(a, b);
  if (auto nv = nvlink_path(a, b)) {
    if (nv->smi.empty()) nv->smi = pcie.smi;  // NVB: nvidia-smi still shows the PCIe class
    return *nv;
  }
  return pcie;
}

std::vector<DeviceId> matrix_devices(const Topology& topo) {
  std::vector<DeviceId> out = topo.gpus();
  for (DeviceId n : topo.nics()) out.push_back(n);
  return out;
}

std::vector<std::vector<std::string>> smi_matrix(const Topology& topo) {
  const auto ids = matrix_devices(topo);
  std::vector<std::vector<std::string>> m(ids.size(), std::vector<std::string>(ids.size()));
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = 0; j < ids.size(); ++j) m[i][j] = topo.path(ids[i], ids[j]).smi;
  return m;
}

RocmTopo rocm_smi_topo(const Topology& topo) {
  const auto gpus = topo.gpus();
  const std::size_t n = gpus.size();
  RocmTopo t{std::vector<std::vector<int>>(n, std::vector<int>(n, 0)),
             std::vector<std::vector<int>>(n, std::vector<int>(n, 0)),
             std::vector<std::vector<std::string>>(n, std::vector<std::string>(n, "0")),
             {}};
  for (std::size_t i = 0; i < n; ++i) {
    t.numa.push_back(topo.device(gpus[i]).numa);
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (topo.nvlink_count(gpus[i], gpus[j]) > 0) {  // a GPU-GPU fabric link: one hop
        t.hops[i][j] = 1;
        t.weight[i][j] = 15;
        t.type[i][j] = "XGMI";
        continue;
      }
      const bool across = topo.socket_of(gpus[i]) != topo.socket_of(gpus[j]);
      t.hops[i][j] = across ? 3 : 2;
      t.weight[i][j] = 20 + (across ? kRocmInterSocketWeight : 0) + 20;
      t.type[i][j] = "PCIE";
    }
  }
  return t;
}

}  // namespace rigsim::topology
