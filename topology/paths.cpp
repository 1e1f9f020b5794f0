// Routes between devices, computed with Boost.Graph breadth-first search on filtered views of the
// device graph (PCIe tree + inter-socket links, or NVLink only), and their classes in NCCL's and
// nvidia-smi's vocabularies (reference nccl.md §d.1).
#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/visitors.hpp>
#include <limits>
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

/// Keeps the vertices an NVLink route may pass through: GPUs and NVSwitches.
struct NvlinkVertexFilter {
  const std::vector<Device>* devices = nullptr;
  bool operator()(std::size_t v) const {
    const auto k = (*devices)[v].kind;
    return k == DeviceKind::Gpu || k == DeviceKind::NvSwitch;
  }
};

/// BFS from `a` on graph `g`; returns the device sequence a..b, or empty when unreachable.
template <typename G>
std::pair<std::vector<DeviceId>, std::vector<LinkId>> bfs_route(const G& g, DeviceId a, DeviceId b,
                                                                std::size_t n) {
  std::vector<std::size_t> pred(n, kNone);
  std::vector<std::size_t> pred_edge(n, kNone);
  pred[a] = a;
  struct Found {};  // thrown to stop the search once `b` is reached (the Boost idiom for early exit)
  struct Recorder : boost::default_bfs_visitor {
    std::vector<std::size_t>* pred;
    std::vector<std::size_t>* pred_edge;
    std::size_t target;
    void tree_edge(typename boost::graph_traits<G>::edge_descriptor e, const G& gr) const {
      const auto t = boost::target(e, gr);
      (*pred)[t] = boost::source(e, gr);
      (*pred_edge)[t] = boost::get(boost::edge_index, gr, e);
      if (t == target) throw Found{};
    }
  } rec;
  rec.pred = &pred;
  rec.pred_edge = &pred_edge;
  rec.target = b;
  std::vector<boost::default_color_type> color(n);
  try {
    boost::breadth_first_search(g, a,
                                boost::visitor(rec).color_map(boost::make_iterator_property_map(
                                    color.begin(), boost::get(boost::vertex_index, g))));
  } catch (const Found&) {
  }
  if (pred[b] == kNone) return {};
  std::vector<DeviceId> devices{b};
  std::vector<LinkId> links;
  for (std::size_t v = b; v != a; v = pred[v]) {
    links.push_back(pred_edge[v]);
    devices.push_back(pred[v]);
  }
  std::reverse(devices.begin(), devices.end());
  std::reverse(links.begin(), links.end());
  return {devices, links};
}

BytesPerSecond bottleneck(const Topology& t, const std::vector<LinkId>& links) {
  double bw = std::numeric_limits<double>::infinity();
  for (LinkId l : links) bw = std::min(bw, t.link(l).bandwidth.value);
  return {links.empty() ? 0.0 : bw};
}

/// Classifies a PCIe / inter-socket route: SYS across sockets, PHB through a host bridge
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
  if (through_cpu) {
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

Path Topology::pcie_path(DeviceId a, DeviceId b) const {
  Path p;
  if (a == b) {
    p.devices = {a};
    p.smi = "X";
    return p;
  }
  LinkKindFilter filter{&impl_->links, &impl_->graph, false};
  boost::filtered_graph<Graph, LinkKindFilter> g(impl_->graph, filter);
  auto [devices, links] = bfs_route(g, a, b, impl_->devices.size());
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
  auto [devices, links] = bfs_route(g, a, b, impl_->devices.size());
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
  int direct = 0;
  std::vector<int> to_switch_a(impl_->devices.size(), 0), to_switch_b(impl_->devices.size(), 0);
  for (const auto& l : impl_->links) {
    if (l.kind != LinkKind::NvLink) continue;
    if ((l.up == a && l.down == b) || (l.up == b && l.down == a)) direct += l.width;
    if (device(l.down).kind == DeviceKind::NvSwitch) {
      if (l.up == a) to_switch_a[l.down] += l.width;
      if (l.up == b) to_switch_b[l.down] += l.width;
    }
  }
  int via_switch = 0;
  for (std::size_t s = 0; s < to_switch_a.size(); ++s) via_switch += std::min(to_switch_a[s], to_switch_b[s]);
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

}  // namespace rigsim::topology
