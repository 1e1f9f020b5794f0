// NVLS (NVLink SHARP) all_reduce: where NCCL enables it, NCCL's time estimate per release, and the plan
// (the NVSwitch reduces each shard and multicasts the result). Split from collectives.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/input.hpp"
#include "model/collectives_detail.hpp"
#include "model/nccl_channels.hpp"

namespace rigsim::model::detail {
namespace {

using topology::DeviceId;

/// Bytes each ordered GPU pair carries in the NVLS plan, per byte of all_reduce data: the reduce-scatter
/// (each GPU's ld_reduce of its shard S/n pulls S/n from every GPU and returns S/n) and the all-gather
/// (each GPU's multicast store of S/n reaches every GPU) put S(n+1)/n on each GPU's NVLink per
/// direction; spread over the n(n-1) ordered pairs through the non-blocking switch, and divided by
/// NCCL's nvlsEfficiency (the reduction's sustained share of the links).
double nvls_pair_factor(std::size_t n, double efficiency) {
  const auto k = static_cast<double>(n);
  return (k + 1) / (k * (k - 1)) / efficiency;
}

/// NCCL's time model for NVLS all_reduce (tuning.cc): latency 25 us; bus bandwidth 2 x nvlsEfficiency
/// x the per-GPU NVLink bandwidth x (nCh-1)/nCh (16 NVLS channels [R]); algbw = busBw x n / (2(n-1)).
double nvls_model_time(const calibration::CostModel& cost, const CollectivePlan& p, double per_gpu_bw,
                       double efficiency) {
  const auto n = static_cast<double>(p.ranks.size());
  constexpr double kChannels = 16;
  const double bus = 2 * efficiency * per_gpu_bw * (kChannels - 1) / kChannels;
  return cost.nccl_nvls_latency.value + p.size.value / (bus * n / (2 * (n - 1)));
}

/// The fastest entry of NCCL's search speed table with (n+1) x speed within the GPU's NVLink bandwidth
/// `per_gpu_bw` (bytes/s): the speed of one NVLS channel (head) of n GPUs (nvls_graph_time). 0: none.
double nvls_head_speed(const topology::Topology& topo, const std::vector<DeviceId>& ranks,
                       double per_gpu_bw) {
  const auto n = static_cast<double>(ranks.size());
  for (double s : nccl_speed_table(min_sm(topo, ranks), false))
    if ((n + 1) * s * 1e9 <= per_gpu_bw * (1 + 1e-9)) return s * 1e9;
  return 0;
}

/// NCCL up to 2.27 (tuning.cc at v2.18.3 ... v2.27.7): NVLS's bandwidth is its graph's channels x
/// speed x 5/6. The NVLS search (search.cc ncclTopoSearchTryNvls) runs one channel per GPU (min = max
/// = n within a server), each pulling `speed` from every GPU through the NVSwitch and twice that from
/// its head GPU, so each GPU's NVLinks carry (n+1) x speed per direction: speed is the fastest table
/// entry with (n+1) x speed <= the GPU's NVLink bandwidth. Infinity when none fits. NVLS latency as
/// the newer model (23 us up to 2.20, 25 us after; the 2 us are not modelled).
double nvls_graph_time(const topology::Topology& topo, const calibration::CostModel& cost,
                       const CollectivePlan& p, double per_gpu_bw) {
  const double s = nvls_head_speed(topo, p.ranks, per_gpu_bw);
  if (!(s > 0)) return std::numeric_limits<double>::infinity();
  return cost.nccl_nvls_latency.value + p.size.value / (static_cast<double>(p.ranks.size()) * s * 5.0 / 6.0);
}

/// The first NCCL release whose NVLS time model uses nvlsEfficiency (2.28.3; 2.27.7 has the graph model).
constexpr int kNvlsEfficiencyModel = 22803;
/// The first NCCL release with NVLS_TREE (src/graph/tuning.cc: absent at v2.17.1, present at v2.18.1).
constexpr int kNvlsTreeFirst = 21801;

/// The ranks of `ranks` per server, in rank order; servers in the order their first rank appears.
std::vector<std::vector<DeviceId>> ranks_by_node(const topology::Topology& topo,
                                                 const std::vector<DeviceId>& ranks) {
  std::vector<std::vector<DeviceId>> out;
  std::vector<int> nodes;
  for (DeviceId r : ranks) {
    const int node = topo.device(r).node;
    const auto it = std::find(nodes.begin(), nodes.end(), node);
    if (it == nodes.end()) {
      nodes.push_back(node);
      out.push_back({r});
    } else {
      out[static_cast<std::size_t>(it - nodes.begin())].push_back(r);
    }
  }
  return out;
}

/// NCCL's NVLS_TREE latency (tuning.cc at v2.23.4): NVLS's inside the server plus 2 log2(servers) (log2i,
/// rounded down) network steps of the Simple protocol.
Seconds nvls_tree_latency(const calibration::CostModel& cost, std::size_t servers) {
  return {cost.nccl_nvls_latency.value +
          2 * std::floor(std::log2(static_cast<double>(servers))) * cost.nccl_step_latency_net.value};
}

/// One NVLS_TREE channel's rate, bytes/s of bus bandwidth: NCCL's perChMaxNVLSTreeBws for the GPUs'
/// generation and 2 / more servers (tuning.cc from 2.28.3), 0 where it gives none.
double nvls_tree_channel_rate(const topology::Topology& topo, const calibration::CostModel& cost,
                              const std::vector<DeviceId>& ranks, std::size_t servers) {
  return cost.nccl_nvls_tree_channel_bw_gbs[arch_row(topo, ranks)][node_column(servers)] * 1e9;
}

/// NCCL's NVLS channels (src/transport/nvls.cc): 16 (NVLS_NCHANNELS); from 2.25.1 Blackwell runs 32,
/// and from 2.27.3 24 within one NVLink domain (NVLS_NCHANNELS_SM100_NVL), 32 across servers.
int nvls_default_channels(int sm, int nccl_version, bool multi_node) {
  if (sm >= 100 && nccl_version >= 22703 && !multi_node) return 24;
  if (sm >= 100 && nccl_version >= 22501) return 32;
  return 16;
}

/// NVLS's flows among `ranks` (one server): one per ordered GPU pair through the non-blocking switch,
/// nvls_pair_factor x `bytes` each, after `latency`.
void add_nvls_flows(const topology::Topology& topo, const calibration::CostModel& cost,
                    ConnectionCache& cache, const std::vector<DeviceId>& ranks, Bytes bytes,
                    CollectivePlan& p) {
  const std::size_t n = ranks.size();
  const Bytes pair{bytes.value * nvls_pair_factor(n, cost.nccl_nvls_efficiency[arch_row(topo, ranks)])};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const Connection& h = p.connections.emplace_back(cache.get(ranks[i], ranks[j]));
      add_transfer(p.transfers, h, pair, p.latency, {}, "all_reduce nvls");
    }
}

}  // namespace

/// NVLS runs where NCCL enables it (nvlsSupport and tuning.cc): an all_reduce within one server whose
/// GPUs are all Hopper or newer (nvlsEfficiency > 0) and reach each other over NVLink through an
/// NVSwitch of NVLink generation 4 or later (the first with SHARP multicast/reduction).
bool nvls_supported(const topology::Topology& topo, const calibration::CostModel& cost,
                    const CollectiveOptions& o, const CollectivePlan& p, std::size_t nodes) {
  if (p.op != CollectiveOp::AllReduce || nodes != 1 || p.ranks.size() < 2) return false;
  // NCCL up to 2.28.3 leaves NVLS off for 2 GPUs (src/transport/nvls.cc "gpuCount <= 2"); 2.28.7 and
  // later only below 2.
  if (p.ranks.size() == 2 && o.p2p.nccl_version < 22807) return false;
  if (!(cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)] > 0)) return false;
  for (std::size_t i = 0; i < p.ranks.size(); ++i) {
    const auto path = topo.nvlink_path(p.ranks[i], p.ranks[(i + 1) % p.ranks.size()]);
    if (!path) return false;
    bool via_switch = false;
    for (DeviceId d : path->devices) {
      const auto& dev = topo.device(d);
      if (dev.kind == topology::DeviceKind::NvSwitch && dev.nvswitch != nullptr &&
          dev.nvswitch->nvlink_gen >= 4)
        via_switch = true;
    }
    if (!via_switch) return false;
  }
  return true;
}

/// NCCL's time estimate for NVLS all_reduce per release (see nvls_graph_time and nvls_model_time).
double nvls_time(const topology::Topology& topo, const calibration::CostModel& cost,
                 const CollectiveOptions& o, const CollectivePlan& p, double per_gpu_bw) {
  return o.p2p.nccl_version < kNvlsEfficiencyModel
             ? nvls_graph_time(topo, cost, p, per_gpu_bw)
             : nvls_model_time(cost, p, per_gpu_bw, cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)]);
}

/// The chunk is enqueue.cc's. NVLS (identical from 2.18.1 to 2.30.7): the Simple step (NCCL_BUFFSIZE / 8,
/// one step per chunk) capped at NCCL_NVLS_CHUNKSIZE, then 64 KiB below 64, 32 KiB below 8 and 16 KiB
/// below 2 loops of it (concurrentOps = channels x heads; one head per GPU of a server). NVLS_TREE:
/// the Simple step up to 2.22, NCCL_NVLS_CHUNKSIZE from 2.23, at most 64 KiB on 4 servers or more from
/// 2.19 (NCCL_NVLSTREE_MAX_CHUNKSIZE's default), then 256 KiB below 32, 128 KiB below 16, 64 KiB below
/// 4 and 32 KiB below 1 loop of it.
NvlsPipeline nvls_pipeline(const topology::Topology& topo, const CollectiveOptions& o,
                           const std::vector<DeviceId>& heads, std::size_t servers, Bytes size) {
  NvlsPipeline out;
  const int v = o.p2p.nccl_version;
  out.channels =
      o.nvls_channels > 0 ? o.nvls_channels : nvls_default_channels(min_sm(topo, heads), v, servers > 1);
  out.heads = heads.size();
  const double ops = static_cast<double>(out.channels) * static_cast<double>(out.heads);
  const double s = size.value;
  double chunk = 0;
  if (servers == 1) {
    chunk = std::min(o.chain_chunk.value, o.nvls_chunk.value);
    if (s < 64 * ops * chunk && chunk > 65536) chunk = 65536;
    if (s < 8 * ops * chunk && chunk > 32768) chunk = 32768;
    if (s < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  } else {
    chunk = v >= 22300 ? o.nvls_chunk.value : o.chain_chunk.value;
    if (v >= 21900 && servers >= 4) chunk = std::min(chunk, 65536.0);
    if (s < 32 * ops * chunk && chunk > 262144) chunk = 262144;
    if (s < 16 * ops * chunk && chunk > 131072) chunk = 131072;
    if (s < 4 * ops * chunk && chunk > 65536) chunk = 65536;
    if (s < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  }
  out.chunk = Bytes{chunk};
  out.loop = Bytes{ops * chunk};
  out.fill = Bytes{2 * std::min(s, out.loop.value)};
  return out;
}

/// NVLS all_reduce: one flow per ordered GPU pair through the NVSwitch, all at once after NCCL's NVLS
/// latency, carrying nvls_pair_factor x (S + the pipeline's fill and drain). The kernel's three stages
/// move about the same bytes per loop (scatter and gather heads x chunk through the SM, the reduce the
/// head's chunk from and to every GPU through the switch) on warps NCCL splits about evenly between
/// them (5-8 each of 20), so a stage of one loop takes a loop's time at the NVLS rate: the operation
/// takes loops + 2 loop-times, i.e. S + 2 min(S, loop) at that rate. Simple protocol, steady model.
void plan_nvls(const topology::Topology& topo, const calibration::CostModel& cost, const CollectiveOptions& o,
               ConnectionCache& cache, CollectivePlan& p) {
  const std::size_t n = p.ranks.size();
  if (n * (n - 1) > kMaxConcurrentFlows)
    throw InputError("", "",
                     "NVLS on " + std::to_string(n) + " GPUs is " + std::to_string(n * (n - 1)) +
                         " concurrent flows; rigsim simulates at most " +
                         std::to_string(kMaxConcurrentFlows));
  p.protocol = Protocol::Simple;
  p.model = PlanModel::Steady;
  p.latency = cost.nccl_nvls_latency;
  p.connections.clear();
  p.nvls = nvls_pipeline(topo, o, p.ranks, 1, p.size);
  const Bytes carried{p.size.value + p.nvls.fill.value};
  p.chunk = {carried.value * nvls_pair_factor(n, cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)])};
  add_nvls_flows(topo, cost, cache, p.ranks, carried, p);
}

/// NVLS_TREE where NCCL enables it: across servers, NCCL 2.18 or later, the same GPU count on every
/// server, and each server's GPUs able to run NVLS among themselves.
bool nvls_tree_supported(const topology::Topology& topo, const calibration::CostModel& cost,
                         const CollectiveOptions& o, const CollectivePlan& p, std::size_t nodes) {
  if (p.op != CollectiveOp::AllReduce || nodes < 2 || o.p2p.nccl_version < kNvlsTreeFirst) return false;
  const auto servers = ranks_by_node(topo, p.ranks);
  for (const auto& on : servers) {
    if (on.size() != servers.front().size()) return false;
    CollectivePlan local;
    local.op = CollectiveOp::AllReduce;
    local.ranks = on;
    if (!nvls_supported(topo, cost, o, local, 1)) return false;
  }
  return true;
}

/// NCCL's estimate for NVLS_TREE (tuning.cc at v2.23.4): the NVLS graph's n channels (one head per GPU)
/// each at bw = min(bwIntra, bwInter) — bwInter halved beyond 2 servers, where a tree's inner server
/// sends to two children — times 5/6; latency NVLS's 25 us inside the server plus
/// 2 log2(servers) x the network's Simple step (14 us). On the simulated rates: bwIntra the NVLS head
/// speed of the GPU's NVLink bandwidth (nvls_head_speed), bwInter the head's NIC route. (2.28.3 reworked
/// this estimate, with perChMaxNVLSTreeBws among its bounds; the simulation holds the heads to that figure
/// in every release, plan_nvls_tree.)
double nvls_tree_time(const topology::Topology& topo, const calibration::CostModel& cost,
                      ConnectionCache& cache, const CollectivePlan& p) {
  const auto servers = ranks_by_node(topo, p.ranks);
  const auto& first = servers.front();
  const double intra = nvls_head_speed(topo, first, cache.get(first[0], first[1]).rate.value);
  if (!(intra > 0)) return std::numeric_limits<double>::infinity();
  double inter = std::numeric_limits<double>::infinity();
  for (std::size_t h = 0; h < first.size(); ++h)
    inter = std::min(inter, cache.get(first[h], servers[1][h]).rate.value);
  const double bw = std::min(intra, servers.size() <= 2 ? inter : inter / 2);
  return nvls_tree_latency(cost, servers.size()).value +
         p.size.value / (static_cast<double>(first.size()) * bw * 5.0 / 6.0);
}

/// NVLS_TREE: NVLS inside every server (each GPU ends up holding its server's partial sum of its shard
/// S/n, and multicasts the final one), and the shards' tree across the servers over each GPU's NIC. A
/// double binary tree puts S/n on each head's NIC per direction between 2 servers and 2S/n beyond (an
/// inner server of one tree receives from two children and sends to two); rigsim carries that load as
/// one flow per GPU index to the same GPU of the next server, all at once after NCCL's latency term.
/// Inside a server the NVLS load, S(n+1)/n per GPU and direction through the non-blocking switch, is
/// carried by one flow per GPU to the next GPU of its server rather than one per GPU pair: the same
/// load on every GPU's links with n flows instead of n(n-1), so a cluster of thousands of servers
/// stays a few flows per link. Every flow also carries the pipeline's fill and drain (nvls_pipeline,
/// NVLS_TREE's chunk rule): a lower bound, the kernel's network stages lengthen the real pipeline.
void plan_nvls_tree(const topology::Topology& topo, const calibration::CostModel& cost,
                    const CollectiveOptions& o, ConnectionCache& cache, CollectivePlan& p) {
  const auto servers = ranks_by_node(topo, p.ranks);
  const std::size_t per = servers.front().size();
  p.protocol = Protocol::Simple;
  p.model = PlanModel::Steady;
  p.latency = nvls_tree_latency(cost, servers.size());
  p.connections.clear();
  p.nvls = nvls_pipeline(topo, o, servers.front(), servers.size(), p.size);
  // The same scatter and gather stages around the switch: every flow carries the fill and drain too.
  const double carried = p.size.value + p.nvls.fill.value;
  // Link bytes per data byte of the NVLS stages: S(n+1)/n per GPU and direction, over nvlsEfficiency.
  const double nvls_bytes = (static_cast<double>(per) + 1) / static_cast<double>(per) /
                            cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)];
  p.chunk = {carried * nvls_bytes};
  for (const auto& on : servers)
    for (std::size_t i = 0; i < per; ++i) {
      const Connection& h = p.connections.emplace_back(cache.get(on[i], on[(i + 1) % per]));
      add_transfer(p.transfers, h, p.chunk, p.latency, {}, "all_reduce nvls tree (NVLS)");
    }
  const Bytes shard{carried / static_cast<double>(per) * (servers.size() <= 2 ? 1.0 : 2.0)};
  for (std::size_t k = 0; k < servers.size(); ++k) {
    for (std::size_t h = 0; h < per; ++h) {
      const Connection& c =
          p.connections.emplace_back(cache.get(servers[k][h], servers[(k + 1) % servers.size()][h]));
      add_transfer(p.transfers, c, shard, p.latency, {}, "all_reduce nvls tree (network)");
    }
  }
  // Each head's channel moves at most NCCL's perChMaxNVLSTreeBws of bus bandwidth, its measured figure
  // per generation and server count: a large run's steady rate, the pipeline's slowest stage. A pipeline
  // takes its data at the slowest stage's rate plus the fill and drain at the other stages' (the first
  // loop's scatter and reduce before it, the last loop's multicast and gather after it, at the NVLS rate
  // as in plan_nvls): at least 2(N-1)/N S / (heads x that) + fill (n+1)/n / (eff B_nvlink), N the ranks
  // (bus bandwidth as nccl-tests counts it). Every flow is held to its bytes over that time.
  const double rate = nvls_tree_channel_rate(topo, cost, p.ranks, servers.size());
  if (rate > 0) {
    p.block_channels = static_cast<int>(per);
    p.block_channel_gbs = rate / 1e9;
    p.block_figure = "perChMaxNVLSTreeBw";
    const double ranks = static_cast<double>(p.ranks.size());
    const double steady = p.size.value * 2 * (ranks - 1) / ranks / (static_cast<double>(per) * rate);
    const double nvlink = p.connections.front().rate.value;  // a GPU to the next of its server
    const double fill = nvlink > 0 ? p.nvls.fill.value * nvls_bytes / nvlink : 0.0;
    const double floor = steady + fill;
    for (Transfer& t : p.transfers) t.rate_cap = {t.bytes.value / floor};
  }
}

}  // namespace rigsim::model::detail
