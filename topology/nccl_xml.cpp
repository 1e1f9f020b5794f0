// NCCL topology XML: the tables shared by the importer (nccl_xml_import.cpp) and the exporter
// (nccl_xml_export.cpp), and load_nccl_xml(). A dump names devices by PCI id, CUDA sm and CPUID;
// these tables turn those into catalog keys. PCI ids are from the PCI ID Repository
// (pci-ids.ucw.cz), recalled [R], not re-checked; where the dump does not identify a device the
// choice is a documented guess and the importer records it in the layout's notes.
#include "topology/nccl_xml.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/catalog.hpp"
#include "topology/nccl_xml_ids.hpp"

namespace rigsim::topology {
namespace nccl_xml {
namespace {

struct PciModel {
  PciId id;
  std::string_view key;
};

// Tables keep a few rows per line; clang-format would put each row on its own.
// clang-format off
// GPUs. Several ids may map to one key; the first row of a key is the id the exporter writes.
// V100 SXM2: 1db1 is the 16 GB and 1db5 the 32 GB board, so 1db5 maps to v100-sxm2-32gb.
constexpr auto kGpuIds = std::to_array<PciModel>({
    {{0x10de, 0x102d}, "tesla-k80"},        {{0x10de, 0x17fd}, "tesla-m40"},
    {{0x10de, 0x1b38}, "tesla-p40"},        {{0x10de, 0x15f8}, "tesla-p100-pcie-16gb"},
    {{0x10de, 0x1db4}, "v100-pcie"},        {{0x10de, 0x1db6}, "v100-pcie-32gb"},
    {{0x10de, 0x1df6}, "v100s-pcie"},       {{0x10de, 0x1db1}, "v100-sxm2"},
    {{0x10de, 0x1db5}, "v100-sxm2-32gb"},   {{0x10de, 0x20f1}, "a100-pcie-40gb"},
    {{0x10de, 0x20b5}, "a100-pcie-80gb"},   {{0x10de, 0x20b0}, "a100-sxm4-40gb"},
    {{0x10de, 0x20b2}, "a100-sxm4-80gb"},   {{0x10de, 0x2331}, "h100-pcie"},
    {{0x10de, 0x2330}, "h100-sxm5"},        {{0x10de, 0x2335}, "h200-sxm"},
    {{0x10de, 0x26b9}, "l40s"},             {{0x10de, 0x1e30}, "quadro-rtx-6000"},
    {{0x10de, 0x24b0}, "rtx-a4000"},        {{0x10de, 0x2231}, "rtx-a5000"},
    {{0x10de, 0x2230}, "rtx-a6000"},        {{0x10de, 0x26b1}, "rtx-6000-ada"},
    {{0x10de, 0x1e07}, "rtx-2080-ti"},      {{0x10de, 0x1e04}, "rtx-2080-ti"},
    {{0x10de, 0x1e02}, "titan-rtx"},        {{0x10de, 0x2504}, "rtx-3060-12gb"},
    {{0x10de, 0x2503}, "rtx-3060-12gb"},    {{0x10de, 0x2482}, "rtx-3070-ti"},
    {{0x10de, 0x2204}, "rtx-3090"},         {{0x10de, 0x2203}, "rtx-3090-ti"},
    {{0x10de, 0x2684}, "rtx-4090"},         {{0x10de, 0x2b85}, "rtx-5090"},
    {{0x1002, 0x73bf}, "rx-6800"},          {{0x1002, 0x744c}, "rx-7900-xtx"},
    {{0x1002, 0x738c}, "mi100"},            {{0x1002, 0x740f}, "mi210"},
});

// PCIe switches. The PEX 9765 (DGX-1) has no catalog entry: pex9797, the same PEX9700 family with
// more lanes. Broadcom 1000:c010 is the PEX88000 (Gen4) and 1000:c030 the PEX89000 (Gen5) family,
// the ids NCCL's getBcmGen() tests (nccl.md §d.2).
constexpr auto kSwitchIds = std::to_array<PciModel>({
    {{0x10b5, 0x8648}, "pex8648"}, {{0x10b5, 0x8747}, "pex8747"}, {{0x10b5, 0x8748}, "pex8748"},
    {{0x10b5, 0x8749}, "pex8749"}, {{0x10b5, 0x8764}, "pex8764"}, {{0x10b5, 0x8780}, "pex8780"},
    {{0x10b5, 0x8796}, "pex8796"}, {{0x10b5, 0x9797}, "pex9797"}, {{0x10b5, 0x9765}, "pex9797"},
    {{0x1000, 0xc010}, "pex88096"}, {{0x1000, 0xc030}, "pex89144"},
});

// NICs. 15b3:101e (the ConnectX mlx5 virtual function seen in VMs) is deliberately absent: its
// speed decides.
constexpr auto kNicIds = std::to_array<PciModel>({
    {{0x15b3, 0x1003}, "connectx-3-fdr"},    {{0x15b3, 0x1007}, "connectx-3-fdr"},
    {{0x15b3, 0x1013}, "connectx-4-100g"},   {{0x15b3, 0x1017}, "connectx-5-100g"},
    {{0x15b3, 0x1019}, "connectx-5-100g"},   {{0x15b3, 0x101b}, "connectx-6-200g"},
    {{0x15b3, 0x101d}, "connectx-6dx-100g"}, {{0x15b3, 0x1021}, "connectx-7-400g"},
    {{0x8086, 0x1528}, "intel-x540-10g"},    {{0x8086, 0x1563}, "intel-x550-10g"},
    {{0x8086, 0x1521}, "intel-i350-1g"},     {{0x1d6a, 0x07b1}, "aquantia-aqc107-10g"},
});

// Intel family 6 model numbers (Intel SDM vol. 4 table 2-1, [R]). Sapphire Rapids (0x8F) and
// Emerald Rapids (0xCF) both map to xeon-scalable-4, the newest Xeon in the catalog. Skylake-SP and
// Cascade Lake share model 0x55 (only the stepping differs, which dumps omit): xeon-scalable-2.
struct CpuidModel {
  int model;
  std::string_view key;
};
constexpr auto kIntelModels = std::to_array<CpuidModel>({
    {45, "xeon-e5-v1"},       {62, "xeon-e5-v2"},       {63, "xeon-e5-v3"},       {79, "xeon-e5-v4"},
    {86, "xeon-e5-v4"},       {85, "xeon-scalable-2"},  {106, "xeon-scalable-3"}, {108, "xeon-scalable-3"},
    {143, "xeon-scalable-4"}, {207, "xeon-scalable-4"}, {158, "core-desktop-10"}, {165, "core-desktop-10"},
    {166, "core-desktop-10"}, {151, "core-desktop-12"}, {183, "core-desktop-12"}, {191, "core-desktop-12"},
});
// AMD models within a family (AMD PPRs, [R]); `family` as amd_family() gives it. Zen (0x17/0x01)
// and Zen 2 (0x17/0x31) dies are shared by Ryzen/Threadripper and EPYC: the EPYC is taken. A
// desktop part in a file with several <cpu> becomes the server part (see cpu_model).
struct AmdModel {
  int family;  // 0x17 or 0x19
  int model;
  std::string_view key;
};
constexpr auto kAmdModels = std::to_array<AmdModel>({
    {0x17, 0x01, "epyc-7001"},  {0x17, 0x08, "ryzen-2000"},     {0x17, 0x31, "epyc-7002"},
    {0x17, 0x71, "ryzen-3000"}, {0x19, 0x01, "epyc-7003"},      {0x19, 0x08, "threadripper-pro-5000"},
    {0x19, 0x11, "epyc-9004"},  {0x19, 0x21, "ryzen-5000"},     {0x19, 0x61, "ryzen-7000"},
});

// clang-format on

template <std::size_t N>
std::optional<std::string_view> key_of(const std::array<PciModel, N>& table, PciId id) {
  for (const auto& row : table)
    if (row.id == id) return row.key;
  return std::nullopt;
}

template <std::size_t N>
std::optional<PciId> id_of(const std::array<PciModel, N>& table, std::string_view key) {
  for (const auto& row : table)
    if (row.key == key) return row.id;
  return std::nullopt;
}

std::string hex(PciId id) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "%04x:%04x", id.vendor, id.device);
  return buf.data();
}

/// Preferred GPU for a compute capability when the PCI id is unknown (reference nccl.md §d.6 `sm`).
std::string_view gpu_for_sm(const GpuFacts& f) {
  switch (f.sm) {
    case 37:
      return "tesla-k80";
    case 52:
      return "tesla-m40";  // GM200: also the GeForce GTX TITAN X, not in the catalog
    case 60:
      return "tesla-p100-pcie-16gb";
    case 61:
      return "tesla-p40";  // GP102/GP104: also GTX 1080 / TITAN Xp, not in the catalog
    case 70:
      return f.nvlink ? "v100-sxm2" : "v100-pcie";
    case 75:
      return f.geforce_class ? "rtx-2080-ti" : "quadro-rtx-6000";
    case 80:
      return f.nvlink ? "a100-sxm4-80gb" : "a100-pcie-80gb";
    case 86:
      return f.geforce_class ? "rtx-3090" : "rtx-a6000";
    case 89:
      return f.geforce_class ? "rtx-4090" : "l40s";
    case 90:
      return f.nvlink ? "h100-sxm5" : "h100-pcie";
    case 120:
      return "rtx-5090";
    default:
      return "";
  }
}

/// Without sm or PCI id (hand-written files list bare <pci> leaves): by class and link generation;
/// an unknown generation is taken as Gen3, as NCCL does.
std::string_view gpu_for_link(const GpuFacts& f) {
  if (f.geforce_class) return f.link_gen >= 5 ? "rtx-5090" : f.link_gen == 4 ? "rtx-3090" : "rtx-2080-ti";
  return f.link_gen >= 5 ? "h100-pcie" : f.link_gen == 4 ? "a100-pcie-80gb" : "v100-pcie";
}

/// The NVIDIA catalog GPU whose sm is closest (first on ties): a last resort when a preferred key
/// is missing from the catalog.
std::string nearest_gpu_by_sm(int sm) {
  const GpuSpec* best = nullptr;
  for (const GpuSpec& g : gpu_catalog())
    if (g.sm > 0 && (best == nullptr || std::abs(g.sm - sm) < std::abs(best->sm - sm))) best = &g;
  return best == nullptr ? std::string() : std::string(best->key);
}

std::string intel_model(int model) {
  for (const auto& row : kIntelModels)
    if (row.model == model) return std::string(row.key);
  return "";
}

/// NCCL writes an AMD familyid as base + (extended << 4) (0x8F, 0xAF, 0xBF); CPUID's family is
/// base + extended (0x17 Zen/Zen 2, 0x19 Zen 3/4, 0x1A Zen 5). Accept both.
int amd_family(int familyid) {
  return familyid == 0x8F ? 0x17 : familyid == 0xAF ? 0x19 : familyid == 0xBF ? 0x1a : familyid;
}

std::string amd_model(int family, int model) {
  const int f = amd_family(family);
  for (const auto& row : kAmdModels)
    if (row.family == f && row.model == model) return std::string(row.key);
  return "";
}

/// By generation with the NCCL thresholds for Intel (nccl.md §d.2: >= 0x8F SRP, >= 0x55 SKL,
/// else BDW), by family for AMD; Zen 5 (family 0x1A) has no catalog entry: epyc-9004.
std::string cpu_fallback(bool intel, int family, int model) {
  if (intel) return model >= 0x8F ? "xeon-scalable-4" : model >= 0x55 ? "xeon-scalable-2" : "xeon-e5-v4";
  const int f = amd_family(family);
  if (f == 0x17) return model < 0x30 ? "epyc-7001" : "epyc-7002";
  if (f == 0x19) return model < 0x10 ? "epyc-7003" : "epyc-9004";
  return f > 0x19 ? "epyc-9004" : "epyc-7002";
}

}  // namespace

ModelChoice gpu_model(const GpuFacts& f) {
  if (auto key = key_of(kGpuIds, f.id); key && find_gpu(*key)) return {std::string(*key), ""};
  const std::string id_text = f.id.vendor == 0 ? "no PCI id" : "unknown PCI id " + hex(f.id);
  std::string key(f.sm > 0 ? gpu_for_sm(f) : gpu_for_link(f));
  std::string why = f.sm > 0 ? "sm " + std::to_string(f.sm) + (f.nvlink ? " with NVLink" : "")
                             : std::string(f.geforce_class ? "VGA" : "3D controller") + " class at PCIe Gen" +
                                   std::to_string(f.link_gen > 0 ? f.link_gen : 3);
  if (key.empty() || find_gpu(key) == nullptr) {
    key = nearest_gpu_by_sm(f.sm > 0 ? f.sm : 70);
    why += ", nearest catalog sm";
  }
  return {key, id_text + ", " + why + ": assumed " + key};
}

ModelChoice cpu_model(std::string_view vendor, int family, int model, bool multi_socket) {
  const bool intel = vendor == "GenuineIntel";
  const bool amd = vendor == "AuthenticAMD";
  const std::string what =
      std::string(vendor) + " family " + std::to_string(family) + " model " + std::to_string(model);
  if (!intel && !amd)
    return {"xeon-e5-v4",
            "CPU vendor \"" + std::string(vendor) +
                "\" has no catalog entry: assumed xeon-e5-v4 (6 GB/s between sockets, as NCCL assumes "
                "for Zhaoxin and ARM)"};
  std::string key = intel ? (family == 6 ? intel_model(model) : "") : amd_model(family, model);
  if (key.empty()) {
    key = cpu_fallback(intel, family, model);
    return {key, what + " is not in the CPUID table: assumed " + key};
  }
  const CpuSpec* spec = find_cpu(key);
  if (multi_socket && spec != nullptr && spec->inter_socket == InterSocketKind::None) {
    // A desktop die (Ryzen, Threadripper 2990WX NUMA nodes, Core) in a file with several <cpu>.
    const std::string server = cpu_fallback(intel, family, model);
    return {server, what + " is a single-socket part (" + key + ") but the file has several <cpu>: assumed " +
                        server};
  }
  if (intel && model == 85)
    return {key, what + " is Skylake-SP or Cascade Lake (same CPUID model): assumed " + key};
  if (intel && model == 207) return {key, what + " (Emerald Rapids) has no catalog entry: assumed " + key};
  return {key, ""};
}

ModelChoice switch_model(PciId id, int link_gen, int lanes_needed) {
  if (auto key = key_of(kSwitchIds, id); key && find_switch(*key)) {
    if (id == PciId{0x1000, 0xc010} && link_gen >= 5)
      return {"pex89144", "Broadcom 1000:c010 at a Gen5 link: assumed pex89144"};
    if (id == PciId{0x10b5, 0x9765})
      return {"pex9797", "PEX 9765 has no catalog entry: assumed pex9797 (same family)"};
    return {std::string(*key), ""};
  }
  // Unknown chip: Broadcom's largest switch of the generation (one per generation keeps imports stable).
  const int gen = link_gen > 0 ? std::min(link_gen, 5) : 3;
  std::string key = gen <= 2 ? "pex8648" : gen == 3 ? "pex8796" : gen == 4 ? "pex88096" : "pex89144";
  const SwitchSpec* pick = find_switch(key);
  if (pick == nullptr || pick->lanes < lanes_needed) {
    // Too few lanes for what hangs below it: the smallest switch of the generation that has enough.
    const SwitchSpec* wider = nullptr;
    for (const SwitchSpec& s : switch_catalog())
      if (s.gen == gen && s.lanes >= lanes_needed && (wider == nullptr || s.lanes < wider->lanes)) wider = &s;
    if (wider != nullptr) pick = wider;
  }
  if (pick != nullptr) key = std::string(pick->key);
  const std::string id_text = id.vendor == 0 ? "no PCI id" : "unknown PCI id " + hex(id);
  return {key, "PCIe bridge with " + id_text + " at Gen" + std::to_string(gen) + ": assumed " + key};
}

ModelChoice nic_model(PciId id, long speed_mbps, int link_gen) {
  if (auto key = key_of(kNicIds, id); key && find_nic(*key)) return {std::string(*key), ""};
  std::string key;
  std::string why;
  if (speed_mbps > 0) {
    key = speed_mbps >= 400000   ? "connectx-7-400g"
          : speed_mbps >= 200000 ? "connectx-6-200g"
          : speed_mbps >= 100000 ? "connectx-4-100g"
          : speed_mbps >= 56000  ? "connectx-3-fdr"
          : speed_mbps >= 25000  ? "connectx-4-100g"
          : speed_mbps >= 10000  ? "intel-x550-10g"
                                 : "intel-i350-1g";
    why = std::to_string(speed_mbps) + " Mb/s";
  } else {
    // Hand-written files list bare NIC leaves: the ConnectX of the link's generation.
    key = link_gen >= 5 ? "connectx-7-400g" : link_gen == 4 ? "connectx-6-200g" : "connectx-4-100g";
    why = "no speed, PCIe Gen" + std::to_string(link_gen > 0 ? link_gen : 3);
  }
  const std::string id_text = id.vendor == 0 ? "no PCI id" : "unknown PCI id " + hex(id);
  return {key, id_text + ", " + why + ": assumed " + key};
}

ModelChoice nvswitch_model(int sm, int gpu_nvlink_gen) {
  const std::string_view by_sm = sm == 70    ? "nvswitch-gen1"
                                 : sm == 80  ? "nvswitch-gen2"
                                 : sm == 90  ? "nvswitch-gen3"
                                 : sm == 100 ? "nvswitch-gen4"
                                             : "";
  if (!by_sm.empty() && find_nvswitch(by_sm)) return {std::string(by_sm), ""};
  for (const NvSwitchSpec& s : nvswitch_catalog())
    if (s.nvlink_gen == gpu_nvlink_gen)
      return {std::string(s.key),
              "NVSwitch for sm " + std::to_string(sm) + ": the one of the GPU's NVLink generation"};
  const std::string key(nvswitch_catalog().back().key);
  return {key, "NVSwitch for sm " + std::to_string(sm) + ": assumed the newest, " + key};
}

std::optional<PciId> gpu_pci_id(std::string_view key) {
  return id_of(kGpuIds, key);
}
std::optional<PciId> switch_pci_id(std::string_view key) {
  return id_of(kSwitchIds, key);
}
std::optional<PciId> nic_pci_id(std::string_view key) {
  return id_of(kNicIds, key);
}

int link_gen_of(std::string_view link_speed) {
  const std::string text(link_speed);
  char* end = nullptr;
  const double gts = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || gts <= 0) return 0;
  for (const PcieGenSpec& g : pcie_generations())
    if (std::abs(g.gts - gts) < 0.05) return g.gen;
  return 0;
}

std::string link_speed_of(int gen) {
  std::array<char, 32> buf{};
  std::snprintf(buf.data(), buf.size(), "%.1f GT/s PCIe", pcie_gen(gen).gts);
  return buf.data();
}

bool is_software_interface(std::string_view name) {
  static constexpr std::array<std::string_view, 13> kPrefixes = {
      "docker", "br-",   "lxcbr", "virbr", "veth",  "cni",  "flannel",
      "cali",   "vxlan", "tun",   "tap",   "weave", "kube-"};
  if (name == "lo") return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

}  // namespace nccl_xml

Topology load_nccl_xml(const std::string& path) {
  return build_topology(import_nccl_xml(read_input_file(path), path));
}

}  // namespace rigsim::topology
