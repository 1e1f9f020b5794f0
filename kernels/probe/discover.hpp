// What the probe learns about the rig without NVML: PCIe link state and NUMA node from sysfs, the CPU
// from /proc/cpuinfo, the driver from /proc/driver/nvidia/version, and catalog keys for the GPU and
// CPU names (for the layout sketch). Every reader takes the filesystem root, so tests use a fake tree.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rigsim::probe {

struct PcieLink {
  int gen = 0, width = 0, max_gen = 0, max_width = 0;  // 0: unknown
  int numa = -1;
};

/// The link of PCI device `bus_id` ("0000:1A:00.0", any case) from <root>/sys/bus/pci/devices/.
/// Missing files leave fields unknown; nothing throws.
PcieLink read_pcie_link(const std::string& root, const std::string& bus_id);
/// PCIe generation of a sysfs link speed ("16.0 GT/s PCIe", "8 GT/s"): 1..6, 0 when unknown.
int pcie_gen_of_speed(const std::string& text);

/// The NUMA node with memory that is farthest from `node` by the kernel's distance table
/// (<root>/sys/devices/system/node/node<N>/distance, candidates from .../node/has_memory): on a
/// two-socket server, a node of the other socket. -1 when `node` is unknown, the files are missing or
/// no other node has memory. Ties go to the lowest node id.
int farthest_memory_node(const std::string& root, int node);
/// Node ids of a kernel list such as "0-1,4" (sysfs has_memory, cpulist); empty for an unreadable one.
std::vector<int> parse_node_list(const std::string& text);

/// "model name" of the first processor in <root>/proc/cpuinfo; "" when absent.
std::string cpu_model_name(const std::string& root);
/// The x86 CPUID display family and model of the first processor in <root>/proc/cpuinfo ("cpu family",
/// "model"); -1 each when absent. A VM that masks the model name ("Intel(R) Xeon(R) Processor") still
/// reports them.
struct CpuId {
  int family = -1;
  int model = -1;
};
CpuId cpu_id(const std::string& root);
/// The driver version in <root>/proc/driver/nvidia/version ("550.90.07"); "" when absent.
std::string driver_version(const std::string& root);

}  // namespace rigsim::probe
