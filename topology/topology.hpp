// The immutable graph of one server: devices (CPU sockets, host bridges, chipsets, PCIe switches,
// GPUs, NICs, NVSwitch fabrics) and the links between them. Built and validated by build_topology()
// (build.hpp); queried for paths, path classes and P2P decisions. Boost.Graph stays inside: the
// public API speaks DeviceId, LinkId and Path.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.hpp"
#include "topology/catalog.hpp"

namespace rigsim::topology {

using DeviceId = std::size_t;
using LinkId = std::size_t;

enum class DeviceKind { Cpu, HostBridge, Chipset, Switch, Gpu, Nic, NvSwitch, NetSwitch };

struct Device {
  DeviceId id = 0;
  std::string name;  // the layout's id, e.g. "gpu0"
  DeviceKind kind = DeviceKind::Gpu;
  std::string model;       // catalog key ("" for host bridges)
  std::string local_name;  // the id within its server: "gpu3" for "n2/gpu3" of a cluster, else the name
  int node = 0;            // server index in a multi-node cluster (0 for a single server)
  int socket = -1;     // index of the CPU socket it belongs to, unique across nodes (-1: NVSwitch, NetSwitch)
  int numa = -1;       // NUMA node (CPU: its first; a socket has numa_nodes of them, numbered from there)
  int numa_nodes = 1;  // CPU: NUMA nodes of the socket (the layout's "nps")
  int lanes = 0;       // lane budget: host bridge lanes, switch lanes, chipset downstream lanes, CPU lanes
  int lanes_used = 0;  // lanes taken by what hangs below it (slots, uplinks, host bridges)
  int pcie_gen = 0;    // highest generation the device supports
  // Catalog entries (exactly one is set, matching `kind`; none for host bridges).
  const GpuSpec* gpu = nullptr;
  const CpuSpec* cpu = nullptr;
  const ChipsetSpec* chipset = nullptr;
  const SwitchSpec* pcie_switch = nullptr;
  const NicSpec* nic = nullptr;
  const NvSwitchSpec* nvswitch = nullptr;
  BytesPerSecond memory_bandwidth;  // CPU: theoretical DRAM bandwidth of the socket
  BytesPerSecond nic_rate;          // NIC: line rate of one port (bytes per second, not bits)
  bool acs_redirect = false;        // switch: P2P between its ports goes up to the root complex
};

enum class LinkKind {
  Pcie,           // a PCIe link (slot, riser, on-board), gen x width
  Internal,       // host bridge <-> its CPU socket (inside the package)
  ChipsetUplink,  // chipset <-> CPU (DMI or PCIe x4)
  InterSocket,    // QPI / UPI / xGMI between sockets
  NvLink,         // NVLink bridge, board wiring, or GPU <-> NVSwitch
  Network,        // NIC port <-> network switch (multi-node clusters)
};

/// A full-duplex link; `bandwidth` is per direction (each direction has its own).
struct Link {
  LinkId id = 0;
  DeviceId up = 0;    // the end nearer the CPU (for NVLink: the first GPU)
  DeviceId down = 0;  // the other end
  LinkKind kind = LinkKind::Pcie;
  int gen = 0;                      // PCIe or NVLink generation (negotiated for PCIe)
  int width = 0;                    // PCIe lanes (negotiated) or NVLink link count
  BytesPerSecond bandwidth;         // per direction, wire rate (inter-socket: links x per-link rate)
  std::string slot;                 // slot id (and port) the link goes through, "" if on-board
  std::string limited_by;           // what set the negotiated gen/width, e.g. "riser x1", "slot x8"
  std::string note;                 // e.g. "QPI x2 links", "NVLink bridge"
  bool declared_effective = false;  // bandwidth is a layout's measured effective rate: no efficiency
};

/// NCCL's path classes, ordered best to worst (NCCL `src/include/graph.h`; see reference nccl.md §d.1).
/// NET: through the network to another server.
enum class PathClass { LOC, NVL, NVB, PIX, PXB, PHB, SYS, NET };

std::string_view to_string(PathClass c);
std::optional<PathClass> parse_path_class(std::string_view s);
std::string_view to_string(DeviceKind k);
std::string_view to_string(LinkKind k);

/// A route between two devices: the devices visited and the links crossed, in order.
struct Path {
  std::vector<DeviceId> devices;
  std::vector<LinkId> links;
  PathClass nccl = PathClass::LOC;  // NCCL's class of this route
  std::string smi;                  // nvidia-smi topo -m class: X, NV#, PIX, PXB, PHB, NODE, SYS
  BytesPerSecond bottleneck;        // smallest per-direction bandwidth along the route
};

class Topology {
 public:
  struct Impl;
  Topology(std::shared_ptr<const Impl> impl);

  const std::string& name() const;
  const std::string& description() const;
  const std::vector<std::string>& notes() const;
  /// PSU capacity the box runs on with its redundant supplies idle, W (0: not declared).
  double psu_w() const;
  /// The box's price as the layout states it, USD (0: not stated), and where it comes from.
  double price_usd() const;
  const std::string& price_source() const;
  bool p2p_patched_driver() const;

  const std::vector<Device>& devices() const;
  const std::vector<Link>& links() const;
  const Device& device(DeviceId id) const;
  const Link& link(LinkId id) const;
  /// Throws std::out_of_range with the name when absent.
  DeviceId find(std::string_view name) const;
  std::optional<DeviceId> try_find(std::string_view name) const;

  /// Device ids of one kind in layout order (e.g. all GPUs: index i is "GPU i").
  std::vector<DeviceId> of_kind(DeviceKind k) const;
  std::vector<DeviceId> gpus() const { return of_kind(DeviceKind::Gpu); }
  std::vector<DeviceId> nics() const { return of_kind(DeviceKind::Nic); }
  std::vector<DeviceId> cpus() const { return of_kind(DeviceKind::Cpu); }
  /// Every device of one server (cluster node), in layout order; built once.
  const std::vector<DeviceId>& node_devices(int node) const;

  /// A device-to-device answer computed once per topology and device by a higher layer (the model's
  /// nearest NIC): `question` names it, `compute` runs on the first ask for `d` (outside any lock).
  std::optional<DeviceId> memo(std::string_view question, DeviceId d,
                               const std::function<std::optional<DeviceId>(DeviceId)>& compute) const;

  /// The PCIe link that connects a device to its parent (GPU, NIC, switch uplink, chipset uplink).
  std::optional<LinkId> uplink(DeviceId d) const;
  /// The CPU socket device a device belongs to.
  DeviceId socket_of(DeviceId d) const;

  /// The route NCCL would prefer: NVLink (direct, via NVSwitch, or through one intermediate GPU)
  /// when present, else the PCIe / inter-socket route.
  Path path(DeviceId a, DeviceId b) const;
  /// The PCIe / chipset / inter-socket route, ignoring NVLink.
  Path pcie_path(DeviceId a, DeviceId b) const;
  /// The NVLink-only route (direct, through an NVSwitch, or via one intermediate GPU), if any.
  std::optional<Path> nvlink_path(DeviceId a, DeviceId b) const;
  /// Number of NVLink links directly joining two GPUs (through an NVSwitch: the links per GPU).
  int nvlink_count(DeviceId a, DeviceId b) const;

  /// Warnings found while building (power, down-trained links); errors throw instead.
  const std::vector<std::string>& warnings() const;

 private:
  /// pcie_path's devices and links (empty when there is no route).
  std::pair<std::vector<DeviceId>, std::vector<LinkId>> pcie_route(DeviceId a, DeviceId b) const;
  std::shared_ptr<const Impl> impl_;
};

/// The devices nvidia-smi topo -m shows, in its order: every GPU, then every NIC.
std::vector<DeviceId> matrix_devices(const Topology& topo);
/// nvidia-smi class strings for every pair of matrix_devices().
std::vector<std::vector<std::string>> smi_matrix(const Topology& topo);

/// What `rocm-smi --showtopo` prints for every pair of GPUs (AMD's terms; topo shows it when the GPUs
/// are AMD). KFD links each GPU to its CPU's NUMA node and the nodes to each other; the tables are
/// derived from those links (ROCm/rocm-systems#7372, MI200 system-optimization guide):
/// - hops: 1 through a GPU-GPU xGMI link, 2 through one CPU socket, 3 through two;
/// - weight: 15 per xGMI hop; 20 per PCIe segment (GPU to its CPU), plus the CPU-to-CPU link's weight
///   across sockets (kRocmInterSocketWeight);
/// - link type: XGMI or PCIE.
struct RocmTopo {
  std::vector<std::vector<int>> weight;
  std::vector<std::vector<int>> hops;
  std::vector<std::vector<std::string>> type;
  std::vector<int> numa;  // per GPU: its NUMA node
};
/// KFD's weight of a CPU-to-CPU link [D]: rocm_smi_lib#108 shows 52 between GPUs on two sockets,
/// 52 - 2 x 20 = 12.
inline constexpr int kRocmInterSocketWeight = 12;
RocmTopo rocm_smi_topo(const Topology& topo);

}  // namespace rigsim::topology
