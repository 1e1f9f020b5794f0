// Whether two GPUs can talk peer-to-peer, following NCCL's rules (reference nccl.md §d.3):
// the GPUs must support it (GeForce: no PCIe P2P on stock drivers), the platform must allow it
// (no P2P across Intel sockets; a switch with ACS redirect sends it up to the root complex), and
// the path must be within NCCL's P2P level (default PXB; AMD CPUs with <=2 GPUs: SYS), which the
// user can override like NCCL_P2P_LEVEL / NCCL_P2P_DISABLE.
#pragma once

#include <optional>
#include <string>

#include "topology/topology.hpp"

namespace rigsim::topology {

/// The user's override, as NCCL_P2P_LEVEL / NCCL_P2P_DISABLE would give it.
struct P2pPolicy {
  std::optional<PathClass> level;  // NCCL_P2P_LEVEL; nullopt: NCCL's default rule
  bool disable = false;            // NCCL_P2P_DISABLE=1 (same as level LOC)
};

struct P2pDecision {
  bool allowed = false;
  PathClass path = PathClass::SYS;  // class of the route the traffic would take with P2P
  std::string reason;               // why (not) allowed, for people
};

/// The level NCCL uses by default for `gpu_count` GPUs on this topology.
PathClass default_p2p_level(const Topology& topo, std::size_t gpu_count);

/// Decision for one GPU pair; `gpu_count` is the number of GPUs in the communicator.
P2pDecision decide_p2p(const Topology& topo, DeviceId a, DeviceId b, const P2pPolicy& policy,
                       std::size_t gpu_count);

/// Whether the hardware and driver could do P2P at all between the pair (ignoring NCCL's level):
/// what CUDA's cudaDeviceCanAccessPeer would say.
P2pDecision hardware_p2p(const Topology& topo, DeviceId a, DeviceId b);

}  // namespace rigsim::topology
