// Catalogs of real hardware: GPUs, CPU families, chipsets, PCIe switches, NICs and NVSwitch
// generations. The parts are data: catalog/*.json in the repository, embedded in the executable at
// build time and read (strictly, like a layout) at the first look-up. Users add parts without a
// rebuild: `rigsim --catalog FILE` and a layout's "parts" section (add_catalog_parts), in the same
// schema; a declared part may start from a known one ("like") and give only what differs.
//
// Every number carries its source (datasheet, whitepaper, measurement) in `source`;
// `../shared/reference/hardware.md` is where the built-in sources were gathered. Values that could not
// be confirmed say so in `source` ("[R]": recalled, unconfirmed; "[D]": derived by the stated
// arithmetic).
//
// Keys are lowercase, hyphenated, and are what layout files use in their "model" fields.
#pragma once

#include <boost/iterator/indirect_iterator.hpp>
#include <boost/range/iterator_range.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rigsim::topology {

enum class Vendor { Nvidia, Amd, Intel, Broadcom, Microchip, Mellanox, Other };

/// One GPU model. Rates are dense (no 2:4 sparsity), per GPU, decimal units (1 GB/s = 1e9 B/s).
/// How far above its rated power a card's load peaks for a few microseconds to milliseconds: the GPU
/// generation whose published measurements apply (topology/power.cpp holds the ratios and sources).
/// Cards with no measurement get the PCIe CEM 5.0 excursion envelope, the limit the spec allows.
enum class PowerTransients { Cem5Envelope, GeforceAmpere, Geforce3090Ti, GeforceAda, GeforceBlackwell };

struct GpuSpec {
  std::string_view key;   // e.g. "rtx-3090"
  std::string_view name;  // e.g. "GeForce RTX 3090"
  Vendor vendor;
  bool geforce;                // consumer card: FP32-accumulate tensor math at half rate, no stock PCIe P2P
  double memory_gb;            // device memory, GB
  double memory_bw_gbs;        // device memory bandwidth, GB/s
  double fp16_fp32acc_tflops;  // FP16/BF16 tensor math with FP32 accumulate (what bf16 training uses)
  double fp16_fp16acc_tflops;  // FP16 tensor math with FP16 accumulate
  double fp32_tflops;          // plain FP32 (non-tensor)
  int pcie_gen;                // host link generation the card supports
  int pcie_width;              // host link lanes
  int nvlink_gen;              // 0 when the card has no NVLink
  int nvlink_links;            // NVLink links per GPU (bridge: links in the bridge)
  double nvlink_link_gbs;      // per link, per direction, GB/s (wire rate)
  bool nvlink_bridge;          // NVLink is a bridge between two PCIe cards (vs SXM board wiring)
  bool p2p_stock;              // PCIe peer-to-peer with the stock driver
  bool p2p_patchable;          // a patched driver (tinygrad open-gpu-kernel-modules) enables PCIe P2P
  int sm;                      // CUDA compute capability x10 (NCCL's "sm"), 0 for AMD
  double tdp_w;                // board power, W
  double used_price_usd;       // typical used price, USD; 0 when unknown
  // For the compute cost model (calibration/compute): tiles of a GEMM run in waves over the SMs, and
  // the tensor formats below have their own peaks.
  int sm_count;        // streaming multiprocessors (AMD: compute units); per GPU die
  double tf32_tflops;  // TF32 tensor math (FP32 inputs on tensor cores); 0 when the card has none
  double fp8_tflops;   // FP8 tensor math with FP32 accumulate; 0 when the card has none (before Ada/Hopper)
  // AMD Infinity Fabric (xGMI) links to other GPUs, through a bridge card (MI100, MI210) or the board
  // (MI300X on an OAM baseboard); 0 for NVIDIA cards and AMD cards without them.
  int xgmi_links;                    // links per GPU
  double xgmi_link_gbs;              // per link, per direction, GB/s (wire rate)
  PowerTransients power_transients;  // whose transient measurements apply (power checks)
  std::string_view source;
};

enum class InterSocketKind { None, Qpi, Upi, Xgmi };

/// One CPU family / socket type.
struct CpuSpec {
  std::string_view key;   // e.g. "xeon-e5-v4"
  std::string_view name;  // e.g. "Intel Xeon E5-2600 v4 (Broadwell-EP)"
  Vendor vendor;
  int pcie_gen;            // generation of the CPU's PCIe lanes
  int pcie_lanes;          // PCIe lanes per socket (including any chipset link)
  int memory_channels;     // DRAM channels per socket
  double memory_bw_gbs;    // theoretical DRAM bandwidth per socket, GB/s
  bool root_port_per_x16;  // true: each x16 root port is its own host bridge (EPYC); false: one per socket
  InterSocketKind inter_socket;       // socket-to-socket link kind (None for single-socket parts)
  int inter_socket_links;             // links between two sockets in a 2P system (default wiring)
  double inter_socket_link_gbs;       // per link, per direction, theoretical GB/s
  double inter_socket_effective_gbs;  // effective GB/s for GPU traffic across sockets (NCCL's model)
  // The most one peer-to-peer transfer (a GPU pair's copy or NCCL P2P connection) moves across the
  // socket links, GB/s of link bytes, measured; 0: no limit below the links' own rate.
  double inter_socket_flow_gbs;
  bool p2p_across_sockets;  // PCIe P2P between devices on different sockets is supported
  int cpuid_family;         // for NCCL XML export (familyid)
  int cpuid_model;          // for NCCL XML export (modelid)
  double tdp_w;             // typical TDP of the family, W
  // Places DRAM attaches inside one socket: the I/O die's quadrants (EPYC 7002+, Threadripper PRO) or
  // the dies that carry memory controllers (EPYC 7001, Threadripper 1000/2000); 1 for one memory
  // domain. A layout's "nps" (NUMA nodes per socket) may split the socket into up to this many nodes.
  int numa_domains;
  std::string_view source;
};

/// A desktop or workstation chipset (PCH / Promontory): devices behind it share its uplink.
struct ChipsetSpec {
  std::string_view key;  // e.g. "x570"
  std::string_view name;
  int uplink_gen;  // uplink to the CPU (DMI counts as the PCIe gen it matches)
  int uplink_width;
  int downstream_gen;    // generation of the lanes it provides
  int downstream_lanes;  // general-purpose lanes it provides
  std::string_view source;
};

/// A PCIe switch chip.
struct SwitchSpec {
  std::string_view key;  // e.g. "pex8747"
  std::string_view name;
  Vendor vendor;
  int gen;
  int lanes;          // total lanes (upstream + downstream)
  double latency_ns;  // cut-through latency port to port, ns
  bool p2p;           // forwards peer-to-peer between downstream ports
  std::string_view source;
};

/// A network adapter.
struct NicSpec {
  std::string_view key;  // e.g. "connectx-4-100g"
  std::string_view name;
  Vendor vendor;
  double speed_gbps;  // line rate per port, Gbit/s
  int ports;
  int pcie_gen;
  int pcie_width;
  bool gpudirect_rdma;  // supports GPUDirect RDMA
  std::string_view source;
};

/// An NVSwitch generation (one switch chip).
struct NvSwitchSpec {
  std::string_view key;  // e.g. "nvswitch-gen2"
  std::string_view name;
  int nvlink_gen;
  int ports;        // NVLink ports per chip
  double link_gbs;  // per link, per direction, GB/s
  std::string_view source;
};

/// A riser or cable between a slot and a card: what it does to the link's generation and width.
struct RiserPart {
  std::string_view key;  // e.g. "usb-x1"
  std::string_view name;
  int gen;       // highest generation it carries reliably (the link trains no higher)
  int width;     // lanes it carries
  bool retimed;  // re-times (retimer) or re-drives (redriver) the signal, so its length does not cost a
                 // generation
  std::string_view source;
};

/// PCIe generation table: per-lane, per-direction wire rate after line encoding.
struct PcieGenSpec {
  int gen;
  double gts;       // transfer rate, GT/s
  double lane_gbs;  // GB/s per lane per direction after encoding
  std::string_view source;
};

/// The parts of one kind in catalog order (built-in parts in file order, then user parts; a user part
/// that shadows a built-in one takes its place). Iterates as `const Spec&`. Parts never move: a
/// pointer from find_*() stays valid, with its values, for the life of the process.
template <typename Spec>
using PartList =
    boost::iterator_range<boost::indirect_iterator<typename std::vector<const Spec*>::const_iterator>>;

PartList<GpuSpec> gpu_catalog();
PartList<CpuSpec> cpu_catalog();
PartList<ChipsetSpec> chipset_catalog();
PartList<SwitchSpec> switch_catalog();
PartList<NicSpec> nic_catalog();
PartList<NvSwitchSpec> nvswitch_catalog();
PartList<RiserPart> riser_catalog();
std::span<const PcieGenSpec> pcie_generations();

/// Look-ups by key; nullptr when the key is unknown.
const GpuSpec* find_gpu(std::string_view key);
const CpuSpec* find_cpu(std::string_view key);
const ChipsetSpec* find_chipset(std::string_view key);
const SwitchSpec* find_switch(std::string_view key);
const NicSpec* find_nic(std::string_view key);
const NvSwitchSpec* find_nvswitch(std::string_view key);
const RiserPart* find_riser(std::string_view key);
/// Throws std::out_of_range for a generation outside 1..6.
const PcieGenSpec& pcie_gen(int gen);

/// All keys of a catalog, for "did you mean" suggestions and `--help` listings.
std::vector<std::string> gpu_keys();
std::vector<std::string> cpu_keys();
std::vector<std::string> chipset_keys();
std::vector<std::string> switch_keys();
std::vector<std::string> nic_keys();
std::vector<std::string> nvswitch_keys();
std::vector<std::string> riser_keys();

/// The kinds of part, as catalog files and `rigsim catalog` name them: "gpus", "cpus", "chipsets",
/// "switches", "nics", "nvswitches", "risers".
const std::vector<std::string>& part_kinds();
/// Every part of one kind with every value and its source, in the catalog file schema.
nlohmann::json parts_json(const std::string& kind);
/// Where the part `key` of `kind` was declared: "built-in", or the user's file (and pointer); "" when
/// no such part.
std::string part_origin(const std::string& kind, std::string_view key);

/// Adds the parts of a catalog document: an object whose keys are part kinds, each an array of parts
/// in the built-in schema. A part with "like": KEY starts from that part (declared earlier in the same
/// document, by the user, or built in) and gives only what differs; "key", "name" and "source" are
/// always its own. Validated strictly (unknown keys, types, ranges, consistency) with errors located
/// in `file` under `pointer`. Returns one note per part that shadows a built-in part or replaces a
/// user part declared elsewhere with other values; re-declaring a part with the same values is silent.
std::vector<std::string> add_catalog_parts(const nlohmann::json& doc, const std::string& file,
                                           const std::string& pointer);
/// add_catalog_parts of a whole file (`rigsim --catalog FILE`).
std::vector<std::string> load_catalog_file(const std::string& path);

/// Per-direction wire bandwidth of a PCIe link, GB/s: width x per-lane rate of the generation.
double pcie_link_gbs(int gen, int width);

std::string_view to_string(Vendor v);
std::string_view to_string(InterSocketKind k);
std::string_view to_string(PowerTransients p);

}  // namespace rigsim::topology
