// Import of NCCL topology XML (NCCL_TOPO_DUMP_FILE output, hand-written NCCL_TOPO_FILE input;
// grammar in reference nccl.md §d.6) into a LayoutSpec. Every assumption goes into the layout's
// notes, so `rigsim topo` shows what was read and what was guessed. The mapping:
//
// - <cpu>: one CPU socket per element, in order (socket = position); numaid="-1" or missing: the
//   position. Model from vendor/familyid/modelid (tables in nccl_xml.cpp). Intel: one host bridge
//   with all the CPU's lanes; AMD EPYC/Threadripper (every x16 root port is a host bridge): one x16
//   host bridge per top-level <pci>. More than two <cpu> (VM NUMA nodes): a chain of consecutive
//   sockets, one link each; two: the builder's default link.
// - <pci class=0x0604..> (or any <pci> with <pci> below it): a PCIe switch; nested bridges nest.
//   The stated link_speed/link_width become an on-board link; empty/unknown speed or width 0 mean
//   "the device's own". A bridge stated at 2.5 GT/s x1 (a VM's emulated bridge) is taken as unknown.
// - <pci class=0x03..> (with or without <gpu>; with or without rank): a GPU. GPUs are numbered by
//   their `dev` (NVML index) when every GPU has one, else in bus id order.
// - <pci class=0x02..> (with or without <nic>): a NIC; a <nic> with several <net> ports is one NIC,
//   as NCCL merges them. A <nic> directly under <cpu> is attached to the CPU's host bridge (AMD: a
//   host bridge of its own) on an on-board link, unless all its nets are software interfaces
//   (docker0, br-*, lxcbr0...), which are not PCIe devices and are skipped.
// - <pci class=0x068000> (NVSwitch) is skipped; the GPUs' <nvlink tclass=0x068000> targets become one
//   NVSwitch fabric with links_per_gpu = the sum of a GPU's counts to all switch chips.
// - <nvlink> between GPUs: one NvLinkEntry per pair (each side lists it). An <nvlink> whose target
//   is the GPU's own bus id (Azure NC A100 v4 dumps) is ignored.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <set>

#include "common/input.hpp"
#include "topology/catalog.hpp"
#include "topology/nccl_xml.hpp"
#include "topology/nccl_xml_ids.hpp"

namespace rigsim::topology {
namespace {

using nccl_xml::ModelChoice;
using nccl_xml::PciId;
using pugi::xml_node;

struct NvlinkRef {
  std::string target;  // bus id, lowercase
  int count = 0;
  std::string tclass;
  std::string where;
};

/// A GPU or NIC found in the tree, before the devices are numbered and named.
template <typename Entry>
struct Found {
  Entry entry;
  std::optional<int> dev;  // NVML index / net plugin index
  std::string busid;
  int sm = 0;
  std::vector<NvlinkRef> nvlinks;
  std::vector<std::string> notes;  // given the device's name once it has one
};

/// The CPU being imported and the host bridge its directly attached devices use.
struct CpuScope {
  std::string id;
  const CpuSpec* spec = nullptr;
  bool per_root_port = false;  // AMD: one host bridge per x16 root port
  std::string shared_bridge;   // Intel: the CPU's host bridge; AMD: the one for on-board NICs
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

std::uint16_t hex_attr(xml_node n, const char* name) {
  return static_cast<std::uint16_t>(std::strtoul(n.attribute(name).as_string(), nullptr, 16));
}

PciId pci_id_of(xml_node pci) {
  return {hex_attr(pci, "vendor"), hex_attr(pci, "device")};
}
std::string busid_of(xml_node pci) {
  return lower(pci.attribute("busid").as_string());
}
std::string class_of(xml_node pci) {
  return lower(pci.attribute("class").as_string());
}
int gen_of(xml_node pci) {
  return nccl_xml::link_gen_of(pci.attribute("link_speed").as_string());
}
int width_of(xml_node pci) {
  // Range-checked by Importer::check_pci_attributes before any use.
  const int w = pci.attribute("link_width").as_int(0);
  return w >= 1 && w <= 32 ? w : 0;
}

/// An on-board link to `parent` of the devices' own generation and width.
PcieAttach on_board(const std::string& parent, const std::string& where) {
  PcieAttach a;
  a.parent = parent;
  a.where = where;
  return a;
}

enum class PciKind { Bridge, Gpu, Nic, NvSwitch, Other };

/// NCCL decides by class prefix (nccl.md §d.6); children decide when the class is missing or odd.
PciKind kind_of(xml_node pci) {
  const std::string cls = class_of(pci);
  if (cls.starts_with("0x068000")) return PciKind::NvSwitch;
  if (pci.child("gpu") || cls.starts_with("0x03")) return PciKind::Gpu;
  if (pci.child("nic") || cls.starts_with("0x02")) return PciKind::Nic;
  if (cls.starts_with("0x0604") || pci.child("pci")) return PciKind::Bridge;
  return PciKind::Other;
}

class Importer {
 public:
  Importer(const std::string& text, const std::string& file) : text_(text) {
    spec_.file = file;
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines_.push_back(i);
  }

  LayoutSpec run() {
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed)
      throw InputError(spec_.file, line_column(parsed.offset),
                       std::string("malformed XML: ") + parsed.description());
    const xml_node system = read_system(doc);
    cpu_count_ = std::distance(system.children("cpu").begin(), system.children("cpu").end());
    int index = 0;
    for (xml_node cpu : system.children("cpu")) import_cpu(cpu, index++);
    for (xml_node child : system.children())
      if (std::string_view(child.name()) != "cpu")
        note("<" + std::string(child.name()) + "> ignored", where(child));
    finish_gpus();
    finish_nics();
    add_inter_socket();
    for (const auto& [message, subjects] : notes_) {
      std::string who;
      for (const auto& s : subjects) who.append(who.empty() ? "" : ", ").append(s);
      spec_.import_warnings.push_back("NCCL XML: " + (who.empty() ? message : who.append(": ").append(message)));
    }
    return std::move(spec_);
  }

 private:
  std::size_t line_of(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    return static_cast<std::size_t>(
               std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(offset)) -
               newlines_.begin()) +
           1;
  }
  std::string line_column(std::ptrdiff_t offset) const {
    const std::size_t line = line_of(offset);
    const std::size_t start = line <= 1 ? 0 : newlines_[line - 2] + 1;
    return "line " + std::to_string(line) + ", column " +
           std::to_string(static_cast<std::size_t>(offset) - start + 1);
  }
  std::string where(xml_node n) const { return "line " + std::to_string(line_of(n.offset_debug())); }
  [[noreturn]] void fail(xml_node n, const std::string& message) const {
    throw InputError(spec_.file, where(n), message);
  }
  /// An integer attribute: absent or empty gives `fallback` (as NCCL reads a missing value); anything
  /// that is not an integer in [lo, hi] is an error naming the line, attribute and value.
  long long int_attr(xml_node n, const char* name, long long fallback, long long lo, long long hi) const {
    const pugi::xml_attribute a = n.attribute(name);
    if (!a) return fallback;
    const std::string v = trim(a.as_string());
    if (v.empty()) return fallback;
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (end == v.c_str() || *end != '\0' || errno == ERANGE)
      fail(n, "<" + std::string(n.name()) + "> " + name + "=\"" + v + "\": expected an integer");
    if (x < lo || x > hi)
      fail(n, "<" + std::string(n.name()) + "> " + name + "=\"" + v + "\": expected an integer from " +
                  std::to_string(lo) + " to " + std::to_string(hi));
    return x;
  }

  /// A hexadecimal attribute (vendor, device, class: "0x10de" or "10de"); absent or empty is 0.
  void check_hex(xml_node n, const char* name) const {
    std::string v = lower(trim(n.attribute(name).as_string()));
    if (v.empty()) return;
    if (v.starts_with("0x")) v = v.substr(2);
    if (v.empty() || v.size() > 8 || v.find_first_not_of("0123456789abcdef") != std::string::npos)
      fail(n, "<" + std::string(n.name()) + "> " + name + "=\"" + n.attribute(name).as_string() +
                  "\": expected a hexadecimal number");
  }

  /// What NCCL writes on a <pci>: busid "dddd:bb:dd.f" (hex), hex ids, link_width 0..32 (0: unknown,
  /// which NCCL itself writes). link_speed is free text NCCL maps to a rate; unknown text is a warning
  /// (attach_of).
  void check_pci_attributes(xml_node pci) const {
    const std::string bus = lower(trim(pci.attribute("busid").as_string()));
    if (!bus.empty()) {
      const bool ok = bus.size() == 12 && bus[4] == ':' && bus[7] == ':' && bus[10] == '.' &&
                      std::all_of(bus.begin(), bus.end(), [](char c) {
                        return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
                      });
      if (!ok)
        fail(pci, "<pci> busid=\"" + std::string(pci.attribute("busid").as_string()) +
                      "\": expected a PCI address like 0000:07:00.0");
    }
    for (const char* h : {"vendor", "device", "subsystem_vendor", "subsystem_device", "class"}) check_hex(pci, h);
    int_attr(pci, "link_width", 0, 0, 32);
  }

  /// Notes with the same message are merged, naming every device they concern.
  void note(const std::string& message, const std::string& subject) {
    auto it = std::find_if(notes_.begin(), notes_.end(), [&](const auto& n) { return n.first == message; });
    if (it == notes_.end()) it = notes_.insert(notes_.end(), {message, {}});
    if (!subject.empty() && std::find(it->second.begin(), it->second.end(), subject) == it->second.end())
      it->second.push_back(subject);
  }

  xml_node read_system(const pugi::xml_document& doc) {
    const xml_node system = doc.child("system");
    if (!system)
      fail(doc.first_child(),
           "no <system> element: an NCCL topology file is <system version=\"1\"> with <cpu> "
           "elements inside");
    const std::string version = trim(system.attribute("version").as_string());
    if (version != "1")
      fail(system, "<system version=\"" + version + "\">: NCCL reads only version 1 (NCCL_TOPO_XML_VERSION)");
    if (!system.child("cpu")) fail(system, "<system> has no <cpu> element");
    const std::string name = system.attribute("name").as_string();
    const std::string stem = std::filesystem::path(spec_.file).stem().string();
    spec_.name = !name.empty() ? name : !stem.empty() ? stem : "nccl-topo";
    spec_.description = "imported from NCCL topology XML";
    spec_.notes.push_back(
        "Imported from NCCL topology XML " + spec_.file +
        ". Devices attach with the link the file states; an empty link_speed or link_width=\"0\" "
        "means the device's own capability (NCCL would assume Gen3 x16). Intel sockets get one "
        "host bridge, AMD EPYC/Threadripper one x16 host bridge per top-level device.");
    return system;
  }

  std::string new_host_bridge(const CpuScope& scope, int lanes, const std::string& at) {
    HostBridgeEntry hb;
    hb.id = "hb" + std::to_string(spec_.host_bridges.size());
    hb.cpu = scope.id;
    hb.lanes = lanes;
    hb.where = at;
    spec_.host_bridges.push_back(hb);
    return hb.id;
  }

  void import_cpu(xml_node cpu, int index) {
    CpuEntry e;
    e.id = "cpu" + std::to_string(index);
    e.socket = index;
    e.where = where(cpu);
    const ModelChoice m =
        nccl_xml::cpu_model(trim(cpu.attribute("vendor").as_string()),
                            static_cast<int>(int_attr(cpu, "familyid", 0, 0, 65535)),
                            static_cast<int>(int_attr(cpu, "modelid", 0, 0, 65535)), cpu_count_ > 1);
    e.model = m.key;
    if (!m.guess.empty()) note(m.guess, e.id);
    const int numa = static_cast<int>(int_attr(cpu, "numaid", -1, -1, 4095));
    e.numa = numa >= 0 ? numa : index;
    if (numa < 0)
      note("numaid=\"-1\" or missing (seen in VM dumps): NUMA node taken as the <cpu>'s position", e.id);
    spec_.cpus.push_back(e);

    CpuScope scope;
    scope.id = e.id;
    scope.spec = find_cpu(e.model);
    scope.per_root_port = scope.spec != nullptr && scope.spec->root_port_per_x16;
    cpu_gen_ = scope.spec != nullptr ? scope.spec->pcie_gen : 3;
    if (!scope.per_root_port)
      scope.shared_bridge =
          new_host_bridge(scope, scope.spec != nullptr ? scope.spec->pcie_lanes : 16, e.where);
    for (xml_node child : cpu.children()) {
      const std::string_view name = child.name();
      if (name == "pci")
        import_pci(child, scope.shared_bridge, scope, true);
      else if (name == "nic")
        import_cpu_nic(child, scope);
      else
        note("<" + std::string(name) + "> ignored", where(child));
    }
    // The builder wants a host bridge on every CPU, even one with nothing below it.
    const bool bridged = std::any_of(spec_.host_bridges.begin(), spec_.host_bridges.end(),
                                     [&](const HostBridgeEntry& hb) { return hb.cpu == e.id; });
    if (!bridged) new_host_bridge(scope, 16, e.where);
  }

  /// A real PCIe tree is under 10 levels deep (root port, two or three switch levels, device); deeper
  /// nesting is a broken or hostile file, refused before the recursion can exhaust the stack.
  static constexpr int kMaxPciDepth = 32;

  void import_pci(xml_node pci, std::string parent, CpuScope& scope, bool top_level, int depth = 1) {
    if (depth > kMaxPciDepth)
      fail(pci, "<pci> nested more than " + std::to_string(kMaxPciDepth) +
                    " levels deep; a real PCIe tree is fewer than 10 levels deep");
    check_pci_attributes(pci);
    const PciKind kind = kind_of(pci);
    if (kind == PciKind::NvSwitch) {
      note("NVSwitch <pci> nodes (class 0x068000) skipped: the GPUs' <nvlink> elements give the fabric",
           where(pci));
      return;
    }
    if (kind == PciKind::Other) {
      note("<pci> of class " + class_of(pci) + " with no GPU, NIC or device below it: skipped", where(pci));
      return;
    }
    if (top_level && scope.per_root_port) parent = new_host_bridge(scope, 16, where(pci));
    if (kind == PciKind::Bridge) import_switch(pci, parent, scope, depth);
    if (kind == PciKind::Gpu) import_gpu(pci, parent);
    if (kind == PciKind::Nic) import_nic(pci, pci.child("nic"), parent);
  }

  PcieAttach attach_of(xml_node pci, const std::string& parent, const std::string& subject, bool bridge) {
    PcieAttach a = on_board(parent, where(pci));
    a.gen = gen_of(pci);
    a.width = width_of(pci);
    const std::string speed = trim(pci.attribute("link_speed").as_string());
    if (a.gen == 0 && !speed.empty())
      note("link_speed \"" + speed + "\" is not a PCIe rate: taken as unknown (the device's own)", subject);
    if (bridge && a.gen == 1 && a.width == 1) {
      note("bridge stated at 2.5 GT/s x1, as a VM's emulated bridge reports: link taken as unknown", subject);
      a.gen = 0;
      a.width = 0;
    }
    return a;
  }

  void import_switch(xml_node pci, const std::string& parent, CpuScope& scope, int depth) {
    const std::string id = "sw" + std::to_string(spec_.switches.size());
    SwitchEntry e;
    e.id = id;
    e.attach = attach_of(pci, parent, id, true);
    e.where = where(pci);
    int lanes = e.attach.width > 0 ? e.attach.width : 16;
    int gen = e.attach.gen;
    for (xml_node child : pci.children("pci")) {
      if (kind_of(child) == PciKind::NvSwitch) continue;
      lanes += width_of(child) > 0 ? width_of(child) : 16;
      if (e.attach.gen == 0) gen = std::max(gen, gen_of(child));
    }
    const PciId pid = pci_id_of(pci);
    const ModelChoice m = nccl_xml::switch_model(pid, gen > 0 ? gen : cpu_gen_, lanes);
    e.model = m.key;
    if (!m.guess.empty()) note(m.guess, id);
    if (pid.vendor == 0x104c)
      note("TI XIO3130 (104c:8232/8233) is the PCIe switch QEMU emulates: a VM's virtual bridge", id);
    spec_.switches.push_back(e);
    for (xml_node child : pci.children()) {
      const std::string_view name = child.name();
      if (name == "pci")
        import_pci(child, id, scope, false, depth + 1);
      else if (name == "nic")
        import_nic(xml_node(), child, id);
      else
        note("<" + std::string(name) + "> ignored", where(child));
    }
  }

  void import_gpu(xml_node pci, const std::string& parent) {
    const xml_node gpu = pci.child("gpu");
    Found<GpuEntry> f;
    f.busid = busid_of(pci);
    f.sm = static_cast<int>(int_attr(gpu, "sm", 0, 0, 1000));
    if (gpu.attribute("dev")) f.dev = static_cast<int>(int_attr(gpu, "dev", 0, 0, 1 << 20));
    int_attr(gpu, "rank", 0, 0, 1 << 24);
    bool nvlink = false;
    for (xml_node nv : gpu.children("nvlink")) {
      NvlinkRef ref{lower(nv.attribute("target").as_string()), static_cast<int>(int_attr(nv, "count", 0, 0, 64)),
                    lower(nv.attribute("tclass").as_string()), where(nv)};
      nvlink = nvlink || (ref.target != f.busid && ref.count > 0);
      f.nvlinks.push_back(ref);
    }
    const ModelChoice m = nccl_xml::gpu_model({.id = pci_id_of(pci),
                                               .sm = f.sm,
                                               .geforce_class = class_of(pci).starts_with("0x0300"),
                                               .nvlink = nvlink,
                                               .link_gen = gen_of(pci)});
    if (!m.guess.empty()) f.notes.push_back(m.guess);
    if (!gpu)
      f.notes.emplace_back("a <pci> GPU without <gpu> (hand-written file): imported from its class");
    else if (!gpu.attribute("rank"))
      f.notes.emplace_back("<gpu> without rank (NCCL would skip it): imported");
    f.entry.model = m.key;
    f.entry.attach = attach_of(pci, parent, f.busid, false);
    f.entry.where = where(pci);
    gpus_.push_back(std::move(f));
  }

  /// `pci` is empty for a <nic> without a PCI node of its own (on-board link of the NIC's width).
  void import_nic(xml_node pci, xml_node nic, const std::string& parent) {
    Found<NicEntry> f;
    const xml_node net = nic.child("net");
    const long long speed = int_attr(net, "speed", 0, 0, 100'000'000);  // Mbit/s
    if (net.attribute("dev")) f.dev = static_cast<int>(int_attr(net, "dev", 0, 0, 1 << 20));
    const auto ports = std::distance(nic.children("net").begin(), nic.children("net").end());
    if (ports > 1) f.notes.emplace_back("a <nic> with several <net> ports is one NIC, as NCCL merges them");
    const ModelChoice m =
        nccl_xml::nic_model(pci ? pci_id_of(pci) : PciId{}, static_cast<long>(speed), pci ? gen_of(pci) : 0);
    if (!m.guess.empty()) f.notes.push_back(m.guess);
    f.entry.model = m.key;
    f.entry.speed_gbps = speed > 0 ? static_cast<double>(speed) / 1000.0 : 0;
    const NicSpec* spec = find_nic(m.key);
    if (spec != nullptr && f.entry.speed_gbps > spec->speed_gbps * spec->ports)
      f.notes.emplace_back("speed " + std::to_string(speed) +
                           " Mb/s is above the model's line rate: kept, as NCCL "
                           "reads it");
    f.entry.where = where(pci ? pci : nic);
    f.entry.attach = pci ? attach_of(pci, parent, busid_of(pci), false) : on_board(parent, f.entry.where);
    nics_.push_back(std::move(f));
  }

  void import_cpu_nic(xml_node nic, CpuScope& scope) {
    std::string names;
    bool software = !nic.child("net").empty();
    for (xml_node net : nic.children("net")) {
      names += (names.empty() ? "" : ", ") + std::string(net.attribute("name").as_string());
      software = software && nccl_xml::is_software_interface(net.attribute("name").as_string());
    }
    if (software) {
      note("software network interfaces (" + names + ") listed under the CPU are not PCIe devices: skipped",
           scope.id);
      return;
    }
    if (scope.shared_bridge.empty()) scope.shared_bridge = new_host_bridge(scope, 16, where(nic));
    import_nic(xml_node(), nic, scope.shared_bridge);
    nics_.back().notes.emplace_back(
        "a <nic> with no PCI parent: attached to its CPU's host bridge on an on-board link");
  }

  /// NVML numbers GPUs by `dev`; without it, CUDA_DEVICE_ORDER=PCI_BUS_ID order is the bus id order.
  template <typename T>
  void order(std::vector<Found<T>>& found, const char* what) {
    const bool by_dev =
        std::all_of(found.begin(), found.end(), [](const auto& f) { return f.dev.has_value(); });
    if (by_dev)
      std::stable_sort(found.begin(), found.end(),
                       [](const auto& a, const auto& b) { return *a.dev < *b.dev; });
    else if (std::string_view(what) == "gpu")
      std::stable_sort(found.begin(), found.end(),
                       [](const auto& a, const auto& b) { return a.busid < b.busid; });
    for (std::size_t i = 0; i < found.size(); ++i) {
      found[i].entry.id = what + std::to_string(i);
      for (const auto& n : found[i].notes) note(n, found[i].entry.id);
    }
  }

  void finish_gpus() {
    order(gpus_, "gpu");
    std::map<std::string, std::size_t> by_busid;  // bus id -> index in gpus_
    for (std::size_t i = 0; i < gpus_.size(); ++i) {
      by_busid.emplace(gpus_[i].busid, i);
      spec_.gpus.push_back(gpus_[i].entry);
    }
    add_nvlinks(by_busid);
  }

  void finish_nics() {
    order(nics_, "nic");
    for (const auto& n : nics_) spec_.nics.push_back(n.entry);
  }

  /// The GPUs' links to NVSwitch chips, folded into one fabric as NCCL does.
  struct Fabric {
    NvSwitchEntry entry;
    std::map<std::string, int> links;  // GPU -> links to all chips
    std::set<std::string> chips;       // the chips' bus ids
    int sm = 0;
    int nvlink_gen = 0;
  };

  void add_nvlinks(const std::map<std::string, std::size_t>& by_busid) {
    std::set<std::pair<std::string, std::string>> seen;  // GPU pairs, each listed by both GPUs
    Fabric fabric;
    for (const auto& g : gpus_) {
      for (const NvlinkRef& ref : g.nvlinks) {
        if (ref.count <= 0) continue;
        if (ref.target == g.busid)
          note("<nvlink> to the GPU's own bus id (an artifact of Azure NC A100 v4 dumps) ignored",
               g.entry.id);
        else if (ref.tclass.starts_with("0x068000"))
          join_fabric(fabric, g, ref);
        else
          add_gpu_link(g, ref, by_busid, seen);
      }
    }
    if (!fabric.entry.gpus.empty()) add_fabric(fabric);
  }

  void add_gpu_link(const Found<GpuEntry>& g, const NvlinkRef& ref,
                    const std::map<std::string, std::size_t>& by_busid,
                    std::set<std::pair<std::string, std::string>>& seen) {
    const auto peer = by_busid.find(ref.target);
    if (peer == by_busid.end()) {
      note("<nvlink> to " + ref.target + " (tclass " + ref.tclass + "), not a GPU of this file: ignored",
           g.entry.id);
      return;
    }
    const GpuEntry& other = gpus_[peer->second].entry;
    const GpuSpec* spec = find_gpu(g.entry.model);
    const GpuSpec* peer_spec = find_gpu(other.model);
    if ((spec != nullptr && spec->nvlink_gen == 0) || (peer_spec != nullptr && peer_spec->nvlink_gen == 0)) {
      note("<nvlink> between GPUs whose catalog model has no NVLink: ignored", g.entry.id);
      return;
    }
    if (!seen.insert(std::minmax(g.entry.id, other.id)).second) return;
    NvLinkEntry e;
    e.a = g.entry.id;
    e.b = other.id;
    e.links = ref.count;
    e.bridge = spec != nullptr && spec->nvlink_bridge;
    e.where = ref.where;
    spec_.nvlinks.push_back(e);
  }

  static void join_fabric(Fabric& fabric, const Found<GpuEntry>& g, const NvlinkRef& ref) {
    if (fabric.entry.gpus.empty()) {
      fabric.entry.where = ref.where;
      fabric.sm = g.sm;
      const GpuSpec* spec = find_gpu(g.entry.model);
      fabric.nvlink_gen = spec != nullptr ? spec->nvlink_gen : 0;
    }
    if (fabric.links[g.entry.id] == 0) fabric.entry.gpus.push_back(g.entry.id);
    fabric.links[g.entry.id] += ref.count;
    fabric.chips.insert(ref.target);
  }

  void add_fabric(Fabric& fabric) {
    NvSwitchEntry& e = fabric.entry;
    e.id = "nvswitch0";
    const ModelChoice m = nccl_xml::nvswitch_model(fabric.sm, fabric.nvlink_gen);
    e.model = m.key;
    if (!m.guess.empty()) note(m.guess, e.id);
    e.chips = static_cast<int>(fabric.chips.size());
    const auto [lo, hi] =
        std::minmax_element(fabric.links.begin(), fabric.links.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; });
    e.links_per_gpu = lo->second;
    if (lo->second != hi->second)
      note("GPUs list " + std::to_string(lo->second) + " to " + std::to_string(hi->second) +
               " NVSwitch links: the fabric uses the smallest count for every GPU",
           e.id);
    spec_.nvswitches.push_back(e);
  }

  void add_inter_socket() {
    if (spec_.cpus.size() <= 2) return;  // two: the builder's default link
    for (std::size_t i = 0; i + 1 < spec_.cpus.size(); ++i) {
      InterSocketEntry e;
      e.a = spec_.cpus[i].id;
      e.b = spec_.cpus[i + 1].id;
      e.links = 1;
      e.where = spec_.cpus[i + 1].where;
      spec_.inter_socket.push_back(e);
    }
    note(std::to_string(spec_.cpus.size()) +
             " <cpu> elements (NUMA domains): linked as a chain of consecutive "
             "sockets, one link each; NCCL's XML does not say how sockets are wired",
         "");
  }

  const std::string& text_;
  std::vector<std::size_t> newlines_;
  LayoutSpec spec_;
  std::vector<Found<GpuEntry>> gpus_;
  std::vector<Found<NicEntry>> nics_;
  std::vector<std::pair<std::string, std::vector<std::string>>> notes_;
  std::ptrdiff_t cpu_count_ = 0;  // <cpu> elements in the file
  int cpu_gen_ = 3;  // PCIe generation of the CPU being imported: the fallback for unknown bridges
};

}  // namespace

LayoutSpec import_nccl_xml(const std::string& xml_text, const std::string& file) {
  return Importer(xml_text, file).run();
}

}  // namespace rigsim::topology
