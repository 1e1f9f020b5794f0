// Platform construction and routing. Bandwidths are the Topology's wire rates times the CostModel's
// efficiency for the link's class; latencies come from the CostModel and the switch catalog.
#include "model/platform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "common/input.hpp"

namespace rigsim::model {
namespace {

using topology::Device;
using topology::DeviceId;
using topology::DeviceKind;
using topology::Link;
using topology::LinkKind;

std::string fmt(const char* format, double a, double b = 0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, a, b);
  return buf;
}

/// Payload / wire of a Topology link: per link class, per NVLink generation and form (SXM board or
/// bridge), per socket-link kind (QPI / UPI / xGMI); a PCIe link that only Hopper / Blackwell GPUs use
/// (`sm90_only`, sm90_only_links) at those GPUs' figure.
double efficiency_of(const topology::Topology& t, const calibration::CostModel& c, const Link& l,
                     bool sm90_only) {
  if (l.declared_effective) return 1.0;  // a layout's measured effective rate
  switch (l.kind) {
    case LinkKind::Pcie:
    case LinkKind::Internal:
      return sm90_only ? c.pcie_efficiency_sm90 : c.pcie_efficiency;
    case LinkKind::ChipsetUplink:
      return c.chipset_efficiency;
    case LinkKind::InterSocket:
      return calibration::inter_socket_efficiency_of(c, t.device(l.up).cpu->inter_socket);
    case LinkKind::NvLink: {
      const Device& a = t.device(l.up);  // a GPU (bridge, mesh, or the GPU end of an NVSwitch link)
      // AMD GPU links are xGMI, the Infinity Fabric SerDes of AMD's socket links: the same payload share.
      if (a.gpu != nullptr && a.gpu->vendor == topology::Vendor::Amd) return c.xgmi_efficiency;
      const bool bridge = a.gpu != nullptr && a.gpu->nvlink_bridge;
      return calibration::nvlink_efficiency_of(c, l.gen, bridge);
    }
    case LinkKind::Network:
      return c.network_efficiency;
  }
  return 1.0;
}

/// Cut-through latency of a PCIe switch: the catalog's figure, else the cost model's.
Seconds switch_latency(const calibration::CostModel& c, const Device& d) {
  if (d.pcie_switch != nullptr && d.pcie_switch->latency_ns > 0)
    return nanoseconds(d.pcie_switch->latency_ns);
  return c.switch_latency;
}

/// Latency of one link. A route through a PCIe switch crosses exactly two links attached to it, so
/// each of them carries half of the switch's cut-through latency. Host bridge <-> CPU links are inside
/// the package and cost nothing extra; NIC, network switch and protocol time are in net_latency.
Seconds link_latency(const topology::Topology& t, const calibration::CostModel& c, const Link& l) {
  double s = 0;
  switch (l.kind) {
    case LinkKind::Pcie:
    case LinkKind::ChipsetUplink:
      s = c.pcie_hop_latency.value;
      break;
    case LinkKind::InterSocket:
      s = c.inter_socket_latency.value;
      break;
    case LinkKind::NvLink:
      s = c.nvlink_hop_latency.value;
      break;
    case LinkKind::Internal:
    case LinkKind::Network:
      break;
  }
  for (DeviceId end : {l.up, l.down})
    if (t.device(end).kind == DeviceKind::Switch) s += switch_latency(c, t.device(end)).value / 2;
  return {s};
}

std::string describe(const topology::Topology& t, const Link& l, double eff) {
  const std::string wire = fmt("wire %.2f GB/s x %.2f", l.bandwidth.gb_per_s(), eff);
  switch (l.kind) {
    case LinkKind::Pcie:
      return "PCIe gen" + std::to_string(l.gen) + " x" + std::to_string(l.width) + ", " + wire;
    case LinkKind::Internal:
      return "host bridge to CPU, " + wire;
    case LinkKind::ChipsetUplink:
      return "chipset uplink, " + wire;
    case LinkKind::InterSocket:
      return std::string(topology::to_string(t.device(l.up).cpu->inter_socket)) + " x" +
             std::to_string(l.width) + ", " + wire +
             (t.device(l.up).cpu->inter_socket_flow_gbs > 0 && !l.declared_effective
                  ? fmt("; one transfer at most %.1f GB/s", t.device(l.up).cpu->inter_socket_flow_gbs)
                  : std::string()) +
             fmt("; NCCL plans with %.0f GB/s", t.device(l.up).cpu->inter_socket_effective_gbs);
    case LinkKind::NvLink:
      if (t.device(l.up).gpu != nullptr && t.device(l.up).gpu->vendor == topology::Vendor::Amd)
        return "xGMI x" + std::to_string(l.width) + " (" + l.note + "), " + wire;
      return "NVLink gen" + std::to_string(l.gen) + " x" + std::to_string(l.width) +
             (t.device(l.up).gpu != nullptr && t.device(l.up).gpu->nvlink_bridge ? " bridge, " : ", ") + wire;
    case LinkKind::Network:
      return "network port, " + wire;
  }
  return wire;
}

bool is_cpu(const topology::Topology& t, DeviceId d) {
  return t.device(d).kind == DeviceKind::Cpu;
}

}  // namespace

std::vector<bool> sm90_only_links(const topology::Topology& t) {
  // Per link: bit 1 a Hopper / Blackwell GPU's path to its socket crosses it, bit 2 another GPU's does.
  std::vector<int> users(t.links().size(), 0);
  for (DeviceId g : t.gpus()) {
    const topology::GpuSpec* spec = t.device(g).gpu;
    const bool newer = spec != nullptr && spec->vendor == topology::Vendor::Nvidia && spec->sm >= 90;
    for (topology::LinkId l : t.pcie_path(g, t.socket_of(g)).links) users[l] |= newer ? 1 : 2;
  }
  std::vector<bool> only(users.size());
  for (std::size_t i = 0; i < users.size(); ++i) only[i] = users[i] == 1;
  return only;
}

Platform::Platform(topology::Topology topology, calibration::CostModel cost, NetPolicy net)
    : topo_(std::move(topology)), cost_(std::move(cost)), net_(net) {
  add_topology_links();
  add_dram_links();
  add_both_links();
}

void Platform::add_topology_links() {
  std::set<std::string> names;
  sm90_only_ = sm90_only_links(topo_);
  for (const Link& l : topo_.links()) {
    PlatformLink p;
    p.name = topo_.device(l.up).name + "<->" + topo_.device(l.down).name;
    if (!names.insert(p.name).second) p.name += "#" + std::to_string(l.id);  // parallel links
    const double eff = efficiency_of(topo_, cost_, l, sm90_only_[l.id]);
    p.bandwidth = l.bandwidth * eff;
    p.latency = link_latency(topo_, cost_, l);
    p.up = l.up;
    p.down = l.down;
    p.what = describe(topo_, l, eff);
    // What NCCL's planner assumes for a socket link (its decision constant, not a rate of the wire).
    p.nccl_bandwidth = l.kind == LinkKind::InterSocket
                           ? gb_per_s(topo_.device(l.up).cpu->inter_socket_effective_gbs)
                           : p.bandwidth;
    // A measured per-transfer rate across the sockets (Rome: one GPU pair's copy 22.1 GB/s where the
    // links carry 4 x 36); a layout's declared rate replaces the catalog's figures.
    if (l.kind == LinkKind::InterSocket && !l.declared_effective)
      p.flow_cap = gb_per_s(topo_.device(l.up).cpu->inter_socket_flow_gbs);
    links_.push_back(std::move(p));
  }
}

void Platform::add_dram_links() {
  // NPS2/NPS4 split a socket's channels evenly between its NUMA nodes (hardware.md §2.7: NPS1/2/4
  // interleave 8/4/2 of Rome's 8 channels); NPS1 interleaves them all into one node.
  for (DeviceId c : topo_.cpus()) {
    const Device& d = topo_.device(c);
    const int nodes = d.numa_nodes;
    for (int k = 0; k < nodes; ++k) {
      PlatformLink p;
      p.name = nodes == 1 ? d.name + "/dram" : d.name + "/node" + std::to_string(d.numa + k) + "/dram";
      const BytesPerSecond theoretical = d.memory_bandwidth * (1.0 / nodes);
      p.bandwidth = theoretical * cost_.memory_efficiency;
      p.duplex = false;
      p.up = p.down = c;
      p.what = (nodes == 1 ? "host memory of " + d.name
                           : "host memory of NUMA node " + std::to_string(d.numa + k) + " (" + d.name +
                                 ", 1/" + std::to_string(nodes) + " of its channels)") +
               ", " + fmt("%.2f GB/s x %.2f", theoretical.gb_per_s(), cost_.memory_efficiency) +
               ", shared by reads and writes";
      p.nccl_bandwidth = p.bandwidth;
      dram_[{d.node, d.numa + k}] = links_.size();
      links_.push_back(std::move(p));
    }
  }
}

void Platform::add_both_links() {
  // Host DMA in both directions of one PCIe link at once: read requests of the H2D side travel with
  // the D2H data, and each direction's ACK / flow-control DLLPs ride on the other, so the two together
  // reach pcie_duplex_efficiency x 2 x wire (NVIDIA/nvbandwidth#53; calibration/cost_model_defaults.cpp).
  both_.assign(topo_.links().size(), std::nullopt);
  for (const Link& l : topo_.links()) {
    if (l.kind != LinkKind::Pcie && l.kind != LinkKind::ChipsetUplink) continue;
    PlatformLink p;
    p.name = links_[l.id].name + "/both";
    p.bandwidth = l.bandwidth * (2 * cost_.pcie_duplex_efficiency);
    p.duplex = false;
    p.up = l.up;
    p.down = l.down;
    p.what = "both directions of " + links_[l.id].name + " carrying host DMA, " +
             fmt("2 x wire %.2f GB/s x %.2f", l.bandwidth.gb_per_s(), cost_.pcie_duplex_efficiency);
    p.nccl_bandwidth = p.bandwidth;
    both_[l.id] = links_.size();
    links_.push_back(std::move(p));
  }
}

std::optional<std::size_t> Platform::both_of(topology::LinkId link) const {
  return link < both_.size() ? both_[link] : std::nullopt;
}

void Platform::add_both_crossings(Route& r) const {
  std::vector<Crossing> crossings;
  for (const Crossing& h : r.crossings) {
    crossings.push_back(h);
    if (h.link < both_.size() && both_[h.link]) crossings.push_back({*both_[h.link], true});
  }
  r.crossings = std::move(crossings);
}

std::size_t Platform::dram_of(DeviceId socket) const {
  if (socket >= topo_.devices().size() || topo_.device(socket).kind != DeviceKind::Cpu)
    throw std::invalid_argument(topo_.device(socket).name + " is not a CPU socket");
  return dram_.at({topo_.device(socket).node, topo_.device(socket).numa});
}

std::size_t Platform::dram_for(DeviceId socket, DeviceId device) const {
  const Device& s = topo_.device(socket);
  const Device& d = topo_.device(device);
  if (d.node == s.node && d.socket == s.socket && d.numa >= s.numa && d.numa < s.numa + s.numa_nodes)
    return dram_.at({d.node, d.numa});
  return dram_of(socket);
}

void Platform::append_path(Route& r, const topology::Path& p) const {
  for (std::size_t i = 0; i < p.links.size(); ++i)
    r.crossings.push_back({p.links[i], topo_.link(p.links[i]).up == p.devices[i]});
}

namespace {

// PCIe payload efficiencies (Intel AN 456, hardware.md §2.1): each TLP carries 5 dwords of overhead, so
// a TLP of payload P moves P / (P + 20) of its wire bytes. rigsim's PCIe rates (pcie_efficiency) were
// measured with copy-engine copies, whose TLPs carry the 256-byte maximum payload.
constexpr double kTlpOverhead = 20, kMaxPayload = 256;
/// SM-issued traffic (NCCL's kernels) moves 128-byte payloads ("SMs are limited to 128B payload size,
/// when Copy Engines can use 256B", NCCL maintainer, NVIDIA/nccl-tests#149).
constexpr double kSmPayload = 128;
/// Intel root complexes forward GPU peer traffic as 64-byte TLPs (NCCL src/graph/topo.h: "Intel CPU
/// convert GPU P2P traffic into 64B PCI TLPs, so GPU to GPU traffic consumes more PCI bandwidth").
constexpr double kIntelP2pPayload = 64;

/// Link bytes per payload byte for TLPs of `payload` bytes, relative to the rates' 256-byte TLPs.
double tlp_cost(double payload) {
  return (kMaxPayload / (kMaxPayload + kTlpOverhead)) / (payload / (payload + kTlpOverhead));
}

/// Whether a PCIe path turns in an Intel root complex (a host bridge's root ports, or the CPU between
/// two host bridges).
bool through_intel_root_complex(const topology::Topology& topo, const topology::Path& path) {
  for (DeviceId d : path.devices) {
    const DeviceKind k = topo.device(d).kind;
    if (k != DeviceKind::Cpu && k != DeviceKind::HostBridge) continue;
    const Device& cpu = topo.device(k == DeviceKind::Cpu ? d : topo.socket_of(d));
    if (cpu.cpu != nullptr && cpu.cpu->vendor == topology::Vendor::Intel) return true;
  }
  return false;
}

bool over_nvlink(const topology::Topology& topo, const topology::Path& path) {
  for (topology::LinkId l : path.links)
    if (topo.link(l).kind == topology::LinkKind::NvLink) return true;
  return false;
}

/// Link bytes per payload byte of NCCL's P2P traffic (SM-issued) on a route: over NVLink 1 (its rates
/// are NCCL's already); through an Intel root complex 64-byte TLPs, tlp_cost(64) = 1.217 (NCCL plans
/// 6/5); any other PCIe route 128-byte TLPs, tlp_cost(128) = 1.072.
double p2p_wire_per_byte(const topology::Topology& topo, const topology::Path& path) {
  if (over_nvlink(topo, path)) return 1.0;
  return tlp_cost(through_intel_root_complex(topo, path) ? kIntelP2pPayload : kSmPayload);
}

}  // namespace

double Platform::copy_engine_share(DeviceId src, DeviceId dst) const {
  const topology::Path path = topo_.path(src, dst);
  if (!over_nvlink(topo_, path)) {
    // Copy engines move 256-byte TLPs (the rates' own), or the Intel root complex's 64-byte ones.
    const double ce = through_intel_root_complex(topo_, path) ? tlp_cost(kIntelP2pPayload) : 1.0;
    return ce / p2p_wire_per_byte(topo_, path);
  }
  // NVLink rates are the SMs' (wire x eta with 128-byte payloads); copy engines move 256-byte payloads
  // with the same per-packet overhead o = 128 (1/eta - 1): eta_ce = 256 / (256 + o), so a CE byte costs
  // eta / eta_ce = (1 + eta) / 2 of a link byte. AMD links and declared measured rates: 1.
  Route r;  // the P2P route's crossings and bottleneck, from the path already searched
  append_path(r, path);
  finish(r);
  double eta = 0;
  for (const Crossing& c : r.crossings) {
    if (c.link >= topo_.links().size()) return 1.0;
    const topology::Link& l = topo_.links()[c.link];
    if (l.kind != topology::LinkKind::NvLink || l.declared_effective) return 1.0;
    const auto* gpu = topo_.device(l.up).gpu;
    if (gpu != nullptr && gpu->vendor == topology::Vendor::Amd) return 1.0;
    if (eta == 0 || std::abs(links_[c.link].bandwidth.value - r.bottleneck.value) < 1e-9 * r.bottleneck.value)
      eta = links_[c.link].bandwidth.value / l.bandwidth.value;
  }
  return eta > 0 && eta < 1 ? (1 + eta) / 2 : 1.0;
}

double Platform::sm_host_store_share() {
  return tlp_cost(kSmPayload);
}

Route Platform::staged_route(DeviceId src, DeviceId dst) const {
  if (topo_.device(src).node != topo_.device(dst).node)
    throw std::invalid_argument("SHM staging between " + topo_.device(src).name + " and " +
                                topo_.device(dst).name + " is impossible: they are in different servers");
  // DESIGN rule 4: staged through pinned host memory, two legs that pipeline. NCCL's SHM transport puts
  // the buffer on the receiver's side (NCCL_SHM_LOCALITY default 2 since 2.13, src/transport/shm.cc:
  // the receiving rank creates it, near its GPU), so the sender writes across the sockets and the
  // receiver reads locally.
  Route r;
  r.transport = Transport::Shm;
  r.setup = cost_.shm_latency;
  append_through_host(r, src, dst, dst);
  add_both_crossings(r);
  // NCCL's kernels write and read the pinned buffer: 128-byte TLPs on the PCIe links (the factor is
  // charged on every link of the route, host memory included).
  r.wire_per_byte = tlp_cost(kSmPayload);
  return r;
}

Route Platform::host_copy_route(DeviceId src, DeviceId dst, std::optional<DeviceId> near) const {
  if (!is_cpu(topo_, src) && !is_cpu(topo_, dst))
    throw std::invalid_argument("a host copy needs a CPU socket at one end, got " + topo_.device(src).name +
                                " -> " + topo_.device(dst).name);
  Route r;
  r.transport = Transport::HostCopy;
  r.setup = cost_.host_copy_latency;
  if (is_cpu(topo_, src)) r.crossings.push_back({dram_for(src, near.value_or(dst)), true});
  append_path(r, topo_.pcie_path(src, dst));
  if (is_cpu(topo_, dst)) r.crossings.push_back({dram_for(dst, near.value_or(src)), true});
  add_both_crossings(r);
  return r;
}

void Platform::append_through_host(Route& r, DeviceId from, DeviceId to, DeviceId near) const {
  const DeviceId socket = topo_.socket_of(near);
  append_path(r, topo_.pcie_path(from, socket));
  r.crossings.push_back({dram_for(socket, near), true});  // written by the first leg
  r.crossings.push_back({dram_for(socket, near), true});  // read by the second
  append_path(r, topo_.pcie_path(socket, to));
}

/// One end of a network transfer: `gpu` <-> `nic` over PCIe when NCCL uses GPUDirect RDMA, else
/// through pinned host memory of the GPU's NUMA node (written by one side, read by the other, so the
/// memory is crossed twice). Appends in the transfer's direction; returns whether it was staged.
bool Platform::net_leg(Route& r, DeviceId gpu, DeviceId nic, bool send) const {
  if (uses_gdr(topo_, gpu, nic, send, net_)) {
    append_path(r, send ? topo_.pcie_path(gpu, nic) : topo_.pcie_path(nic, gpu));
    return false;
  }
  if (send)
    append_through_host(r, gpu, nic, gpu);
  else
    append_through_host(r, nic, gpu, gpu);
  return true;
}

Route Platform::net_route(DeviceId src, DeviceId dst) const {
  Route r;
  r.setup = cost_.net_latency;
  const bool same = topo_.device(src).node == topo_.device(dst).node;
  const auto exit = net_exit(topo_, src, dst, net_);
  const auto a = exit ? std::optional<DeviceId>(exit->nic) : std::nullopt;
  const auto b = same ? a : nearest_nic(topo_, dst);
  if (!a || !b) {
    if (same)
      throw std::invalid_argument("NCCL's network transport between " + topo_.device(src).name + " and " +
                                  topo_.device(dst).name + " needs a NIC, and their server has none");
    append_path(r, topo_.pcie_path(src, dst));
    return r;
  }
  const auto is_gpu = [&](DeviceId d) { return topo_.device(d).kind == DeviceKind::Gpu; };
  bool staged = false;
  if (exit->relay) {
    // PXN: over NVLink to the GPU next to the NIC, which the NIC reads from (net_exit).
    append_path(r, topo_.path(src, *exit->relay));
    staged = net_leg(r, *exit->relay, *a, true);
  } else if (src != *a) {
    if (is_gpu(src))
      staged = net_leg(r, src, *a, true) || staged;
    else
      append_path(r, topo_.pcie_path(src, *a));
  }
  if (*a != *b) append_path(r, topo_.pcie_path(*a, *b));  // the network
  if (dst != *b) {
    if (is_gpu(dst))
      staged = net_leg(r, dst, *b, false) || staged;
    else
      append_path(r, topo_.pcie_path(*b, dst));
  }
  if (staged) add_both_crossings(r);  // host DMA, as SHM
  return r;
}

Route Platform::route(DeviceId src, DeviceId dst, Transport transport,
                      std::optional<DeviceId> host_memory_near) const {
  Route r;
  switch (transport) {
    case Transport::Auto:
      throw std::invalid_argument("route() needs a resolved transport, not Auto");
    case Transport::P2p:
      if (topo_.device(src).node != topo_.device(dst).node)
        throw std::invalid_argument("P2P between " + topo_.device(src).name + " and " +
                                    topo_.device(dst).name +
                                    " is impossible: they are in different servers (use the network)");
      if (src == dst) break;  // a device to itself: nothing moves
      r.setup = cost_.p2p_latency;
      append_path(r, topo_.path(src, dst));
      r.wire_per_byte = p2p_wire_per_byte(topo_, topo_.path(src, dst));
      break;
    case Transport::Shm:
      r = staged_route(src, dst);
      break;
    case Transport::HostCopy:
      r = host_copy_route(src, dst, host_memory_near);
      break;
    case Transport::Net:
      if (src == dst) break;
      r = net_route(src, dst);
      break;
  }
  r.transport = transport;
  finish(r);
  return r;
}

void Platform::finish(Route& r) const {
  r.latency = r.setup;
  for (const Crossing& h : r.crossings) {
    r.latency = r.latency + links_[h.link].latency;
    // The measured per-transfer limits are of peer-to-peer traffic (GPU writes into a GPU across the
    // sockets); host DMA to the other socket's memory has no such measurement and keeps the links' rate.
    const double cap = r.transport == Transport::P2p ? links_[h.link].flow_cap.value : 0.0;
    if (cap > 0 && (r.flow_cap.value == 0 || cap < r.flow_cap.value)) r.flow_cap = {cap};
  }
  const auto limit = route_limit(r);
  r.bottleneck = {limit ? limit->rate.value / r.wire_per_byte : 0.0};
}

std::string Platform::crossing_name(const Crossing& hop) const {
  const PlatformLink& l = links_.at(hop.link);
  if (!l.duplex) return l.name;
  const auto& from = topo_.device(hop.downstream ? l.up : l.down).name;
  const auto& to = topo_.device(hop.downstream ? l.down : l.up).name;
  return from + "->" + to;
}

std::optional<RouteLimit> Platform::route_limit(const Route& r) const {
  // A duplex link gives each direction its own bandwidth (a staged route through a switch uplink goes
  // up and down it without sharing); a shared link is charged once per crossing.
  std::map<Crossing, int> crossed;
  for (const Crossing& h : r.crossings) ++crossed[{h.link, links_[h.link].duplex && h.downstream}];
  std::optional<RouteLimit> best;
  for (const auto& [hop, times] : crossed) {
    const PlatformLink& l = links_[hop.link];
    const double share = l.bandwidth.value / times;
    const bool capped =
        r.flow_cap.value > 0 && l.flow_cap.value == r.flow_cap.value && r.flow_cap.value < share;
    const double rate = capped ? r.flow_cap.value : share;
    if (!best || rate < best->rate.value)
      best = RouteLimit{hop.link, capped, crossing_name(hop), BytesPerSecond{rate}};
  }
  return best;
}

Transport Platform::resolve_transport(DeviceId src, DeviceId dst, Transport requested,
                                      const topology::P2pPolicy& policy, std::size_t gpu_count) const {
  if (requested != Transport::Auto) return requested;
  if (is_cpu(topo_, src) || is_cpu(topo_, dst)) return Transport::HostCopy;
  if (topo_.device(src).node != topo_.device(dst).node) return Transport::Net;
  const bool gpus = topo_.device(src).kind == DeviceKind::Gpu && topo_.device(dst).kind == DeviceKind::Gpu;
  if (src == dst || !gpus) return Transport::P2p;
  if (topology::decide_p2p(topo_, src, dst, policy, gpu_count).allowed) return Transport::P2p;
  if (!policy.shm_disable) return Transport::Shm;
  require_loopback_nic(src, dst);
  return Transport::Net;
}

void Platform::require_loopback_nic(DeviceId src, DeviceId dst) const {
  if (!nearest_nic(topo_, src))
    throw InputError(
        "", "--nccl-env NCCL_SHM_DISABLE",
        topo_.device(src).name + " and " + topo_.device(dst).name +
            " cannot use P2P, and without SHM NCCL needs its network transport, but the server has "
            "no NIC (NCCL's socket transport over the loopback interface is not modelled)");
}

Connection Platform::connect(DeviceId src, DeviceId dst, const topology::P2pPolicy& policy,
                             std::size_t rank_count) const {
  Connection c;
  c.src = src;
  c.dst = dst;
  if (topo_.device(src).node != topo_.device(dst).node) {
    c.transport = Transport::Net;
    c.path = topology::PathClass::NET;
    c.reason = "different servers: NCCL's network transport";
  } else {
    const topology::P2pDecision d = topology::decide_p2p(topo_, src, dst, policy, rank_count);
    c.reason = d.reason;
    c.transport = d.allowed ? Transport::P2p : Transport::Shm;
    // SHM: NCCL rewrites the path src -> the CPU next to dst -> dst and classes it the worse of the two
    // parts (paths.cc, getLocalCpu + addInterStep): PHB when both GPUs hang off one CPU node, else SYS.
    // NCCL's CPU nodes are NUMA nodes, so two quadrants of an NPS4 socket are SYS apart.
    const auto& a = topo_.device(src);
    const auto& b = topo_.device(dst);
    const bool same_cpu_node = a.socket == b.socket && a.numa == b.numa;
    c.path = d.allowed ? d.path : same_cpu_node ? topology::PathClass::PHB : topology::PathClass::SYS;
    if (!d.allowed && policy.shm_disable) {
      // NCCL_SHM_DISABLE: no SHM transport, so NCCL's next one, the network, loops back through a NIC.
      require_loopback_nic(src, dst);
      c.transport = Transport::Net;
      c.path = topology::PathClass::NET;
      const std::string net =
          "SHM is disabled (NCCL_SHM_DISABLE=1), so NCCL uses its network transport, looped "
          "back through " +
          topo_.device(*nearest_nic(topo_, src)).name;
      const std::string shm = "NCCL stages through host memory (SHM)";
      const auto at = c.reason.find(shm);
      c.reason = at == std::string::npos ? c.reason + "; " + net : c.reason.replace(at, shm.size(), net);
    }
  }
  const Route r = route(src, dst, c.transport);
  c.setup = r.setup;
  c.latency = r.latency;
  c.rate = r.bottleneck;
  return c;
}

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::Auto:
      return "Auto";
    case Transport::P2p:
      return "P2P";
    case Transport::Shm:
      return "SHM";
    case Transport::Net:
      return "NET";
    case Transport::HostCopy:
      return "HostCopy";
  }
  return "?";
}

}  // namespace rigsim::model
