// How two ranks of a collective talk (reference nccl.md §d.3): P2P over NVLink or PCIe when NCCL's
// rule allows it, else the SHM transport through pinned host memory of the sender's socket, and
// the network between servers. Plus the per-step latency rule of nccl.md §d.5.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/collectives_detail.hpp"
#include "sim/platform.hpp"

namespace rigsim::sim::detail {
namespace {

using topology::DeviceId;
using topology::PathClass;

void append_directed(const topology::Topology& topo, const topology::Path& p,
                     std::vector<DirectedLink>& out) {
  for (std::size_t i = 0; i < p.links.size(); ++i)
    out.push_back({p.links[i], topo.link(p.links[i]).up != p.devices[i]});
}

double bottleneck_of(const topology::Topology& topo, const std::vector<DirectedLink>& links) {
  double bw = std::numeric_limits<double>::infinity();
  for (const auto& l : links) bw = std::min(bw, topo.link(l.link).bandwidth.value);
  return links.empty() ? 0.0 : bw;
}

/// SHM: up from the sender to its socket's memory, then down to the receiver (nccl.md §d.3 item 5:
/// the path is rewritten GPU -> local CPU -> GPU and classed PHB, or SYS across sockets).
void shm_route(const topology::Topology& topo, DeviceId src, DeviceId dst, ConnectionRoute& r) {
  const DeviceId cpu = topo.socket_of(src);
  append_directed(topo, topo.pcie_path(src, cpu), r.links);
  append_directed(topo, topo.pcie_path(cpu, dst), r.links);
  r.hop.transport = Transport::Shm;
  r.hop.path = topo.socket_of(dst) == cpu ? PathClass::PHB : PathClass::SYS;
}

}  // namespace

int node_of(const topology::Topology& topo, DeviceId d) {
  return topo.device(d).node;
}

std::string_view local_name(const topology::Topology& topo, DeviceId d) {
  // build_cluster names devices "n<k>/<id>".
  std::string_view name = topo.device(d).name;
  const auto slash = name.find('/');
  if (slash == std::string_view::npos || slash < 2 || name[0] != 'n') return name;
  const bool digits = std::all_of(name.begin() + 1, name.begin() + static_cast<long>(slash),
                                  [](char c) { return c >= '0' && c <= '9'; });
  return digits ? name.substr(slash + 1) : name;
}

ConnectionRoute route_connection(const topology::Topology& topo, DeviceId src, DeviceId dst,
                                 const topology::P2pPolicy& policy, std::size_t rank_count) {
  ConnectionRoute r;
  r.hop.src = src;
  r.hop.dst = dst;
  if (node_of(topo, src) != node_of(topo, dst)) {
    for (const topology::Path& p : net_paths(topo, src, dst)) append_directed(topo, p, r.links);
    r.hop.transport = Transport::Net;
    r.hop.path = PathClass::NET;
    r.hop.reason = "different servers: NCCL's network transport";
  } else {
    const topology::P2pDecision d = topology::decide_p2p(topo, src, dst, policy, rank_count);
    r.hop.reason = d.reason;
    if (d.allowed) {
      append_directed(topo, topo.path(src, dst), r.links);
      r.hop.transport = Transport::P2p;
      r.hop.path = d.path;
    } else {
      shm_route(topo, src, dst, r);
    }
  }
  r.hop.bottleneck = {bottleneck_of(topo, r.links)};
  return r;
}

const Connection& ConnectionCache::get(DeviceId src, DeviceId dst) {
  if (auto it = by_pair_.find({src, dst}); it != by_pair_.end()) return it->second;
  const int distance = node_of(topo_, src) == node_of(topo_, dst) ? 0 : 1;
  auto key =
      std::make_tuple(std::string(local_name(topo_, src)), std::string(local_name(topo_, dst)), distance);
  auto shape = by_shape_.find(key);
  if (shape == by_shape_.end())
    shape =
        by_shape_.emplace(std::move(key), route_connection(topo_, src, dst, policy_, rank_count_).hop).first;
  Connection hop = shape->second;
  hop.src = src;
  hop.dst = dst;
  return by_pair_.emplace(std::make_pair(src, dst), std::move(hop)).first->second;
}

Seconds step_latency(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  if (hop.transport == Transport::Net) return cost.nccl_step_latency_net;
  return intra_nvlink ? cost.nccl_step_latency_nvlink : cost.nccl_step_latency_pcie;
}

Seconds transport_setup(const calibration::CostModel& cost, const Connection& hop) {
  switch (hop.transport) {
    case Transport::Shm:
      return cost.shm_latency;
    case Transport::Net:
      return cost.net_latency;
    default:
      return cost.p2p_latency;
  }
}

Seconds effective_step(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  return std::max(step_latency(cost, hop, intra_nvlink), transport_setup(cost, hop));
}

Seconds step_delay(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  return {effective_step(cost, hop, intra_nvlink).value - transport_setup(cost, hop).value};
}

Seconds steady_delay(const calibration::CostModel& cost, const CollectivePlan& plan, const Connection& hop) {
  if (plan.protocol != Protocol::Simple && plan.algorithm != Algorithm::Tree) return plan.latency;
  return {std::max(0.0, plan.latency.value - transport_setup(cost, hop).value)};
}

Seconds protocol_base(const calibration::CostModel& cost, Protocol p) {
  switch (p) {
    case Protocol::LL:
      return cost.nccl_ll_base_latency;
    case Protocol::LL128:
      return cost.nccl_ll128_base_latency;
    case Protocol::Simple:
      break;
  }
  return cost.nccl_base_latency;
}

namespace {

StepLatencies protocol_rows(const calibration::CostModel& cost, Protocol p, bool intra_nvlink) {
  if (p == Protocol::LL)
    return {intra_nvlink ? cost.nccl_ll_step_latency_nvlink : cost.nccl_ll_step_latency_pcie,
            cost.nccl_ll_step_latency_net};
  return {intra_nvlink ? cost.nccl_ll128_step_latency_nvlink : cost.nccl_ll128_step_latency_pcie,
          cost.nccl_ll128_step_latency_net};
}

}  // namespace

Seconds protocol_step(const calibration::CostModel& cost, Protocol p, const Connection& hop, bool intra_nvlink) {
  if (p == Protocol::Simple) return effective_step(cost, hop, intra_nvlink);
  const StepLatencies rows = protocol_rows(cost, p, intra_nvlink);
  return hop.transport == Transport::Net ? rows.inter : rows.intra;
}

Seconds protocol_delay(const calibration::CostModel& cost, Protocol p, const Connection& hop,
                       bool intra_nvlink) {
  return p == Protocol::Simple ? step_delay(cost, hop, intra_nvlink) : protocol_step(cost, p, hop, intra_nvlink);
}

StepLatencies protocol_step_latencies(const calibration::CostModel& cost, Protocol p,
                                      const std::vector<Connection>& hops, bool intra_nvlink) {
  return p == Protocol::Simple ? step_latencies(cost, hops, intra_nvlink) : protocol_rows(cost, p, intra_nvlink);
}

StepLatencies step_latencies(const calibration::CostModel& cost, const std::vector<Connection>& hops,
                             bool intra_nvlink) {
  StepLatencies s{intra_nvlink ? cost.nccl_step_latency_nvlink : cost.nccl_step_latency_pcie,
                  cost.nccl_step_latency_net};
  for (const Connection& h : hops) {
    Seconds& kind = h.transport == Transport::Net ? s.inter : s.intra;
    kind = std::max(kind, effective_step(cost, h, intra_nvlink));
  }
  return s;
}

bool intra_is_nvlink(const topology::Topology&, const std::vector<Connection>& hops) {
  bool any = false;
  for (const Connection& h : hops) {
    if (h.transport == Transport::Net) continue;
    if (h.transport != Transport::P2p || h.path != PathClass::NVL) return false;
    any = true;
  }
  return any;
}

StageEstimate estimate_stage(const calibration::CostModel& cost, const std::vector<Connection>& connections) {
  auto factor = [](double f) { return f > 0 ? f : 1.0; };
  StageEstimate e{0, std::numeric_limits<double>::infinity()};
  for (const Connection& c : connections) {
    const double setup = transport_setup(cost, c).value;
    double eff = factor(cost.pcie_efficiency);
    if (c.transport == Transport::Net) {
      eff = factor(cost.network_efficiency);
    } else if (c.path == PathClass::NVL || c.path == PathClass::NVB) {
      eff = factor(cost.nvlink_efficiency);
    }
    e.setup = std::max(e.setup, setup);
    e.rate = std::min(e.rate, c.bottleneck.value * eff);
  }
  return e;
}

namespace {

/// `limit` pieces of at least `chunk` bytes each (at least one piece), at most `max_pieces`.
std::size_t bounded(double bytes, double limit, Bytes chunk, int max_pieces) {
  const double by_chunk = std::ceil(bytes / std::max(1.0, chunk.value));
  const double pieces = std::min({limit, by_chunk, static_cast<double>(std::max(1, max_pieces))});
  return static_cast<std::size_t>(std::max(1.0, std::floor(pieces)));
}

bool unknown(const StageEstimate& s) {
  return !(s.setup > 0) || !(s.rate > 0) || !std::isfinite(s.rate);
}

}  // namespace

std::size_t ring_loops(double slice, const StageEstimate& stage, Bytes chunk, int max_loops) {
  constexpr double kSetupShare = 0.005;  // serialized setup allowed per loop, as a share of its bytes' time
  const double limit = unknown(stage) ? INFINITY : kSetupShare * slice / (stage.setup * stage.rate);
  return bounded(slice, limit, chunk, max_loops);
}

std::size_t pipeline_chunks(double bytes, double depth, const StageEstimate& stage, Bytes chunk,
                            int max_chunks) {
  const double limit =
      unknown(stage) ? INFINITY : std::round(std::sqrt(depth * bytes / (stage.setup * stage.rate)));
  return bounded(bytes, std::max(1.0, limit), chunk, max_chunks);
}

std::size_t add_transfer(std::vector<Transfer>& out, const Connection& hop, Bytes bytes, Seconds latency,
                         std::vector<std::size_t> after, std::string tag, bool connected) {
  Transfer t;
  t.connected = connected;
  t.src = hop.src;
  t.dst = hop.dst;
  t.bytes = bytes;
  t.latency = latency;
  t.transport = hop.transport;
  t.after = std::move(after);
  t.tag = std::move(tag);
  out.push_back(std::move(t));
  return out.size() - 1;
}

std::size_t add_delay(std::vector<Transfer>& out, DeviceId at, Seconds delay,
                      std::vector<std::size_t> after) {
  Transfer t;
  t.src = t.dst = at;
  t.latency = delay;
  t.transport = Transport::P2p;
  t.after = std::move(after);
  t.tag = "step latency";
  out.push_back(std::move(t));
  return out.size() - 1;
}

}  // namespace rigsim::sim::detail

namespace rigsim::sim {

Connection describe_connection(const topology::Topology& topo, topology::DeviceId src, topology::DeviceId dst,
                               const topology::P2pPolicy& policy, std::size_t rank_count) {
  return detail::route_connection(topo, src, dst, policy, rank_count).hop;
}

}  // namespace rigsim::sim
