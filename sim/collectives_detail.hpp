// Private helpers shared by collectives.cpp, collectives_tree.cpp and ring_order.cpp: the route a
// hop's bytes take (with link directions, for contention estimates) and a cache that computes each
// distinct hop of a multi-server cluster once.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/collectives.hpp"

namespace rigsim::sim::detail {

/// One link crossed in one direction: `reverse` is true when the bytes go from link.down to link.up.
struct DirectedLink {
  topology::LinkId link = 0;
  bool reverse = false;
  auto operator<=>(const DirectedLink&) const = default;
};

/// A hop and the links its bytes cross. SHM goes up to the sender's socket and back down.
struct Route {
  Hop hop;
  std::vector<DirectedLink> links;
};

Route route_hop(const topology::Topology& topo, topology::DeviceId src, topology::DeviceId dst,
                const topology::P2pPolicy& policy, std::size_t rank_count);

/// The server a device belongs to (0 for a single server).
int node_of(const topology::Topology& topo, topology::DeviceId d);
/// The device's name within its server: "gpu3" for "n2/gpu3".
std::string_view local_name(const topology::Topology& topo, topology::DeviceId d);

/// Hops by (src, dst). Identical servers of a cluster share their hops: a hop is computed once per
/// (local src name, local dst name, node distance) and re-targeted to the actual devices.
class HopCache {
 public:
  HopCache(const topology::Topology& topo, const topology::P2pPolicy& policy, std::size_t rank_count)
      : topo_(topo), policy_(policy), rank_count_(rank_count) {}
  const Hop& get(topology::DeviceId src, topology::DeviceId dst);

 private:
  const topology::Topology& topo_;
  topology::P2pPolicy policy_;
  std::size_t rank_count_;
  std::map<std::pair<topology::DeviceId, topology::DeviceId>, Hop> by_pair_;
  std::map<std::tuple<std::string, std::string, int>, Hop> by_shape_;
};

/// Per-step latency of a hop under NCCL's rule (nccl.md §d.5): NET across servers; inside a server
/// the NVLINK row when every intra-server hop of the algorithm's graph is NVL, else the PCI row.
Seconds step_latency(const calibration::CostModel& cost, const Hop& hop, bool intra_nvlink);
/// Whether every intra-server hop in `hops` is a direct NVLink (NVL) route.
bool intra_is_nvlink(const topology::Topology& topo, const std::vector<Hop>& hops);

/// Appends a transfer and returns its index.
std::size_t add_transfer(std::vector<Transfer>& out, const Hop& hop, Bytes bytes, Seconds latency,
                         std::vector<std::size_t> after, std::string tag);

/// Tree algorithm (collectives_tree.cpp): fills plan.tree_parents, hops and transfers.
void plan_tree(const topology::Topology& topo, const calibration::CostModel& cost, HopCache& hops,
               const CollectiveOptions& options, CollectivePlan& plan);
/// NCCL's tree latency term: base + 2((ppn-1)·intra + log2(nodes)·inter) (nccl.md §d.5).
Seconds tree_latency(const calibration::CostModel& cost, std::size_t ranks, std::size_t nodes, bool intra_nvlink);
/// Transfers a step-level tree plan would have (to choose the model).
std::size_t tree_step_transfers(std::size_t ranks, const CollectiveOptions& options, Bytes size);

}  // namespace rigsim::sim::detail
