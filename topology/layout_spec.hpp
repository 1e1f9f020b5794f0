// The intermediate description of a server, between input files and the Topology (parse ->
// describe -> validate and build, as SST-core does). Both the layout JSON reader and the NCCL XML
// importer produce a LayoutSpec; build_topology() validates it and builds the immutable Topology.
// `where` fields hold the location of each entry in its input (a JSON pointer or an XML line) so
// validation errors can point at it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/power.hpp"

namespace rigsim::topology {

/// A riser between a slot and a card (e.g. a USB "x1" mining riser, a Gen3 ribbon riser).
struct RiserSpec {
  int gen = 0;        // highest generation the riser carries (0 = no limit)
  int width = 0;      // lanes the riser carries (0 = no limit)
  std::string kind;   // free text: "usb-x1", "ribbon", "slimsas" (the catalog key with a model)
  std::string model;  // catalog riser key ("" when described by hand)
};

/// How a PCIe device (GPU, NIC, switch, chipset) attaches: into a slot (optionally one port of a
/// bifurcated slot), or directly to a parent (host bridge, switch, chipset) with an on-board link.
struct PcieAttach {
  std::string slot;    // slot id, or "" for an on-board link
  int port = -1;       // port of a bifurcated slot, -1 when not bifurcated
  std::string parent;  // on-board parent id when slot is ""
  int gen = 0;         // on-board link generation (0 = from the devices)
  int width = 0;       // on-board link width (0 = from the devices)
  std::optional<RiserSpec> riser;
  std::string where;
};

struct CpuEntry {
  std::string id;
  std::string model;         // CpuSpec key
  int socket = 0;            // physical socket index
  int numa = -1;             // NUMA node (-1: same as socket)
  int reserved_lanes = 0;    // CPU lanes used by things outside the model (M.2 NVMe, onboard devices)
  double memory_bw_gbs = 0;  // override of the catalog's DRAM bandwidth (0: catalog)
  int nps = 1;               // NUMA nodes per socket (AMD NPS1/2/4; Threadripper 1000/2000 UMA = 1, NUMA = 2)
  std::string where;
};

struct HostBridgeEntry {
  std::string id;
  std::string cpu;
  int lanes = 16;     // lanes of this root complex / root port group
  int quadrant = -1;  // memory domain of the socket it sits in (I/O-die quadrant or die); -1: spread
  std::string where;
};

struct ChipsetEntry {
  std::string id;
  std::string model;   // ChipsetSpec key
  std::string parent;  // host bridge (or CPU) id it hangs off
  std::string where;
};

struct SlotEntry {
  std::string id;
  std::string parent;            // host bridge, switch or chipset id
  int gen = 0;                   // slot generation (0: parent's)
  int width = 16;                // electrical width
  std::vector<int> bifurcation;  // widths of the ports when bifurcated, e.g. {4,4,4,4}; empty = not split
  int position = 0;              // physical place on the board counted in slot pitches (0: not given)
  std::string where;
};

struct SwitchEntry {
  std::string id;
  std::string model;          // SwitchSpec key
  PcieAttach attach;          // the uplink
  bool acs_redirect = false;  // ACS P2P redirect on: P2P between its ports bounces via the root complex
  std::string where;
};

struct GpuEntry {
  std::string id;
  std::string model;  // GpuSpec key
  PcieAttach attach;
  std::string where;
};

struct NicEntry {
  std::string id;
  std::string model;  // NicSpec key
  PcieAttach attach;
  double speed_gbps = 0;  // override of the catalog line rate (0: catalog)
  std::string where;
};

/// NVLink between two GPUs: a bridge (PCIe cards) or board wiring (SXM).
struct NvLinkEntry {
  std::string a, b;
  int links = 0;  // 0: from the GPU catalog (bridge: all the card's links)
  bool bridge = true;
  std::string where;
};

/// AMD Infinity Fabric (xGMI) links between GPUs: a bridge card over two or four cards (MI100, MI210)
/// or the board's wiring (MI300X). Every pair of `gpus` is joined directly.
struct XgmiEntry {
  std::vector<std::string> gpus;
  int links = 0;  // links per pair (0: the card's links shared evenly among its peers, at least 1)
  bool bridge = true;
  std::string where;
};

/// One NVSwitch fabric (NCCL folds all switch chips of a baseboard into one node).
struct NvSwitchEntry {
  std::string id;
  std::string model;  // NvSwitchSpec key
  int chips = 1;      // switch chips on the baseboard (for display)
  std::vector<std::string> gpus;
  int links_per_gpu = 0;  // 0: the GPU's NVLink count
  std::string where;
};

/// Socket-to-socket link (QPI / UPI / xGMI).
struct InterSocketEntry {
  std::string a, b;          // CPU ids
  int links = 0;             // 0: the CPU catalog's default wiring
  double effective_gbs = 0;  // override of the effective per-direction bandwidth (0: catalog)
  std::string where;
};

/// The power supplies: `units` of `unit_w` each, `redundant` of them spares (N+N, N+1), of one kind.
/// A layout's "psu_w" is one ATX 3.x unit of that capacity.
struct PsuSpec {
  power::PsuKind kind = power::PsuKind::Atx3;
  int units = 1;
  double unit_w = 0;  // 0: no PSU declared, no power checks
  int redundant = 0;
  /// The capacity the box runs on with its spares idle, W.
  double capacity_w() const { return (units - redundant) * unit_w; }
};

struct LayoutSpec {
  std::string file;  // where it was read from, for errors
  std::string name;
  std::string description;
  std::vector<std::string> notes;  // sources and assumptions
  /// What a reader had to guess or ignore (e.g. the NCCL XML importer), shown as topology warnings.
  std::vector<std::string> import_warnings;
  PsuSpec psu;                      // the power supplies (unit_w 0: not declared)
  double price_usd = 0;             // what the whole box costs, USD (0: not declared)
  std::string price_source;         // where that price comes from (a listing, a quote, a date)
  bool p2p_patched_driver = false;  // tinygrad-style patched driver enables GeForce PCIe P2P
  /// The layout's own parts ("parts": the catalog schema), as written; already added to the catalog
  /// when the layout was read. Null when the layout declares none.
  nlohmann::json parts;
  std::vector<CpuEntry> cpus;
  std::vector<HostBridgeEntry> host_bridges;
  std::vector<ChipsetEntry> chipsets;
  std::vector<SlotEntry> slots;
  std::vector<SwitchEntry> switches;
  std::vector<GpuEntry> gpus;
  std::vector<NicEntry> nics;
  std::vector<NvLinkEntry> nvlinks;
  std::vector<XgmiEntry> xgmi;
  std::vector<NvSwitchEntry> nvswitches;
  std::vector<InterSocketEntry> inter_socket;
};

}  // namespace rigsim::topology
