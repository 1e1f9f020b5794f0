// Private to the NCCL XML importer and exporter (nccl_xml_import.cpp, nccl_xml_export.cpp): the
// tables that map what an NCCL topology dump says about a device (PCI vendor/device id, CUDA sm,
// CPUID family/model, NIC speed, PCIe link speed) to catalog keys, and back. The tables and the
// reasons for each choice are in nccl_xml.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rigsim::topology::nccl_xml {

/// A PCI vendor/device id pair as NCCL dumps it (`vendor="0x10de" device="0x2330"`).
struct PciId {
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  bool operator==(const PciId&) const = default;
};

/// A catalog key chosen for a device, and why, when it was a guess (empty when the dump named it).
struct ModelChoice {
  std::string key;
  std::string guess;  // e.g. "sm 61 without a known PCI id: assumed tesla-p40"
};

/// What a GPU's <pci>/<gpu> elements say about it.
struct GpuFacts {
  PciId id;
  int sm = 0;                  // 0: no <gpu> element or no sm
  bool geforce_class = false;  // class 0x0300xx (VGA: consumer and workstation cards) vs 0x0302xx
  bool nvlink = false;         // lists NVLink to another GPU or an NVSwitch
  int link_gen = 0;            // stated PCIe generation, 0 when unknown
};

ModelChoice gpu_model(const GpuFacts& facts);
/// `multi_socket`: the file has several <cpu>, so a single-socket (desktop) part is replaced by the
/// server part of its generation.
ModelChoice cpu_model(std::string_view vendor, int family, int model, bool multi_socket);
/// `link_gen`: the switch's stated generation, else its children's, else its CPU's;
/// `lanes_needed`: uplink plus the stated (or assumed x16) widths of everything below it.
ModelChoice switch_model(PciId id, int link_gen, int lanes_needed);
/// `speed_mbps`: the first <net>'s speed (0 when absent); `link_gen`: stated generation (0: unknown).
ModelChoice nic_model(PciId id, long speed_mbps, int link_gen);
/// NVSwitch generation that serves GPUs of compute capability `sm` (NVLink generation as fallback).
ModelChoice nvswitch_model(int sm, int gpu_nvlink_gen);

/// The PCI id rigsim writes for a catalog model, when it knows one.
std::optional<PciId> gpu_pci_id(std::string_view key);
std::optional<PciId> switch_pci_id(std::string_view key);
std::optional<PciId> nic_pci_id(std::string_view key);

/// PCIe generation of an NCCL `link_speed` string ("8 GT/s", "16.0 GT/s PCIe"), read numerically;
/// 0 when empty or not a known rate.
int link_gen_of(std::string_view link_speed);
/// NCCL's spelling of a generation's rate: "8.0 GT/s PCIe", "2.5 GT/s PCIe".
std::string link_speed_of(int gen);

/// Software network interfaces (Linux bridges, veth, docker) that NCCL's socket transport lists
/// as NICs directly under a CPU; they are not PCIe devices.
bool is_software_interface(std::string_view net_name);

}  // namespace rigsim::topology::nccl_xml
