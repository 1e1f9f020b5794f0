// NCCL's latency rules for collective steps (reference nccl.md §d.5) and the cache of connections. How
// two ranks talk (transport, route, setup, rate) is the Platform's answer (Platform::connect), never
// decided here.
#include <algorithm>
#include <cmath>
#include <limits>

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
  hop.src = src;
  hop.dst = dst;
  return by_pair_.emplace(std::make_pair(src, dst), std::move(hop)).first->second;
}

Seconds step_latency(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  if (hop.transport == Transport::Net) return cost.nccl_step_latency_net;
  return intra_nvlink ? cost.nccl_step_latency_nvlink : cost.nccl_step_latency_pcie;
}

Seconds effective_step(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  return std::max(step_latency(cost, hop, intra_nvlink), hop.setup);
}

Seconds step_delay(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink) {
  return {effective_step(cost, hop, intra_nvlink).value - hop.setup.value};
}

Seconds steady_delay(const calibration::CostModel& /*cost*/, const CollectivePlan& plan,
                     const Connection& hop) {
  if (plan.protocol != Protocol::Simple && plan.algorithm != Algorithm::Tree) return plan.latency;
  return {std::max(0.0, plan.latency.value - hop.setup.value)};
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

Seconds protocol_step(const calibration::CostModel& cost, Protocol p, const Connection& hop,
                      bool intra_nvlink) {
  if (p == Protocol::Simple) return effective_step(cost, hop, intra_nvlink);
  const StepLatencies rows = protocol_rows(cost, p, intra_nvlink);
  return hop.transport == Transport::Net ? rows.inter : rows.intra;
}

Seconds protocol_delay(const calibration::CostModel& cost, Protocol p, const Connection& hop,
                       bool intra_nvlink) {
  return p == Protocol::Simple ? step_delay(cost, hop, intra_nvlink)
                               : protocol_step(cost, p, hop, intra_nvlink);
}

StepLatencies protocol_step_latencies(const calibration::CostModel& cost, Protocol p,
                                      const std::vector<Connection>& hops, bool intra_nvlink) {
  return p == Protocol::Simple ? step_latencies(cost, hops, intra_nvlink)
                               : protocol_rows(cost, p, intra_nvlink);
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

StageEstimate slowest_stage(const std::vector<Connection>& connections) {
  StageEstimate e{0, std::numeric_limits<double>::infinity()};
  for (const Connection& c : connections) {
    e.setup = std::max(e.setup, c.setup.value);
    e.rate = std::min(e.rate, c.rate.value);
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

}  // namespace rigsim::model::detail
