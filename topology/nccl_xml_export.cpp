// Export of a Topology as NCCL topology XML (reference nccl.md §d.6), so NCCL can be pointed at a
// server that exists only as a layout (NCCL_TOPO_FILE). Shaped like an NCCL dump:
// - one <cpu> per NUMA node, so per socket unless the layout sets "nps" (vendor/familyid/modelid
//   from the CPU catalog's CPUID numbers);
// - host bridges are not <pci> nodes (devices hang directly under their <cpu>); switches and
//   chipsets are bridges (class 0x060400) with their devices below them;
// - bus ids are synthesised, "0000:BB:00.0" with BB counting up in device order (then the domain),
//   NVSwitch fabrics last; link_speed/link_width are the negotiated link, spelled as NCCL does;
// - GPU <nvlink> elements name their peers' bus ids; an NVSwitch fabric is one synthetic target of
//   tclass 0x068000 with count = the GPU's links to it (NCCL folds all switch chips into one node).
// A chipset becomes a plain bridge, and EPYC host bridges shared by several devices are not
// visible, so importing an export gives back those parts as switches / separate root ports.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <sstream>

#include "topology/catalog.hpp"
#include "topology/nccl_xml.hpp"
#include "topology/nccl_xml_ids.hpp"

namespace rigsim::topology {
namespace {

using pugi::xml_node;

std::string hex(unsigned value, int digits) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%0*x", digits, value);
  return buf.data();
}

std::string gpu_class(const Device& d) {
  return d.gpu->geforce ? "0x030000" : "0x030200";
}

class Exporter {
 public:
  explicit Exporter(const Topology& topo) : topo_(topo) {
    for (const Link& l : topo.links())
      if (l.kind == LinkKind::Pcie || l.kind == LinkKind::ChipsetUplink) children_[l.up].push_back(l.down);
    for (auto& [parent, kids] : children_) std::sort(kids.begin(), kids.end());
    std::size_t bus = 1;
    for (const Device& d : topo.devices())
      if (d.kind == DeviceKind::Switch || d.kind == DeviceKind::Chipset || d.kind == DeviceKind::Gpu ||
          d.kind == DeviceKind::Nic)
        busid_[d.id] = bus_id(bus++);
    for (DeviceId s : topo.of_kind(DeviceKind::NvSwitch)) busid_[s] = bus_id(bus++);
    const auto gpus = topo.gpus();
    for (std::size_t i = 0; i < gpus.size(); ++i) index_[gpus[i]] = static_cast<int>(i);
    const auto nics = topo.nics();
    for (std::size_t i = 0; i < nics.size(); ++i) index_[nics[i]] = static_cast<int>(i);
  }

  std::string run() {
    pugi::xml_document doc;
    xml_node system = doc.append_child("system");
    system.append_attribute("version") = "1";
    for (DeviceId cpu : topo_.cpus()) emit_cpu(system, topo_.device(cpu));
    std::ostringstream out;
    doc.save(out, "  ", pugi::format_indent | pugi::format_no_declaration);
    // NCCL writes empty elements as <gpu .../>; pugixml puts a space before "/>". Attribute values
    // here are numbers, ids and fixed strings, so the pattern occurs only at element ends.
    std::string xml = out.str();
    for (auto at = xml.find(" />"); at != std::string::npos; at = xml.find(" />", at)) xml.erase(at, 1);
    return xml;
  }

 private:
  static std::string bus_id(std::size_t n) {
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%04zx:%02zx:00.0", n / 256, n % 256);
    return buf.data();
  }

  // One <cpu> per NUMA node, as NCCL writes them (its CPU nodes are NUMA domains): a socket in NPS4
  // is four <cpu> elements, each holding the host bridges of its quadrants.
  void emit_cpu(xml_node system, const Device& cpu) {
    for (int k = 0; k < cpu.numa_nodes; ++k) {
      const int numa = cpu.numa + k;
      xml_node node = system.append_child("cpu");
      node.append_attribute("numaid") = cpu.numa >= 0 ? numa : cpu.socket;
      node.append_attribute("affinity") = "";
      node.append_attribute("arch") = "x86_64";
      node.append_attribute("vendor") = cpu.cpu->vendor == Vendor::Amd ? "AuthenticAMD" : "GenuineIntel";
      node.append_attribute("familyid") = cpu.cpu->cpuid_family;
      node.append_attribute("modelid") = cpu.cpu->cpuid_model;
      for (const Link& l : topo_.links())
        if (l.kind == LinkKind::Internal && l.up == cpu.id &&
            (cpu.numa_nodes == 1 || topo_.device(l.down).numa == numa))
          for (DeviceId child : children_[l.down]) emit_device(node, child);
      if (k == 0)
        for (DeviceId child : children_[cpu.id]) emit_device(node, child);  // chipsets on the CPU itself
      if (cpu.numa_nodes > 1 && node.first_child().empty()) system.remove_child(node);  // no devices there
    }
  }

  void emit_device(xml_node parent, DeviceId id) {
    const Device& d = topo_.device(id);
    xml_node pci = parent.append_child("pci");
    pci.append_attribute("busid") = busid_.at(id).c_str();
    std::optional<nccl_xml::PciId> pci_id;
    switch (d.kind) {
      case DeviceKind::Gpu:
        pci.append_attribute("class") = gpu_class(d).c_str();
        pci_id = nccl_xml::gpu_pci_id(d.model);
        break;
      case DeviceKind::Nic:
        pci.append_attribute("class") = d.nic->vendor == Vendor::Mellanox ? "0x020700" : "0x020000";
        pci_id = nccl_xml::nic_pci_id(d.model);
        break;
      default:
        pci.append_attribute("class") = "0x060400";
        if (d.kind == DeviceKind::Switch) pci_id = nccl_xml::switch_pci_id(d.model);
        break;
    }
    if (pci_id) {
      pci.append_attribute("vendor") = hex(pci_id->vendor, 4).c_str();
      pci.append_attribute("device") = hex(pci_id->device, 4).c_str();
    }
    const Link& up = topo_.link(*topo_.uplink(id));
    pci.append_attribute("link_speed") = nccl_xml::link_speed_of(up.gen).c_str();
    pci.append_attribute("link_width") = up.width;
    if (d.kind == DeviceKind::Gpu) emit_gpu(pci, d);
    if (d.kind == DeviceKind::Nic) emit_nic(pci, d);
    for (DeviceId child : children_[id]) emit_device(pci, child);
  }

  void emit_gpu(xml_node pci, const Device& d) {
    xml_node gpu = pci.append_child("gpu");
    gpu.append_attribute("dev") = index_.at(d.id);
    gpu.append_attribute("sm") = d.gpu->sm;
    gpu.append_attribute("rank") = index_.at(d.id);
    gpu.append_attribute("gdr") = d.gpu->geforce ? 0 : 1;
    std::map<DeviceId, int> peers, switches;  // links per peer GPU / NVSwitch fabric
    for (const Link& l : topo_.links()) {
      if (l.kind != LinkKind::NvLink || (l.up != d.id && l.down != d.id)) continue;
      const DeviceId other = l.up == d.id ? l.down : l.up;
      (topo_.device(other).kind == DeviceKind::NvSwitch ? switches : peers)[other] += l.width;
    }
    auto add = [&](DeviceId target, int count, const std::string& tclass) {
      xml_node nv = gpu.append_child("nvlink");
      nv.append_attribute("target") = busid_.at(target).c_str();
      nv.append_attribute("count") = count;
      nv.append_attribute("tclass") = tclass.c_str();
    };
    for (const auto& [peer, count] : peers) add(peer, count, gpu_class(topo_.device(peer)));
    for (const auto& [fabric, count] : switches) add(fabric, count, "0x068000");
  }

  void emit_nic(xml_node pci, const Device& d) {
    const int n = index_.at(d.id);
    xml_node net = pci.append_child("nic").append_child("net");
    net.append_attribute("name") = ("nic" + std::to_string(n)).c_str();
    net.append_attribute("dev") = n;
    net.append_attribute("speed") = static_cast<long long>(std::llround(d.nic_rate.value * 8 / 1e6));  // Mb/s
    net.append_attribute("port") = 1;
    net.append_attribute("guid") = hex(static_cast<unsigned>(n), 1).c_str();
    net.append_attribute("gdr") = d.nic->gpudirect_rdma ? 1 : 0;
  }

  const Topology& topo_;
  std::map<DeviceId, std::vector<DeviceId>>
      children_;  // PCIe children of host bridges, switches, chipsets, CPUs
  std::map<DeviceId, std::string> busid_;
  std::map<DeviceId, int> index_;  // GPU / NIC number
};

}  // namespace

std::string export_nccl_xml(const Topology& topo) {
  return Exporter(topo).run();
}

}  // namespace rigsim::topology
