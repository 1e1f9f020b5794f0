// NCCL's latency rules for collective steps (reference nccl.md §d.5), the cache of connections, and the
// transfer helpers the plans share (delay nodes, the thread blocks' cap). How two ranks talk (transport, route,
// setup, rate) is the Platform's answer (Platform::connect), never decided here.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "model/collectives_detail.hpp"
#include "model/platform.hpp"

namespace rigsim::model::detail {

using topology::DeviceId;
using topology::PathClass;

const Connection& ConnectionCache::get(DeviceId src, DeviceId dst) {
  if (auto it = by_pair_.find({src, dst}); it != by_pair_.end()) return it->second;
  const auto& topo = platform_.topology();
  const int distance = topo.device(src).node == topo.device(dst).node ? 0 : 1;
  auto key = std::make_tuple(topo.device(src).local_name, topo.device(dst).local_name, distance);
  auto shape = by_shape_.find(key);
  if (shape == by_shape_.end())
    shape =
        by_shape_
            .emplace(std::move(key), platform_.connect(src, dst, policy_, ranks_on_[topo.device(src).node]))
            .first;
  Connection hop = shape->second;
  // The same connection in another server of the cluster: its reason names that server's devices.
  const int from = topo.device(hop.src).node, to = topo.device(src).node;
  if (distance == 0 && from != to) {
    const std::string a = "n" + std::to_string(from) + "/", b = "n" + std::to_string(to) + "/";
    for (auto at = hop.reason.find(a); at != std::string::npos; at = hop.reason.find(a, at + b.size()))
      if (at == 0 || hop.reason[at - 1] == ' ' || hop.reason[at - 1] == '(')
        hop.reason.replace(at, a.size(), b);
  }
  hop.src = src;
  hop.dst = dst;
  return by_pair_.emplace(std::make_pair(src, dst), std::move(hop)).first->second;
}

Seconds step_latency(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  return protocol_step(cost, Protocol::Simple, hop, intra_nvlink);
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

StepLatencies protocol_step_latencies(const calibration::CostModel& cost, Protocol p, bool intra_nvlink) {
  switch (p) {
    case Protocol::LL:
      return {intra_nvlink ? cost.nccl_ll_step_latency_nvlink : cost.nccl_ll_step_latency_pcie,
              cost.nccl_ll_step_latency_net};
    case Protocol::LL128:
      return {intra_nvlink ? cost.nccl_ll128_step_latency_nvlink : cost.nccl_ll128_step_latency_pcie,
              cost.nccl_ll128_step_latency_net};
    case Protocol::Simple:
      break;
  }
  return {intra_nvlink ? cost.nccl_step_latency_nvlink : cost.nccl_step_latency_pcie,
          cost.nccl_step_latency_net};
}

StepLatencies step_latencies(const calibration::CostModel& cost, bool intra_nvlink) {
  return protocol_step_latencies(cost, Protocol::Simple, intra_nvlink);
}

Seconds protocol_step(const calibration::CostModel& cost, Protocol p, const Connection& hop,
                      bool intra_nvlink) {
  const StepLatencies rows = protocol_step_latencies(cost, p, intra_nvlink);
  return hop.transport == Transport::Net ? rows.inter : rows.intra;
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

double slowest_rate(const std::vector<Connection>& connections) {
  double rate = std::numeric_limits<double>::infinity();
  for (const Connection& c : connections) rate = std::min(rate, c.rate.value);
  return rate;
}

double rings_bus_rate(const CollectivePlan& p) {
  // A directed GPU pair that several distinct rings cross gives each its share: on a full NVLink mesh of
  // four GPUs NCCL's six rings cross every ordered pair twice, so each ring hop gets half the pair.
  std::map<std::pair<DeviceId, DeviceId>, int> uses;
  for (const Ring& r : p.rings)
    for (const Connection& h : r.hops) ++uses[{h.src, h.dst}];
  double bus = 0;
  for (const Ring& r : p.rings) {
    double ring = std::numeric_limits<double>::infinity();
    for (const Connection& h : r.hops) ring = std::min(ring, h.rate.value / uses.at({h.src, h.dst}));
    if (std::isfinite(ring) && ring > 0) bus += ring;
  }
  if (bus > 0) return bus;  // a ring plan's channels are its distinct rings (build_rings)
  const double rate = slowest_rate(p.connections);
  return p.channels * (std::isfinite(rate) && rate > 0 ? rate : 1e9);
}

std::size_t pieces(double bytes, Bytes chunk, int max_pieces) {
  const double by_chunk = std::ceil(bytes / std::max(1.0, chunk.value));
  const double n = std::min(by_chunk, static_cast<double>(std::max(1, max_pieces)));
  return static_cast<std::size_t>(std::max(1.0, n));
}

std::size_t add_transfer(std::vector<Transfer>& out, const Connection& hop, Bytes bytes, Seconds latency,
                         std::vector<std::size_t> after, std::string tag) {
  Transfer t;
  t.connected = true;
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

void cap_blocks(const topology::Topology& topo, const calibration::CostModel& cost, CollectivePlan& p) {
  const double block = cost.nccl_block_gbs[detail::arch_row(topo, p.ranks)];
  if (block <= 0 || p.protocol != Protocol::Simple || p.rings.empty()) return;
  for (DeviceId r : p.ranks)
    if (topo.device(r).node != topo.device(p.ranks.front()).node) return;  // across servers: the network's
  for (const Connection& h : p.connections)
    if (h.transport != Transport::P2p) return;
  const double per_ring = static_cast<double>(p.nccl.comm) / static_cast<double>(p.rings.size());
  for (Transfer& t : p.transfers)
    if (t.bytes.value > 0) t.rate_cap = {per_ring * block * 1e9};
  p.block_channels = p.nccl.comm;
  p.block_channel_gbs = block;
  p.block_figure = "nccl_block_gbs";
  p.block_figure_measured = true;
}

}  // namespace rigsim::model::detail
