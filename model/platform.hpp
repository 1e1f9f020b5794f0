// The simulated platform of one Topology under one CostModel: every link with its effective bandwidth
// and latency, each socket's host memory, and the route a transfer takes for each transport.
//
// A Platform is a plain value (no SimGrid inside): SimGrid 3.32 allows one s4u::Engine per process and
// it cannot be reset, so each simulation instantiates the needed part of the platform in a fresh child
// process (engine/executor.cpp). The value can be built, routed and dumped any number of times.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/cost_model.hpp"
#include "model/task_graph.hpp"
#include "topology/p2p.hpp"
#include "topology/topology.hpp"

namespace rigsim::model {

/// One resource. A duplex link (every Topology link) has `bandwidth` in each direction on its own; a
/// shared link (a socket's host memory, "cpu0/dram"; both directions of a PCIe link together,
/// "rc0<->gpu0/both") is shared by every flow crossing it.
struct PlatformLink {
  std::string name;          // "rc0<->gpu0", "cpu0/dram", "rc0<->gpu0/both"
  BytesPerSecond bandwidth;  // bytes per second: per direction (duplex) or in total (shared)
  Seconds latency;           // seconds added to every flow crossing it
  bool duplex = true;
  topology::DeviceId up = 0;    // duplex: the end nearer the CPU (for DRAM: the socket)
  topology::DeviceId down = 0;  // duplex: the other end
  std::string what;             // for people: "PCIe gen3 x16, wire 15.76 GB/s x 0.82"
  /// The rate NCCL's own topology model gives this link for its decisions (ring and channel search,
  /// protocol choice), bytes per second: for a socket link NCCL's per-CPU constant (BDW 6, SKL 10, SRP
  /// 22, AMD 16 GB/s; CpuSpec::inter_socket_effective_gbs), for every other link `bandwidth`.
  BytesPerSecond nccl_bandwidth;
  /// The most one peer-to-peer transfer moves across this link (link bytes per second;
  /// CpuSpec::inter_socket_flow_gbs for a socket link of a CPU that has one); 0: no limit below `bandwidth`.
  BytesPerSecond flow_cap;
};

/// One link crossed in one direction (the only notion of a directed link in rigsim): `downstream` is
/// from the link's `up` end to its `down` end; a shared link ignores it.
struct Crossing {
  std::size_t link = 0;  // index into Platform::links()
  bool downstream = true;
  auto operator<=>(const Crossing&) const = default;
};

/// What a transfer crosses, in order. A host-staged (SHM) route crosses its socket's memory twice
/// (written by the first leg, read by the second), so it consumes twice its rate there; its two legs
/// pipeline (one flow, no per-flow cap). Routes whose bytes are host DMA (SHM, HostCopy) also cross the
/// "both directions" link of every PCIe / chipset link they use (CostModel::pcie_duplex_efficiency).
struct Route {
  Transport transport = Transport::P2p;  // resolved, never Auto
  std::vector<Crossing> crossings;
  Seconds setup;              // fixed per-transfer latency of the transport (CostModel)
  Seconds latency;            // setup + latencies of the links crossed: a zero-byte transfer's duration
  BytesPerSecond bottleneck;  // best rate alone: min over links of bandwidth / times crossed / wire_per_byte
  /// Link bytes per payload byte, relative to the links' rates (measured with 256-byte TLPs): NCCL's
  /// SM-issued PCIe traffic (P2P, SHM) moves 128-byte TLPs, P2P through an Intel root complex 64-byte
  /// ones (Platform::route). The simulation moves bytes x this.
  double wire_per_byte = 1.0;
  /// P2P routes: the lowest PlatformLink::flow_cap of the links crossed (link bytes per second); the
  /// simulation never runs this transfer faster, whatever the links leave it. 0: none (other transports).
  BytesPerSecond flow_cap;
};

/// The link of a route that limits a lone flow (Platform::route_limit): the smallest bandwidth / times
/// crossed, or the link whose per-transfer limit (Route::flow_cap) is lower still (`capped`).
struct RouteLimit {
  std::size_t link = 0;  // index into Platform::links()
  bool capped = false;   // the per-transfer limit, not the link's share, holds the flow
  std::string name;      // as a person reads it: "gpu0->rc0", "cpu0/dram"
  BytesPerSecond rate;   // that link's share of a lone flow (or the limit), in link bytes
};

/// How two devices talk and what it costs, as NCCL / CUDA would decide it and as the simulation will
/// run it: the one answer every planner, ring search and protocol choice uses (Platform::connect).
/// Invariant under moving both ends to another identical server of a cluster (no link indices here:
/// Platform::route gives the link crossings).
struct Connection {
  topology::DeviceId src = 0;
  topology::DeviceId dst = 0;
  Transport transport = Transport::P2p;                 // resolved, never Auto
  topology::PathClass path = topology::PathClass::LOC;  // NCCL's class of the route the bytes take
  Seconds setup;        // the transport's fixed cost per transfer (Route::setup)
  Seconds latency;      // setup + the links' latencies: a zero-byte transfer's duration (Route::latency)
  BytesPerSecond rate;  // what a lone flow gets in the simulation (Route::bottleneck), bytes per second
  std::string reason;   // the P2P decision, for people
};

/// What NCCL's network transport may do with GPU memory (nccl.md §d.3; paths.cc ncclTopoCheckGdr):
/// GPUDirect RDMA lets the NIC read (send) and write (receive) GPU memory over PCIe; without it the
/// bytes are staged through pinned host memory next to the GPU. Set per process, as NCCL reads it.
struct NetPolicy {
  /// NCCL_NET_GDR_LEVEL: the farthest GPU-NIC path class that uses GDR; nullopt: NCCL's default PXB.
  std::optional<topology::PathClass> gdr_level;
  /// NCCL_NET_GDR_READ: 0 never read GPU memory from the NIC (sends stage), 1 always where GDR is
  /// allowed, -2 NCCL's default: reads only when the GPU is its server's one GPU of the communicator or
  /// has an NVLink peer among them, for every GPU before NCCL 2.19.1 and only before Ampere from it.
  int gdr_read = -2;
  /// The NCCL release (topology::kNcclVersion's encoding) whose default read rule applies.
  int nccl_version = topology::kNcclVersion;
  /// The communicator's GPUs, all servers: NCCL's topology holds only these (topo.cc keeps the ranks'
  /// GPUs), so "alone" and "an NVLink peer" count among them. Empty: every GPU of the server.
  std::vector<topology::DeviceId> gpus;
  /// PXN (NCCL 2.12 on; NCCL_PXN_DISABLE=1 turns it off): a send to another server may leave through
  /// the NIC of another GPU of its server, reached over NVLink (net_exit).
  bool pxn = true;
  bool operator==(const NetPolicy&) const = default;
};

/// Whether NCCL uses GPUDirect RDMA between `gpu` and `nic` for sends (`read`) or receives: both
/// support it (GeForce cards do not: NVIDIA's GPUDirect RDMA guide names Tesla and Quadro class
/// GPUs), the path class is at most the level, and for reads NCCL_NET_GDR_READ's rule. A device that
/// is not a GPU (a CPU socket's memory) is never staged. `reason` says why, for people.
bool uses_gdr(const topology::Topology& topo, topology::DeviceId gpu, topology::DeviceId nic, bool read,
              const NetPolicy& policy, std::string* reason = nullptr);

/// Where a network send from GPU `src` to GPU `dst` on another server leaves `src`'s server: the NIC,
/// and the GPU NCCL relays it through over NVLink first (PXN), if any.
struct NetExit {
  topology::DeviceId nic = 0;
  std::optional<topology::DeviceId> relay;
};

/// NCCL sends to a peer through the NIC of the local GPU with the peer's device index (search.cc
/// ncclTopoGetNetDev, NCCL_P2P_PXN_LEVEL 2), and a ring leaves a server through the NIC it entered by
/// (crossNic 0 first), which on servers of one shape is the NIC of the GPU mirroring the next server's
/// first GPU: both are `dst`'s mirror's nearest NIC. `src` reaches it directly within a PCIe switch
/// (PXB), else relays through the mirror when paths.cc's PXN conditions hold (the mirror joined to `src`
/// by NVLink, itself within PXB of the NIC with GPUDirect RDMA); otherwise, or with PXN disabled, or
/// without a mirror, the send leaves through `src`'s own nearest NIC. nullopt: `src`'s server has no NIC.
std::optional<NetExit> net_exit(const topology::Topology& topo, topology::DeviceId src,
                                topology::DeviceId dst, const NetPolicy& policy);

/// Per Topology link: whether it is a PCIe (or host bridge) link that only Hopper / Blackwell GPUs' paths
/// to their sockets cross (no older GPU's). Those links move CostModel::pcie_efficiency_sm90 of the wire:
/// these GPUs fill a link to about its TLP ceiling, older ones leave it at pcie_efficiency.
std::vector<bool> sm90_only_links(const topology::Topology& t);

class Platform {
 public:
  Platform(topology::Topology topology, calibration::CostModel cost, NetPolicy net = {});

  const topology::Topology& topology() const { return topo_; }
  const calibration::CostModel& cost_model() const { return cost_; }
  const NetPolicy& net_policy() const { return net_; }
  /// Links: index i < topology().links().size() models Topology link i; then one DRAM link per NUMA
  /// node (one per socket unless the layout sets "nps"); then one "both directions" link per PCIe /
  /// chipset-uplink link (see both_of).
  const std::vector<PlatformLink>& links() const { return links_; }
  /// Index of the host-memory link of a CPU socket device (its first NUMA node).
  std::size_t dram_of(topology::DeviceId socket) const;
  /// Index of the host-memory link a copy between `socket` and `device` uses: the device's own NUMA
  /// node when it sits on that socket (pinned buffers allocated where the process runs, next to its
  /// GPU), else the socket's first node.
  std::size_t dram_for(topology::DeviceId socket, topology::DeviceId device) const;
  /// Index of the shared link that both directions of Topology link `link` cross when they carry host
  /// DMA (capacity pcie_duplex_efficiency x 2 x wire); nullopt for links without one (NVLink, network,
  /// inter-socket, host bridge to CPU).
  std::optional<std::size_t> both_of(topology::LinkId link) const;
  /// Whether Topology link `link` moves pcie_efficiency_sm90 (sm90_only_links, computed once here).
  bool sm90_only(topology::LinkId link) const { return link < sm90_only_.size() && sm90_only_[link]; }

  /// The route of a transfer with a resolved transport. P2p: Topology::path (NVLink when present);
  /// Shm: GPU -> its socket's memory -> GPU over PCIe; HostCopy: a socket's memory <-> a device (crossing
  /// the inter-socket link when remote); Net: GPU -> the NIC net_exit names (over NVLink to its relay GPU
  /// first where PXN applies; over PCIe with GPUDirect RDMA, else through pinned host memory next to the GPU)
  /// -> the network -> the peer's NIC -> GPU; within one server the sender's NIC loops back (NCCL_SHM_DISABLE
  /// without P2P). Throws std::invalid_argument when the transport cannot join the two devices (e.g. SHM
  /// between two servers, HostCopy without a CPU). `host_memory_near` (HostCopy only): the host end's memory
  /// is that of this device's NUMA node (dram_for) rather than the device end's.
  Route route(topology::DeviceId src, topology::DeviceId dst, Transport transport,
              std::optional<topology::DeviceId> host_memory_near = std::nullopt) const;

  /// The transport NCCL / CUDA would use between two devices: `requested` unless it is Auto; Auto gives
  /// HostCopy when one end is a CPU socket, Net between servers, P2p when topology::decide_p2p allows it
  /// for a communicator of `gpu_count` GPUs under `policy`, else Shm.
  Transport resolve_transport(topology::DeviceId src, topology::DeviceId dst, Transport requested,
                              const topology::P2pPolicy& policy, std::size_t gpu_count) const;

  /// How two ranks of a communicator of `rank_count` GPUs talk (reference nccl.md §d.3): P2P over
  /// NVLink or PCIe when NCCL's rule allows it, else SHM through pinned host memory of the sender's
  /// socket (class PHB, or SYS across sockets); NET between servers. Setup, latency and rate come from
  /// route() of that transport, so what a planner assumes is what the simulation runs.
  Connection connect(topology::DeviceId src, topology::DeviceId dst, const topology::P2pPolicy& policy,
                     std::size_t rank_count) const;

  /// What a copy-engine byte (cudaMemcpyPeer) costs on the P2P route from src to dst, in the route's own
  /// bytes (Route::wire_per_byte counts NCCL's SM-issued traffic): copy engines move 256-byte TLPs on
  /// PCIe (64-byte ones through an Intel root complex, as SMs) and 256-byte NVLink payloads.
  double copy_engine_share(topology::DeviceId src, topology::DeviceId dst) const;
  /// What an SM (kernel) store to pinned host memory costs on a host-copy route, whose PCIe rates are
  /// copy engines' (256-byte TLPs): SMs store 128-byte payloads, tlp_cost(128) = 1.072.
  static double sm_host_store_share();

  /// "gpu0->rc0" for a duplex link crossed in one direction, "cpu0/dram" for a shared one.
  std::string crossing_name(const Crossing& hop) const;
  /// The link that limits a lone flow on `r` (the one Route::bottleneck comes from); nullopt for a route
  /// that crosses no link.
  std::optional<RouteLimit> route_limit(const Route& r) const;

  /// Deterministic text for --dump-platform and golden tests: network model, hosts, links with
  /// bandwidths (GB/s) and latencies (us), and the routes between GPUs and to/from host memory.
  std::string dump() const;

 private:
  void add_topology_links();
  void add_dram_links();
  void add_both_links();
  void add_both_crossings(Route& r) const;
  void append_path(Route& r, const topology::Path& p) const;
  /// `from` -> pinned host memory next to `near` (its socket, its NUMA node) -> `to`, over PCIe; the
  /// memory is crossed twice (written by one side, read by the other).
  void append_through_host(Route& r, topology::DeviceId from, topology::DeviceId to,
                           topology::DeviceId near) const;
  /// The located error for a pair that, without P2P and SHM, would need a NIC the server lacks.
  void require_loopback_nic(topology::DeviceId src, topology::DeviceId dst) const;
  Route staged_route(topology::DeviceId src, topology::DeviceId dst) const;
  Route host_copy_route(topology::DeviceId src, topology::DeviceId dst,
                        std::optional<topology::DeviceId> near) const;
  Route net_route(topology::DeviceId src, topology::DeviceId dst) const;
  bool net_leg(Route& r, topology::DeviceId gpu, topology::DeviceId nic, bool send) const;
  void finish(Route& r) const;

  topology::Topology topo_;
  calibration::CostModel cost_;
  NetPolicy net_;
  std::vector<PlatformLink> links_;
  std::map<std::pair<int, int>, std::size_t> dram_;  // per (server, NUMA node): its DRAM link
  std::vector<std::optional<std::size_t>> both_;  // per Topology link: its "both directions" link
  std::vector<bool> sm90_only_;                   // per Topology link: sm90_only_links
};

std::string_view to_string(Transport t);

/// The NIC a device's inter-server traffic leaves (or arrives) through, as NCCL gives each GPU its
/// local NIC (nccl.md §d.3 item 8, §d.4: ncclTopoGetLocalNet): among the NICs of its server, the fewest
/// PCIe links away (a NIC under the same switch first), then the fastest path; when several NICs are
/// equally close, the GPUs that share that set take them in turn (k-th GPU by id -> k-th NIC), so every
/// GPU of a rail-optimised server (DGX: two GPUs and two NICs per switch) gets its own NIC. A NIC is
/// its own; nullopt when the server has no NIC.
std::optional<topology::DeviceId> nearest_nic(const topology::Topology& topo, topology::DeviceId device);

}  // namespace rigsim::model
