// Whether two GPUs can talk peer-to-peer, following NCCL's rules (reference nccl.md §d.3):
// the GPUs must support it (GeForce: no PCIe P2P on stock drivers), the platform must allow it
// (no P2P across Intel sockets; a switch with ACS redirect sends it up to the root complex), and
// the path must be within NCCL's P2P level, which the user can override like NCCL_P2P_LEVEL /
// NCCL_P2P_DISABLE. The default level depends on the NCCL release (ncclTopoCheckP2p, read at every tag
// from v2.18.1 to v2.30.7): before 2.23.4 SYS, PXB on Intel CPUs; from 2.23.4 PXB, SYS on AMD CPUs
// when the communicator has at most 2 GPUs on the host.
#pragma once

#include <optional>
#include <string>

#include "topology/topology.hpp"

namespace rigsim::topology {

/// The NCCL release whose rules rigsim follows unless told otherwise (reference nccl.md: 2.30.7), as
/// NCCL_VERSION_CODE writes it: major x 10000 + minor x 100 + patch.
inline constexpr int kNcclVersion = 23007;

/// "2.21.5" or "2.21" -> 22105 / 22100, also with the package build or CUDA tag NCCL's tools print
/// ("2.21.5-1", "2.21.5+cuda12.4", "2.21.5-1+cuda12.4"); throws std::invalid_argument for anything else
/// or a release before 2.0.
int parse_nccl_version(const std::string& text);

/// NCCL_VERSION_CODE (ncclGetVersion, nccl-tests' "nccl-library=") as a release: from 2.9 major x 10000
/// + minor x 100 + patch, before it major x 1000 + minor x 100 + patch (nccl.h's NCCL_VERSION):
/// 22803 -> "2.28.3", 2804 -> "2.8.4".
std::string nccl_release_of(long code);

/// The user's override, as NCCL_P2P_LEVEL / NCCL_P2P_DISABLE would give it, and the NCCL release.
struct P2pPolicy {
  std::optional<PathClass> level;   // NCCL_P2P_LEVEL; nullopt: NCCL's default rule
  bool disable = false;             // NCCL_P2P_DISABLE=1 (same as level LOC)
  int nccl_version = kNcclVersion;  // whose default P2P level applies
  /// NCCL_SHM_DISABLE=1: where P2P is not used, NCCL's network transport (loopback through the
  /// sender's NIC) instead of staging through host memory (model::Platform::connect).
  bool shm_disable = false;
};

struct P2pDecision {
  bool allowed = false;
  PathClass path = PathClass::SYS;  // class of the route the traffic would take with P2P
  std::string reason;               // why (not) allowed, for people
};

/// The level NCCL `nccl_version` uses by default when the communicator has `gpu_count` GPUs on the
/// host. The CPU is the host's first one (NCCL's ncclTopoCpuType reads its first CPU node).
PathClass default_p2p_level(const Topology& topo, std::size_t gpu_count, int nccl_version = kNcclVersion);

/// Decision for one GPU pair; `gpu_count` is the number of the communicator's GPUs on their host.
P2pDecision decide_p2p(const Topology& topo, DeviceId a, DeviceId b, const P2pPolicy& policy,
                       std::size_t gpu_count);

/// Whether the hardware and driver could do P2P at all between the pair (ignoring NCCL's level), as
/// NCCL sees it: NVLink, directly, through an NVSwitch or through an intermediate GPU (NCCL's PATH_NVB,
/// which its P2P transport crosses by staging in that GPU's memory), else PCIe P2P.
P2pDecision hardware_p2p(const Topology& topo, DeviceId a, DeviceId b);

/// What CUDA's cudaDeviceCanAccessPeer says for the pair: a direct NVLink connection (or one through an
/// NVSwitch), else PCIe P2P. NVLink through an intermediate GPU is no peer connection for the driver:
/// a DGX-1's p2pBandwidthLatencyTest prints "Device=0 CANNOT Access Peer Device=5" and stages those
/// copies through the host. Where such a pair could use PCIe P2P instead, the driver's copy crosses
/// PCIe; rigsim routes a peer copy over the pair's NVLink path, so that case (no catalog layout has it)
/// is reported as peer access but timed on NVLink.
P2pDecision driver_peer_access(const Topology& topo, DeviceId a, DeviceId b);

}  // namespace rigsim::topology
