// Private helpers shared by collectives.cpp, collectives_tree.cpp and collectives_nvls.cpp: a cache that asks
// the Platform for each distinct connection of a multi-server cluster once, and NCCL's latency rules.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "model/collectives.hpp"

namespace rigsim::model::detail {

/// Connections by (src, dst), each asked of the Platform once. Identical servers of a cluster share
/// their connections: one is computed per (local src name, local dst name, node distance) and
/// re-targeted to the actual devices (a Connection holds no link indices, so this is exact).
class ConnectionCache {
 public:
  /// `ranks`: the communicator's GPUs; NCCL's P2P level counts those on each host.
  ConnectionCache(const Platform& platform, const topology::P2pPolicy& policy,
                  const std::vector<topology::DeviceId>& ranks)
      : platform_(platform), policy_(policy) {
    for (topology::DeviceId r : ranks) ++ranks_on_[platform.topology().device(r).node];
  }
  const Connection& get(topology::DeviceId src, topology::DeviceId dst);

 private:
  const Platform& platform_;
  topology::P2pPolicy policy_;
  std::map<int, std::size_t> ranks_on_;  // per server: the communicator's GPUs there
  std::map<std::pair<topology::DeviceId, topology::DeviceId>, Connection> by_pair_;
  std::map<std::tuple<std::string, std::string, int>, Connection> by_shape_;
};

/// Per-step latency of a hop under NCCL's rule (nccl.md §d.5), Simple protocol: NET across servers;
/// inside a server the NVLINK row when every intra-server hop of the algorithm's graph is NVL, else the
/// PCI row (SHM included: NCCL's model has no row of its own for it). protocol_step for Simple.
Seconds step_latency(const calibration::CostModel& cost, const Connection& hop, bool intra_nvlink);

/// NCCL's base latency of the ring / chain algorithm under protocol `p` (nccl.md §d.5).
Seconds protocol_base(const calibration::CostModel& cost, Protocol p);
/// Per-step latency of a hop under protocol `p`: NCCL's per-step figure alone. Every step of a plan
/// runs on a connection NCCL set up at communicator init (Transfer::connected), so the transport's
/// cold setup (Route::setup) is never charged on it.
Seconds protocol_step(const calibration::CostModel& cost, Protocol p, const Connection& hop,
                      bool intra_nvlink);

/// Index of protocol `p` in the per-protocol arrays (ProtocolChoice, TreeEstimate): LL, LL128, Simple.
inline std::size_t proto_index(Protocol p) {
  return static_cast<std::size_t>(p);
}

/// NCCL's per-step latency inside servers and across them.
struct StepLatencies {
  Seconds intra;
  Seconds inter;
};
/// NCCL's per-step rows of protocol `p`: the one table protocol_step, step_latency and step_latencies
/// read.
StepLatencies protocol_step_latencies(const calibration::CostModel& cost, Protocol p, bool intra_nvlink);
/// The Simple protocol's rows.
StepLatencies step_latencies(const calibration::CostModel& cost, bool intra_nvlink);

/// Whether every intra-server hop in `hops` is a direct NVLink (NVL) route.
bool intra_is_nvlink(const topology::Topology& topo, const std::vector<Connection>& hops);

/// The lowest rate a lone flow gets over `connections` (infinity for none).
double slowest_rate(const std::vector<Connection>& connections);
/// The bus bandwidth of a plan's rings, bytes per second: each distinct ring at its slowest hop's rate,
/// that hop's directed GPU pair shared among the rings crossing it, summed (the slowest connection x
/// channels where the plan has no rings).
double rings_bus_rate(const CollectivePlan& p);

/// Pieces a ring step's slice or a chain's / tree's bytes are cut into: NCCL's loop count over its
/// chunk, ceil(bytes / chunk), in equal pieces, at most `max_pieces` (simulation cost). Every piece runs
/// on an established connection, so cutting finer costs nothing but simulated transfers.
std::size_t pieces(double bytes, Bytes chunk, int max_pieces);

/// Step or Steady for a plan of `ranks` whose step-level form would have `step_transfers` transfers.
PlanModel resolve_model(const CollectiveOptions& options, std::size_t ranks, std::size_t step_transfers);

/// Throws rigsim::InputError when a step-level plan would have more transfers than rigsim simulates.
void check_step_size(std::size_t transfers, const CollectivePlan& plan);

/// Appends a transfer on the connection `hop` (Transfer::connected: no transport setup is charged) and
/// returns its index.
std::size_t add_transfer(std::vector<Transfer>& out, const Connection& hop, Bytes bytes, Seconds latency,
                         std::vector<std::size_t> after, std::string tag);

/// Appends a zero-byte transfer from `at` to itself: a pure delay of `delay` after `after` finish (the
/// platform moves nothing and adds no setup for it). Returns its index.
std::size_t add_delay(std::vector<Transfer>& out, topology::DeviceId at, Seconds delay,
                      std::vector<std::size_t> after);

/// A ring's or chain's Simple flows within one server over P2P (NVLink or PCIe) move at most NCCL's
/// channels x what one channel's thread block moves, where the GPU generation has a measured block rate
/// (CostModel::nccl_block_gbs; the rate is the GPU's stores, whatever link they cross): each simulated
/// ring carries comm / rings of NCCL's channels, and its flows on one connection follow each other, so
/// the cap is the channels' together. Without a measured figure a block carries NCCL's share of the
/// links, which the links bound already.
void cap_blocks(const topology::Topology& topo, const calibration::CostModel& cost, CollectivePlan& p);

/// Tree algorithm (collectives_tree.cpp): fills plan.tree_parents, hops and transfers.
void plan_tree(const Platform& platform, ConnectionCache& hops, const CollectiveOptions& options,
               CollectivePlan& plan);
/// NCCL's Tree rows of protocol `p` (tuning.cc; CostModel::nccl_tree_*): its base latency and per-hop
/// latencies inside a server (the NVLink row when its hops are NVLink, else PCI) and across servers.
std::pair<Seconds, StepLatencies> tree_rows(const calibration::CostModel& cost, Protocol p,
                                            bool intra_nvlink);
/// NCCL's tree latency term under protocol `p`: base + 2((ppn-1)·intra + log2(nodes)·inter) from the Tree
/// rows of tuning.cc (CostModel::nccl_tree_*; intra the NVLink row when the servers' hops are NVLink).
Seconds tree_latency(const calibration::CostModel& cost, Protocol p, std::size_t ranks, std::size_t nodes,
                     bool intra_nvlink);

/// NCCL's estimate for the tree all_reduce under each protocol (tuning.cc), indexed by Protocol. `bus` is
/// the ring's Simple bus bandwidth (channels x the slowest hop, bytes/s), which NCCL gives the tree too;
/// `channels` the graph's channel count for the per-channel caps. Bus bandwidth: Simple min(0.92 bus,
/// channels x perChMaxTreeBw), LL min(bus / 3.8, llMaxBw), LL128 min(bus x 120/128 (7/9 in one server),
/// channels x perChMaxTreeLL128Bw); the algorithm bandwidth is half of it (the data goes up and down)
/// times treeCorrectionFactor[protocol][log2(size / 64)]; time = latency + size / that.
struct TreeEstimate {
  Seconds latency[3];
  double bus_bw[3] = {0, 0, 0};  // bytes/s
  Seconds time[3];
};
TreeEstimate tree_estimate(const topology::Topology& topo, const calibration::CostModel& cost,
                           const CollectivePlan& p, std::size_t nodes, bool intra_nvlink, double bus,
                           double channels, int nccl_version);
/// The tree's estimate as a ProtocolChoice (the plan's time model): the fastest of the protocols `ring`
/// enables (NCCL_PROTO, LL128's default), and each protocol's wire bytes per data byte.
ProtocolChoice tree_choice(const topology::Topology& topo, const calibration::CostModel& cost,
                           const CollectivePlan& p, const ProtocolChoice& ring, std::size_t nodes, bool nvl,
                           int nccl_version);

/// Most concurrent flows of one plan (alltoall, NVLS): every flow shares links with all others, and the
/// simulation time grows with their square (16k flows: 6 s on a 2-core machine).
inline constexpr std::size_t kMaxConcurrentFlows = 20'000;

/// The lowest compute capability among the ranks (NCCL's ccMin).
int min_sm(const topology::Topology& topo, const std::vector<topology::DeviceId>& ranks);
/// The row of NCCL's per-architecture tables (CostModel::nccl_ll_max_bw_gbs …): Volta and older,
/// Ampere, Hopper, Blackwell.
std::size_t arch_row(const topology::Topology& topo, const std::vector<topology::DeviceId>& ranks);
/// The column of NCCL's per-node-count tables (llMaxBws, perChMax*Bws): 1, 2, or more servers.
inline std::size_t node_column(std::size_t servers) {
  return servers <= 1 ? 0 : servers == 2 ? 1 : 2;
}

// ---- collectives_nvls.cpp: NVLink SHARP all_reduce ---------------------------------------------

/// NVLS runs where NCCL enables it: an all_reduce within one server whose GPUs are all Hopper or newer
/// and reach each other through an NVLink4+ NVSwitch (and, before NCCL 2.28.7, more than 2 GPUs).
bool nvls_supported(const topology::Topology& topo, const calibration::CostModel& cost,
                    const CollectiveOptions& o, const CollectivePlan& p, std::size_t nodes);
/// NCCL's time estimate for NVLS all_reduce of plan `p`, per the release in `o` (the NVLS graph model up
/// to 2.27, nvlsEfficiency from 2.28.3); `per_gpu_bw` is the ring's Simple bus bandwidth, bytes/s.
double nvls_time(const topology::Topology& topo, const calibration::CostModel& cost,
                 const CollectiveOptions& o, const CollectivePlan& p, double per_gpu_bw);
/// NVLS's pipeline for all_reduce of `size` bytes with `heads` (one server's GPUs) on each of `servers`
/// (1: NVLS, more: NVLS_TREE), per NCCL's release and NCCL_NVLS_CHUNKSIZE / NCCL_NVLS_NCHANNELS in `o`
/// (see NvlsPipeline).
NvlsPipeline nvls_pipeline(const topology::Topology& topo, const CollectiveOptions& o,
                           const std::vector<topology::DeviceId>& heads, std::size_t servers, Bytes size);
/// The NVLS plan: one flow per ordered GPU pair through the NVSwitch carrying the data and the
/// pipeline's fill and drain (nvls_pipeline); Simple protocol, steady model.
void plan_nvls(const topology::Topology& topo, const calibration::CostModel& cost, const CollectiveOptions& o,
               ConnectionCache& cache, CollectivePlan& p);

/// NVLS_TREE runs where NCCL enables it: an all_reduce across servers (NCCL 2.18 and later) with the same
/// number of GPUs on each, every server's GPUs able to run NVLS among themselves (nvls_supported).
bool nvls_tree_supported(const topology::Topology& topo, const calibration::CostModel& cost,
                         const CollectiveOptions& o, const CollectivePlan& p, std::size_t nodes);
/// NCCL's time estimate for NVLS_TREE all_reduce of plan `p` (tuning.cc, 2.23 form) on the simulated rates.
double nvls_tree_time(const topology::Topology& topo, const calibration::CostModel& cost,
                      ConnectionCache& cache, const CollectivePlan& p);
/// The NVLS_TREE plan: NVLS inside every server (plan_nvls's flows) and, per GPU index, one flow to the
/// same GPU of the next server carrying the tree's load on its NIC; Simple protocol, steady model.
void plan_nvls_tree(const topology::Topology& topo, const calibration::CostModel& cost,
                    const CollectiveOptions& o, ConnectionCache& cache, CollectivePlan& p);

}  // namespace rigsim::model::detail
