// Collective plans: NCCL's ring (all_reduce = reduce-scatter + all-gather), chains for broadcast /
// reduce, grouped send/recv for alltoall and sendrecv, and (collectives_tree.cpp) the double binary
// tree for multi-node all_reduce. Reference nccl.md §d.3–§d.5.
//
// Ring, step model. Channel c carries S/C; each of its K steps moves a slice s = S/(n·C) per rank,
// cut into L pipelined loops of s/L bytes (NCCL's chunk, collectives_detail.hpp: pieces). Transfer
// (l, k, r) on hop r = ring[r] -> ring[r+1] waits for the data it forwards — (l, k-1) on hop r-1 — and
// for the previous transfer on its own hop: one flow at a time per connection, as NCCL's kernel sends
// in order (and so a per-flow rate limit such as a staged copy's holds). Loop 0 carries the per-step
// latency (and step 0 the base latency); later loops follow in its wake, as NCCL's pipeline hides
// them. Every transfer runs on a connection NCCL set up at communicator init (Transfer::connected), so
// no transport setup is charged on top. On n identical links of rate B:
//   T = base + K·step_latency + K·S/(n·B)     (all_reduce: K = 2(n-1), so busbw -> B),
// NCCL's own model (§d.5).
// Ring, steady model: one flow per hop of K·S/(n·C) bytes, all concurrent, after the whole latency
// term. Chains (broadcast, reduce) and trees follow the same two shapes.
#include "model/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/input.hpp"
#include "model/collectives_detail.hpp"
#include "model/nccl_tuning.hpp"
#include "model/platform.hpp"

namespace rigsim::model {
namespace {

using detail::proto_index;
using topology::DeviceId;

/// A step-level plan larger than this is refused (it would simulate for minutes: about 1 s per 100k
/// transfers), with a hint to use --model steady.
constexpr std::size_t kMaxTransfers = 1'000'000;

[[noreturn]] void fail(const std::string& message) {
  throw InputError("", "", message);
}

}  // namespace

void detail::check_step_size(std::size_t transfers, const CollectivePlan& plan) {
  if (transfers > kMaxTransfers)
    fail("a step-level " + std::string(to_string(plan.op)) + " plan on " + std::to_string(plan.ranks.size()) +
         " GPUs would have " + std::to_string(transfers) + " transfers (limit " +
         std::to_string(kMaxTransfers) + "); use the steady-state model (--model steady)");
}

namespace {

std::size_t node_count(const topology::Topology& topo, const std::vector<DeviceId>& ranks) {
  std::set<int> nodes;
  for (DeviceId r : ranks) nodes.insert(topo.device(r).node);
  return nodes.size();
}

/// Steps K and the bytes each rank sends per step, for the ring collectives (NCCL tuning.cc nsteps).
std::pair<std::size_t, double> ring_work(CollectiveOp op, std::size_t n, Bytes size) {
  const double slice = size.value / static_cast<double>(n);
  if (op == CollectiveOp::AllReduce) return {2 * (n - 1), slice};
  return {n - 1, slice};  // all_gather, reduce_scatter
}

/// NCCL's ring latency: base + (nsteps - nInter)·intra + nInter·inter (nccl.md §d.5).
Seconds ring_latency(Seconds base, CollectiveOp op, std::size_t n, std::size_t nodes,
                     const detail::StepLatencies& lat) {
  const std::size_t steps = op == CollectiveOp::AllReduce ? 2 * (n - 1) : n - 1;
  const std::size_t inter = op == CollectiveOp::AllReduce ? 2 * (nodes - 1) : nodes - 1;
  return {base.value + static_cast<double>(steps - inter) * lat.intra.value +
          static_cast<double>(inter) * lat.inter.value};
}

/// Chain (broadcast, reduce): base + (hops - inter)·intra + inter·inter, one inter hop per extra server.
Seconds chain_latency(Seconds base, std::size_t n, std::size_t nodes, const detail::StepLatencies& lat) {
  const std::size_t hops = n - 1;
  return {base.value + static_cast<double>(hops - (nodes - 1)) * lat.intra.value +
          static_cast<double>(nodes - 1) * lat.inter.value};
}

/// The first NCCL release whose ring estimate charges a network overhead on every step across servers.
constexpr int kNetOverheadFirst = 21801;
/// The first NCCL release that estimates the ring's LL at half the bus bandwidth (tuning.cc).
constexpr int kLlHalfFirst = 22105;

/// NCCL's floor on a ring step inside a server when the ring spans servers (tuning.cc getNetOverhead,
/// from 2.18.1, "Inter-node rings still have to launch nsteps * net overhead"): 1 us, 2 us on AMD hosts
/// (NCCL's CPU vendor of the system), x3 for Simple. Zero within one server and before 2.18.1.
Seconds ring_net_overhead(const topology::Topology& topo, const CollectiveOptions& o, std::size_t nodes,
                          Protocol p) {
  if (nodes < 2 || o.p2p.nccl_version < kNetOverheadFirst) return {};
  return {(nccl_amd_host(topo) ? 2.0 : 1.0) * (p == Protocol::Simple ? 3.0 : 1.0) * 1e-6};
}

/// LL128 is on by default only when the intra-server graph is NVLink (typeIntra <= NVB) and, across
/// servers, every GPU reaches its NIC within a PCIe switch (typeInter <= PXB) (nccl.md §d.5).
bool ll128_default(const topology::Topology& topo, const CollectivePlan& p, std::size_t nodes, bool nvl) {
  if (!nvl) return false;
  if (nodes < 2) return true;
  for (DeviceId r : p.ranks) {
    const auto nic = nearest_nic(topo, r);
    if (!nic || topo.pcie_path(r, *nic).nccl > topology::PathClass::PXB) return false;
  }
  return true;
}

/// NCCL's protocol choice (tuning.cc, nccl.md §d.5) for a ring (`chain` false) or a chain. busBw is
/// channels x the slowest hop's achievable rate; LL gets min(llMaxBw, busBw/2), LL128
/// min(0.92·busBw, channels x perChMaxRingLL128Bw), Simple busBw; time = latency + S·K/n / bw (ring),
/// latency + S / bw (chain). The simulation moves busBw/bw times the bytes (wire_factor), so a
/// protocol's flows reach its bandwidth on the same links.
ProtocolChoice choose_protocol(const topology::Topology& topo, const calibration::CostModel& cost,
                               const CollectiveOptions& o, const CollectivePlan& p, std::size_t nodes,
                               bool nvl, bool chain) {
  ProtocolChoice c;
  const std::size_t n = p.ranks.size();
  c.enabled[proto_index(Protocol::LL128)] = ll128_default(topo, p, nodes, nvl);
  if (o.protocol) {
    for (bool& e : c.enabled) e = false;
    c.enabled[proto_index(*o.protocol)] = true;
  }
  const double bus = detail::rings_bus_rate(p);
  // NCCL's tables: the simulation moves at the cost model's (the default release's), NCCL decides with
  // the run's release's (nccl_tuning.hpp).
  const int v = o.p2p.nccl_version;
  const NcclTables moved = nccl_tables_at(cost, topology::kNcclVersion), decided = nccl_tables_at(cost, v);
  const std::size_t row = nccl_arch_row(topo, p.ranks, topology::kNcclVersion);
  const std::size_t decided_row = nccl_arch_row(topo, p.ranks, v), col = detail::node_column(nodes);
  // NCCL caps LL128 at its ring graph's channels x perChMaxRingLL128Bw (tuning.cc): the graph's count
  // from its search and ncclTopoDupChannels (nccl_channels.hpp), not the distinct rings rigsim runs.
  const double channels = p.nccl.graph;
  const auto ll128 = [&](const NcclTables& t, std::size_t r) {
    return std::min(cost.nccl_ll128_bw_ratio * bus, channels * t.ring_ll128_channel_bw[r][col] * 1e9);
  };
  // LL carries an 8-byte flag with every 8 data bytes: half the bus bandwidth on the wire at most
  // (what the simulation moves).
  const double bw[3] = {
      std::min(nccl_ll_max_bw(moved, topo, p.ranks, nodes, topology::kNcclVersion), 0.5 * bus),
      ll128(moved, row), bus};
  // NCCL decides with LL at a quarter of the bus bandwidth across nodes and for all_reduce / reduce (a
  // third otherwise) up to 2.20.5: its 8-byte stores and flag polling cost more than the wire (tuning.cc,
  // ring LL "busBw * 1/4 : 1/3"); from 2.21.5 at half of it ("busBw * .5"), the llMaxBws cap (by CPU
  // vendor across servers) bounding it at scale.
  const bool quarter = nodes > 1 || p.op == CollectiveOp::AllReduce || p.op == CollectiveOp::Reduce;
  const double ll_share = v >= kLlHalfFirst ? 0.5 : quarter ? 0.25 : 1.0 / 3.0;
  const double decide[3] = {std::min(nccl_ll_max_bw(decided, topo, p.ranks, nodes, v), bus * ll_share),
                            ll128(decided, decided_row), bw[2]};
  const double share =
      chain ? 1.0 : static_cast<double>(ring_work(p.op, n, p.size).first) / static_cast<double>(n);
  double best = std::numeric_limits<double>::infinity();
  for (Protocol proto : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    const std::size_t i = proto_index(proto);
    auto lat = detail::protocol_step_latencies(cost, proto, nvl);
    if (!chain) lat.intra = std::max(lat.intra, ring_net_overhead(topo, o, nodes, proto));
    const Seconds base = detail::protocol_base(cost, proto);
    c.latency[i] = chain ? chain_latency(base, n, nodes, lat) : ring_latency(base, p.op, n, nodes, lat);
    c.bus_bw[i] = {decide[i]};
    // NCCL's "plateau effect of ring" (tuning.cc ncclTopoGetAlgoTime, 2.14 ... 2.30): its estimate of a
    // Simple ring all_reduce across servers counts the latency 1.4 times (1.9 before Ampere) once every
    // rank's share per channel reaches 64 bytes. The choice only: the plan keeps the latency term.
    const bool plateau = !chain && proto == Protocol::Simple && nodes > 1 &&
                         p.op == CollectiveOp::AllReduce &&
                         p.size.value / (std::max(1, p.nccl.comm) * static_cast<double>(n)) >= 64;
    const double lat_count = plateau ? (detail::min_sm(topo, p.ranks) < 80 ? 1.9 : 1.4) : 1.0;
    c.time[i] = {c.latency[i].value * lat_count + p.size.value * share / decide[i]};
    c.wire_factor[i] = bus / bw[i];
    if (c.enabled[i] && c.time[i].value < best) {
      best = c.time[i].value;
      c.chosen = proto;
    }
  }
  return c;
}

/// NCCL_GRAPH_FILE's rings as device ids: each channel must list exactly the communicator's GPUs of
/// the one server (NCCL matches every `dev` to a GPU of its system or fails).
std::vector<std::vector<DeviceId>> graph_file_rings(const topology::Topology& topo,
                                                    const CollectiveOptions& o,
                                                    const std::vector<DeviceId>& ranks) {
  if (node_count(topo, ranks) > 1)
    fail("NCCL_GRAPH_FILE: rigsim applies a graph file within one server; this run spans " +
         std::to_string(node_count(topo, ranks)) + " servers");
  const std::vector<DeviceId>& local = topo.node_devices(topo.device(ranks.front()).node);
  std::vector<DeviceId> gpus;
  for (DeviceId d : local)
    if (topo.device(d).kind == topology::DeviceKind::Gpu) gpus.push_back(d);
  const std::set<DeviceId> want(ranks.begin(), ranks.end());
  std::vector<std::vector<DeviceId>> out;
  for (std::size_t c = 0; c < o.graph_rings.size(); ++c) {
    std::vector<DeviceId> ring;
    for (int dev : o.graph_rings[c]) {
      if (dev < 0 || static_cast<std::size_t>(dev) >= gpus.size())
        fail("NCCL_GRAPH_FILE channel " + std::to_string(c) + ": GPU dev " + std::to_string(dev) +
             " is not a GPU of " + topo.name() + " (it has " + std::to_string(gpus.size()) + ")");
      ring.push_back(gpus[static_cast<std::size_t>(dev)]);
    }
    if (std::set<DeviceId>(ring.begin(), ring.end()) != want || ring.size() != want.size())
      fail("NCCL_GRAPH_FILE channel " + std::to_string(c) + " lists " + std::to_string(ring.size()) +
           " GPUs that are not the run's " + std::to_string(want.size()) +
           " (NCCL fails to load a graph whose GPUs are not the communicator's)");
    out.push_back(std::move(ring));
  }
  return out;
}

void build_rings(const Platform& platform, detail::ConnectionCache& cache, const CollectiveOptions& o,
                 CollectivePlan& plan) {
  std::set<std::pair<DeviceId, DeviceId>> seen;
  const bool from_file = !o.graph_rings.empty();
  for (auto& order : from_file ? graph_file_rings(platform.topology(), o, plan.ranks)
                               : ring_channels(platform, plan.ranks, o.p2p, std::max(1, o.max_channels))) {
    Ring ring{order, {}};
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Connection& h = cache.get(order[i], order[(i + 1) % order.size()]);
      ring.hops.push_back(h);
      if (seen.insert({h.src, h.dst}).second) plan.connections.push_back(h);
    }
    plan.rings.push_back(std::move(ring));
  }
  plan.channels = static_cast<int>(plan.rings.size());
  std::vector<std::vector<Connection>> hops;
  for (const Ring& r : plan.rings) hops.push_back(r.hops);
  const int sm = detail::min_sm(platform.topology(), plan.ranks);
  const bool multi = node_count(platform.topology(), plan.ranks) > 1;
  plan.nccl = from_file ? nccl_channels_from_graph(plan.channels, o.graph_speed_gbs, sm, multi,
                                                   o.nccl_min_channels, o.nccl_max_channels)
                        : nccl_channels(platform, hops, sm, multi, o.nccl_min_channels, o.nccl_max_channels);
}

std::string tag(const CollectivePlan& p, const char* what, std::size_t c, std::size_t k) {
  return std::string(to_string(p.op)) + " " + what + " ch" + std::to_string(c) + " step " + std::to_string(k);
}

/// Bytes one transfer of the plan puts on the wire: its data times the protocol's wire factor (LL:
/// 8 flag bytes per 8 data bytes, i.e. at least 2).
Bytes wire(const CollectivePlan& p) {
  return {p.chunk.value * p.protocol_choice.wire_factor[proto_index(p.protocol)]};
}

/// Step model of the rings. NCCL's per-step latency of loop 0 sits on a zero-byte delay node (a GPU to
/// itself) between the data a step forwards and its flow, so it overlaps the previous flow on the same
/// connection, as NCCL's buffer slots let it; the flows of one connection still follow each other.
void ring_steps(const calibration::CostModel& cost, std::size_t loops, bool nvl, Seconds net_overhead,
                CollectivePlan& p) {
  const std::size_t n = p.ranks.size();
  const auto work = ring_work(p.op, n, p.size);  // not a structured binding: the lambda captures it
  const std::size_t steps = work.first;
  const double slice = work.second;
  p.chunk = {slice / p.channels / static_cast<double>(loops)};
  detail::check_step_size(p.rings.size() * (loops + 1) * steps * n, p);
  for (std::size_t c = 0; c < p.rings.size(); ++c) {
    const Ring& ring = p.rings[c];
    std::vector<std::size_t> flow(loops * steps * n);  // transfer index of flow (l, k, r)
    auto at = [&](std::size_t l, std::size_t k, std::size_t r) -> std::size_t& {
      return flow[(l * steps + k) * n + r];
    };
    for (std::size_t l = 0; l < loops; ++l)
      for (std::size_t k = 0; k < steps; ++k)
        for (std::size_t r = 0; r < n; ++r) {
          std::vector<std::size_t> after;
          if (k > 0) after.push_back(at(l, k - 1, (r + n - 1) % n));  // the data this step forwards
          if (l == 0) {
            const Connection& hop = ring.hops[r];
            const Seconds step = detail::protocol_step(cost, p.protocol, hop, nvl);
            const Seconds delay = (hop.transport == Transport::Net ? step : std::max(step, net_overhead)) +
                                  (k == 0 ? detail::protocol_base(cost, p.protocol) : Seconds{});
            if (delay.value > 0)
              after = {detail::add_delay(p.transfers, ring.order[r], delay, std::move(after))};
          }
          if (k > 0)
            after.push_back(at(l, k - 1, r));  // the previous flow on this connection
          else if (l > 0)
            after.push_back(at(l - 1, steps - 1, r));
          at(l, k, r) = detail::add_transfer(p.transfers, ring.hops[r], wire(p), Seconds{}, std::move(after),
                                             tag(p, "ring", c, k));
        }
  }
}

void ring_steady(CollectivePlan& p) {
  const auto [steps, slice] = ring_work(p.op, p.ranks.size(), p.size);
  p.chunk = {static_cast<double>(steps) * slice / p.channels};
  for (std::size_t c = 0; c < p.rings.size(); ++c)
    for (const Connection& h : p.rings[c].hops)
      detail::add_transfer(p.transfers, h, wire(p), p.latency, {}, tag(p, "ring", c, 0));
}

void plan_ring(const topology::Topology& topo, const calibration::CostModel& cost, const CollectiveOptions& o,
               bool nvl, CollectivePlan& p) {
  const std::size_t n = p.ranks.size();
  const auto [steps, slice] = ring_work(p.op, n, p.size);
  const std::size_t nodes = node_count(topo, p.ranks);
  p.protocol_choice = choose_protocol(topo, cost, o, p, nodes, nvl, false);
  p.protocol = p.protocol_choice.chosen;
  // LL / LL128 are chosen for small sizes only, where pipelining a step in loops changes nothing.
  const std::size_t loops =
      p.protocol != Protocol::Simple ? 1 : detail::pieces(slice / p.channels, o.ring_chunk, o.max_ring_loops);
  p.model = detail::resolve_model(o, n, p.rings.size() * loops * steps * n);
  p.latency = p.protocol_choice.latency[proto_index(p.protocol)];
  p.model == PlanModel::Step ? ring_steps(cost, loops, nvl, ring_net_overhead(topo, o, nodes, p.protocol), p)
                             : ring_steady(p);
}

/// Broadcast / reduce: the ring cut into a chain that starts (broadcast) or ends (reduce) at the root.
void make_chains(CollectivePlan& p, std::size_t root) {
  const DeviceId r = p.ranks[root];
  p.connections.clear();
  std::set<std::pair<DeviceId, DeviceId>> seen;
  for (Ring& ring : p.rings) {
    auto it = std::find(ring.order.begin(), ring.order.end(), r);
    const long shift = (it - ring.order.begin()) + (p.op == CollectiveOp::Reduce ? 1 : 0);
    std::rotate(ring.order.begin(), ring.order.begin() + shift % static_cast<long>(ring.order.size()),
                ring.order.end());
    std::rotate(ring.hops.begin(), ring.hops.begin() + shift % static_cast<long>(ring.hops.size()),
                ring.hops.end());
    ring.hops.pop_back();  // the hop closing the ring is not used by a chain
    for (const Connection& h : ring.hops)
      if (seen.insert({h.src, h.dst}).second) p.connections.push_back(h);
  }
}

void plan_chain(const topology::Topology& topo, const calibration::CostModel& cost,
                const CollectiveOptions& o, bool nvl, CollectivePlan& p) {
  const std::size_t hops = p.ranks.size() - 1;
  const double per_channel = p.size.value / p.channels;
  const std::size_t nodes = node_count(topo, p.ranks);
  p.protocol_choice = choose_protocol(topo, cost, o, p, nodes, nvl, true);
  p.protocol = p.protocol_choice.chosen;
  const bool simple = p.protocol == Protocol::Simple;
  const std::size_t chunks = !simple ? 1 : detail::pieces(per_channel, o.chain_chunk, o.max_chain_chunks);
  p.model = detail::resolve_model(o, p.ranks.size(), p.rings.size() * chunks * hops);
  p.latency = p.protocol_choice.latency[proto_index(p.protocol)];
  if (p.model == PlanModel::Steady) {
    p.chunk = {per_channel};
    for (std::size_t c = 0; c < p.rings.size(); ++c)
      for (const Connection& h : p.rings[c].hops)
        detail::add_transfer(p.transfers, h, wire(p), p.latency, {}, tag(p, "chain", c, 0));
    return;
  }
  p.chunk = {per_channel / static_cast<double>(chunks)};
  // Simple: chunk j > 0 of a hop runs behind chunk j - 1 on the same connection and is fed by chunk j
  // of the hop before, through a delay node holding the links' latency (below): 2 transfers per piece.
  detail::check_step_size(p.rings.size() * chunks * hops * (simple ? 2 : 1), p);
  for (std::size_t c = 0; c < p.rings.size(); ++c) {
    if (!simple) {
      // LL / LL128 forward each line as it arrives (prims_ll.h, prims_ll128.h: a line is read, polled on
      // its flag, and stored to the next peer in the same loop), so the hops run at once, each starting
      // when the first lines reach it: after NCCL's base and the per-step latencies up to it.
      Seconds lat = detail::protocol_base(cost, p.protocol);
      for (std::size_t h = 0; h < hops; ++h) {
        lat = lat + detail::protocol_step(cost, p.protocol, p.rings[c].hops[h], nvl);
        detail::add_transfer(p.transfers, p.rings[c].hops[h], wire(p), lat, {}, tag(p, "chain", c, h));
      }
      continue;
    }
    // Simple pipelines chunks through the chain. A hop's chunk j > 0 leaves as soon as its data is in
    // and chunk j - 1 has left: NCCL's sender keeps up to NCCL_STEPS slices in flight on a connection
    // (prims_simple.h waits only when all eight slots are taken), so the links' latency of a chunk
    // overlaps the chunk before it instead of idling the link once per chunk. The data still arrives
    // the links' latency after it was sent: the chunk's data dependency goes through a delay node of
    // that latency, its dependency on chunk j - 1 does not, and the chunk itself waits nothing
    // (Transfer::streamed). Chunk 0 pays the latencies as before (NCCL's step and base, the route's).
    std::vector<std::size_t> prev(hops), cur(hops);
    for (std::size_t j = 0; j < chunks; ++j) {
      for (std::size_t h = 0; h < hops; ++h) {
        const Connection& hop = p.rings[c].hops[h];
        std::vector<std::size_t> after;
        Seconds lat{};
        if (j == 0) {
          if (h > 0) after.push_back(cur[h - 1]);
          lat = detail::protocol_step(cost, p.protocol, hop, nvl) +
                (h == 0 ? detail::protocol_base(cost, p.protocol) : Seconds{});
        } else {
          const Seconds links{hop.latency.value - hop.setup.value};
          if (h > 0) after.push_back(detail::add_delay(p.transfers, hop.src, links, {cur[h - 1]}));
          after.push_back(prev[h]);
        }
        cur[h] =
            detail::add_transfer(p.transfers, hop, wire(p), lat, std::move(after), tag(p, "chain", c, h));
        p.transfers[cur[h]].streamed = j > 0;
      }
      prev = cur;
    }
  }
}

/// alltoall (every rank sends S/n to every other, all at once: ncclGroupStart + n x send/recv) and
/// sendrecv (rank i sends S to rank i+1, as nccl-tests does). One flow per pair in both models.
/// Over NVLink a flow moves at most its thread blocks' rate: NCCL splits each send over
/// nccl_p2p_op_channels(bytes) channels, one thread block each, and a block moves what NCCL gives one
/// of its channels (block_rate: the GPU generation's measured block rate, else NCCL's share), so a
/// send of few channels leaves the links idle (Transfer::rate_cap). A measured block rate bounds sends
/// over PCIe P2P too.
void plan_pairwise(const Platform& platform, detail::ConnectionCache& cache, const CollectiveOptions& o,
                   CollectivePlan& p) {
  const auto& topo = platform.topology();
  const auto& cost = platform.cost_model();
  const std::size_t n = p.ranks.size();
  const bool a2a = p.op == CollectiveOp::AllToAll;
  if (a2a && n * (n - 1) > detail::kMaxConcurrentFlows)
    fail("alltoall on " + std::to_string(n) + " GPUs is " + std::to_string(n * (n - 1)) +
         " concurrent flows; rigsim simulates at most " + std::to_string(detail::kMaxConcurrentFlows) +
         " (141 GPUs)");
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (j != i && (a2a || j == (i + 1) % n)) p.connections.push_back(cache.get(p.ranks[i], p.ranks[j]));
  const bool nvl = detail::intra_is_nvlink(topo, p.connections);
  p.model = o.model == PlanModel::Auto ? PlanModel::Step : o.model;
  p.chunk = {a2a ? p.size.value / static_cast<double>(n) : p.size.value};
  p.latency = cost.nccl_base_latency;
  const bool multi = node_count(topo, p.ranks) > 1;
  bool all_nvlink = true;
  for (const Connection& h : p.connections) all_nvlink = all_nvlink && over_nvlink_only(h);
  const double step = nccl_p2p_chunk(multi, all_nvlink, 8 * o.chain_chunk.value);
  p.p2p_op_channels = nccl_p2p_op_channels(p.chunk.value, n, p.nccl, multi, step, o.p2p.nccl_version);
  for (const Connection& h : p.connections) {
    const Seconds lat = cost.nccl_base_latency + detail::step_latency(cost, h, nvl);
    p.latency = std::max(p.latency, lat);
    const std::size_t t =
        detail::add_transfer(p.transfers, h, p.chunk, lat, {}, std::string(to_string(p.op)));
    // Within one server only: across servers NCCL's rings (and so its channels' figure) are the network's.
    // NCCL's share of the links is an NVLink figure; a measured block rate is the GPU's, over any P2P path.
    const double measured = cost.nccl_block_gbs[detail::arch_row(topo, p.ranks)];
    const bool blocks = over_nvlink_only(h) || (measured > 0 && h.transport == Transport::P2p);
    if (const double cta = block_rate(p.nccl, measured); cta > 0 && !multi && blocks) {
      p.transfers[t].rate_cap = {p.p2p_op_channels * cta};
      p.p2p_cta_gbs = cta / 1e9;
    }
  }
}

void check_ranks(const topology::Topology& topo, const std::vector<DeviceId>& ranks,
                 const CollectiveOptions& o) {
  if (ranks.empty()) fail("a collective needs at least one GPU");
  std::set<DeviceId> seen;
  for (DeviceId r : ranks) {
    if (r >= topo.devices().size() || topo.device(r).kind != topology::DeviceKind::Gpu)
      fail("device " + std::to_string(r) + " is not a GPU of layout " + topo.name());
    if (!seen.insert(r).second) fail("GPU " + topo.device(r).name + " appears twice in the rank list");
  }
  if (o.root >= ranks.size())
    fail("root rank " + std::to_string(o.root) + " is out of range (" + std::to_string(ranks.size()) +
         " ranks)");
}

/// NCCL's choice of algorithm and protocol for all_reduce (tuning.cc time model, nccl.md §d.5): every
/// enabled (algorithm, protocol) pair's latency + size / bandwidth, the fastest wins. Ring and tree get
/// the same bus bandwidth B (channels x the slowest hop); NVLS and NVLS_TREE run Simple only.
struct AllReduceChoice {
  Algorithm algorithm = Algorithm::Ring;
  ProtocolChoice tree;  // the tree's estimate (across servers)
};

AllReduceChoice choose_all_reduce(const topology::Topology& topo, const calibration::CostModel& cost,
                                  detail::ConnectionCache& cache, const CollectiveOptions& o,
                                  const CollectivePlan& p, std::size_t nodes, bool nvl) {
  const bool simple = !o.protocol || *o.protocol == Protocol::Simple;
  const ProtocolChoice rp = choose_protocol(topo, cost, o, p, nodes, nvl, false);
  const double ring = rp.time[proto_index(rp.chosen)].value;
  const double per_gpu = rp.bus_bw[proto_index(Protocol::Simple)].value;
  AllReduceChoice out;
  out.tree = detail::tree_choice(topo, cost, p, rp, nodes, nvl,
                                 o.p2p.nccl_version);  // NCCL_ALGO=Tree may ask for it in one server
  if (nodes < 2) {
    // NCCL compares NVLS+Simple with the ring's best protocol; both on the ring's Simple bus bandwidth
    // (channels x hop rate: the GPU's NVLink bandwidth through the switch).
    if (simple && o.nvls_enable && detail::nvls_supported(topo, cost, o, p, nodes) &&
        detail::nvls_time(topo, cost, o, p, per_gpu) < ring)
      out.algorithm = Algorithm::Nvls;
    return out;
  }
  // Comparing a tree on one hop's rate with a ring on all its channels made the ring win large messages
  // at scale: both get the ring's bus bandwidth.
  const double tree = out.tree.time[proto_index(out.tree.chosen)].value;
  // NVLS_TREE where every server has NVLS (NCCL 2.18 and later), on NCCL's estimate for it.
  if (simple && o.nvls_enable && detail::nvls_tree_supported(topo, cost, o, p, nodes) &&
      detail::nvls_tree_time(topo, cost, cache, p) < std::min(tree, ring))
    out.algorithm = Algorithm::NvlsTree;
  else if (tree < ring)
    out.algorithm = Algorithm::Tree;
  return out;
}

Algorithm pick_algorithm(const topology::Topology& topo, const calibration::CostModel& cost,
                         detail::ConnectionCache& cache, const CollectiveOptions& o, const CollectivePlan& p,
                         std::size_t nodes, bool nvl, ProtocolChoice* tree = nullptr) {
  if (p.op == CollectiveOp::AllToAll || p.op == CollectiveOp::SendRecv) {
    if (o.algorithm && *o.algorithm != Algorithm::Pairwise)
      fail(std::string(to_string(p.op)) + " uses pairwise send/recv, not " +
           std::string(to_string(*o.algorithm)));
    return Algorithm::Pairwise;
  }
  if (o.algorithm == Algorithm::Pairwise) fail(std::string(to_string(p.op)) + " has no pairwise algorithm");
  if (o.algorithm == Algorithm::Tree && p.op != CollectiveOp::AllReduce)
    fail("the tree algorithm is only for all_reduce (NCCL runs " + std::string(to_string(p.op)) +
         " on rings)");
  if (o.algorithm == Algorithm::Nvls && !detail::nvls_supported(topo, cost, o, p, nodes))
    fail(
        "NVLS needs an all_reduce within one server whose GPUs (Hopper or newer) reach each other through "
        "an NVLink4+ NVSwitch; NCCL would report \"no algorithm/protocol available\"");
  if (o.algorithm == Algorithm::Nvls && !o.nvls_enable) fail("NVLS was asked for but NCCL_NVLS_ENABLE=0");
  if (o.algorithm == Algorithm::NvlsTree && !detail::nvls_tree_supported(topo, cost, o, p, nodes))
    fail(
        "NVLS_TREE needs an all_reduce across servers (NCCL 2.18 or later) whose servers each hold the same "
        "number of GPUs, every server's GPUs able to run NVLS (Hopper or newer on an NVLink4+ NVSwitch); "
        "NCCL would report \"no algorithm/protocol available\"");
  if (o.algorithm == Algorithm::NvlsTree && !o.nvls_enable)
    fail("NVLS_TREE was asked for but NCCL_NVLS_ENABLE=0");
  // NVLS runs Simple only (tuning.cc skips NVLS with LL/LL128); the tree runs all three protocols.
  const bool simple = !o.protocol || *o.protocol == Protocol::Simple;
  if ((o.algorithm == Algorithm::Nvls || o.algorithm == Algorithm::NvlsTree) && !simple)
    fail("NVLS runs only the Simple protocol, not " + std::string(to_string(*o.protocol)) +
         "; NCCL would report \"no algorithm/protocol available\"");
  if (p.op != CollectiveOp::AllReduce) return o.algorithm.value_or(Algorithm::Ring);
  const AllReduceChoice c = choose_all_reduce(topo, cost, cache, o, p, nodes, nvl);
  if (tree) *tree = c.tree;
  return o.algorithm.value_or(c.algorithm);
}

}  // namespace

/// The lowest compute capability among the ranks (NCCL's ccMin).
int detail::min_sm(const topology::Topology& topo, const std::vector<DeviceId>& ranks) {
  int sm = 1000;
  for (DeviceId r : ranks)
    if (topo.device(r).gpu != nullptr) sm = std::min(sm, topo.device(r).gpu->sm);
  return sm;
}

/// The row of NCCL's per-architecture tables (CostModel::nccl_ll_max_bw_gbs …): Volta and older,
/// Ampere, Hopper, Blackwell.
std::size_t detail::arch_row(const topology::Topology& topo, const std::vector<DeviceId>& ranks) {
  const int sm = detail::min_sm(topo, ranks);
  return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0;
}

PlanModel detail::resolve_model(const CollectiveOptions& o, std::size_t ranks, std::size_t step_transfers) {
  if (o.model != PlanModel::Auto) return o.model;
  return (ranks > o.steady_above_ranks || step_transfers > o.steady_above_transfers) ? PlanModel::Steady
                                                                                     : PlanModel::Step;
}

CollectivePlan plan_collective(const Platform& platform, CollectiveOp op, const std::vector<DeviceId>& ranks,
                               Bytes size, const CollectiveOptions& options) {
  const auto& topo = platform.topology();
  const auto& cost = platform.cost_model();
  check_ranks(topo, ranks, options);
  CollectivePlan p;
  p.op = op;
  p.ranks = ranks;
  p.size = size;
  p.latency = cost.nccl_base_latency;
  detail::ConnectionCache cache(platform, options.p2p, ranks);
  if (op == CollectiveOp::AllToAll || op == CollectiveOp::SendRecv) {
    p.algorithm = pick_algorithm(topo, cost, cache, options, p, 1, false);
    if (ranks.size() > 1) {
      // NCCL's send/recv channels follow from the collectives' count, which the ring search sets.
      CollectivePlan search;
      search.ranks = ranks;
      build_rings(platform, cache, options, search);
      p.nccl = search.nccl;
      nccl_p2p_channels(platform, ranks, p.nccl);
    }
    if (ranks.size() > 1 && size.value > 0) plan_pairwise(platform, cache, options, p);
    return p;
  }
  build_rings(platform, cache, options, p);
  const bool nvl = detail::intra_is_nvlink(topo, p.connections);
  const std::size_t nodes = node_count(topo, ranks);
  ProtocolChoice tree;
  p.algorithm = pick_algorithm(topo, cost, cache, options, p, nodes, nvl, &tree);
  p.model = detail::resolve_model(options, ranks.size(), 0);
  if (p.algorithm == Algorithm::Tree) {
    p.protocol_choice = tree;
    p.protocol = tree.chosen;
  }
  if (ranks.size() < 2 || size.value <= 0) return p;
  if (p.algorithm == Algorithm::Nvls) {
    detail::plan_nvls(topo, cost, options, cache, p);
  } else if (p.algorithm == Algorithm::NvlsTree) {
    detail::plan_nvls_tree(topo, cost, options, cache, p);
  } else if (p.algorithm == Algorithm::Tree) {
    detail::plan_tree(platform, cache, options, p);
  } else if (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce) {
    make_chains(p, options.root);
    plan_chain(topo, cost, options, detail::intra_is_nvlink(topo, p.connections), p);
    detail::cap_blocks(topo, cost, p);
  } else {
    plan_ring(topo, cost, options, nvl, p);
    detail::cap_blocks(topo, cost, p);
  }
  return p;
}

}  // namespace rigsim::model
