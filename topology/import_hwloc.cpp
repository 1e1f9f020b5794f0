// import_hwloc(): hwloc XML (lstopo --of xml, hwloc 2.x) to a layout sketch.
//
// hwloc gives the real PCIe tree: host bridges (Bridge bridge_type "0-1") under the Package whose
// locality they have, PCI-to-PCI bridges ("1-1") below them, and PCIDevs with their class, vendor and
// device ids. A bridge directly under a host bridge is a root port (a slot); a bridge whose children are
// bridges is a switch's upstream port (its children are its downstream ports, each a slot); GPUs and
// NICs sit in the slot of the port above them. Models come from hints, from the GPU name hwloc's CUDA or
// NVML backend recorded (GPUModel), or from PCI ids (the NCCL XML importer's tables), each guess noted.
#include <pugixml.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "common/input.hpp"
#include "topology/catalog.hpp"
#include "topology/catalog_names.hpp"
#include "topology/importers.hpp"
#include "topology/nccl_xml_ids.hpp"

namespace rigsim::topology {
namespace {

using pugi::xml_node;

bool is(xml_node n, const char* type) {
  return std::string_view(n.name()) == "object" && std::string_view(n.attribute("type").value()) == type;
}

std::string info(xml_node n, const char* name) {
  for (xml_node i : n.children("info"))
    if (std::string_view(i.attribute("name").value()) == name) return i.attribute("value").value();
  return "";
}

/// "0302 [10de:15f9] [10de:116b] a1 00": class 0x0302, vendor 0x10de, device 0x15f9.
struct PciType {
  unsigned cls = 0, vendor = 0, device = 0;
};

class Importer {
 public:
  Importer(const std::string& text, const std::string& file, const ImportHints& hints)
      : text_(text), file_(file), h_(hints) {
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines_.push_back(i);
  }

  LayoutSpec run() {
    pugi::xml_document doc;
    const auto parsed = doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed) throw InputError(file_, line(parsed.offset), std::string("malformed XML: ") + parsed.description());
    const xml_node top = doc.child("topology");
    if (!top) throw InputError(file_, "line 1", "expected hwloc XML (a <topology> root, from `lstopo --of xml`)");
    spec_.name = h_.name;
    spec_.description = "Imported from hwloc XML (" + file_ + ")";
    spec_.notes.push_back("Sketch made by `rigsim import hwloc` from " + file_ +
                          "; every line below is an assumption to check against the real box.");
    walk(top, "", 0);
    if (spec_.cpus.empty()) throw InputError(file_, "line 1", "no <object type=\"Package\">: nothing to place devices on");
    if (spec_.gpus.empty()) throw InputError(file_, "line 1", "no GPU (PCI class 0300/0302) in the PCIe tree");
    for (std::size_t s = 1; s < spec_.cpus.size(); ++s) spec_.inter_socket.push_back({spec_.cpus[0].id, spec_.cpus[s].id, 0, 0, ""});
    for (const auto& [text, count] : notes_)
      spec_.notes.push_back(count > 1 ? text + " (" + std::to_string(count) + " times)" : text);
    spec_.notes.push_back("hwloc shows no NVLink: add any bridges or NVSwitch by hand (or import `nvidia-smi topo -m`).");
    finish_bridges();
    return spec_;
  }

 private:
  std::string line(std::ptrdiff_t offset) const {
    const auto l = std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(std::max<std::ptrdiff_t>(offset, 0))) -
                   newlines_.begin();
    return "line " + std::to_string(l + 1);
  }
  [[noreturn]] void fail(xml_node n, const std::string& message) const {
    throw InputError(file_, line(n.offset_debug()), message);
  }
  void note(const std::string& text) { ++notes_[text]; }

  PciType pci_type(xml_node n) const {
    PciType t;
    if (std::sscanf(n.attribute("pci_type").value(), "%x [%x:%x]", &t.cls, &t.vendor, &t.device) != 3)
      fail(n, "expected pci_type=\"CLASS [VENDOR:DEVICE] ...\", got \"" + std::string(n.attribute("pci_type").value()) + "\"");
    return t;
  }

  /// Depth-first over objects; `parent` is the layout id devices below attach to (a CPU, host bridge,
  /// slot or switch), `cpu` the index of the enclosing Package.
  void walk(xml_node n, const std::string& parent, std::size_t cpu) {
    for (xml_node c : n.children("object")) {
      if (++depth_ > 64) fail(c, "objects nested more than 64 deep");
      if (is(c, "Package")) {
        const std::string id = package(c);  // before its index is read: argument order is unspecified
        walk(c, id, spec_.cpus.size() - 1);
      } else if (is(c, "Bridge"))
        bridge(c, parent, cpu);
      else if (is(c, "PCIDev"))
        device(c, parent, cpu);
      else
        walk(c, parent, cpu);
      --depth_;
    }
  }

  std::string package(xml_node p) {
    CpuEntry c;
    c.id = "cpu" + std::to_string(spec_.cpus.size());
    c.socket = static_cast<int>(spec_.cpus.size());
    for (xml_node child : p.children("object"))
      if (is(child, "NUMANode")) c.numa = child.attribute("os_index").as_int(c.socket);
    if (c.numa < 0) c.numa = c.socket;
    const std::string name = info(p, "CPUModel");
    if (!h_.cpu_model.empty()) {
      c.model = h_.cpu_model;
    } else if (const auto key = cpu_key_from_name(name)) {
      c.model = *key;
    } else {
      fail(p, "no catalog CPU matches \"" + name + "\": give --cpu KEY (`rigsim catalog cpus`)");
    }
    spec_.cpus.push_back(c);
    return c.id;
  }

  void bridge(xml_node b, const std::string& parent, std::size_t cpu) {
    const std::string type = b.attribute("bridge_type").value();
    if (type == "0-1") {  // a host bridge: devices below it are the socket's
      if (spec_.cpus.empty()) fail(b, "a host bridge outside any Package");
      HostBridgeEntry h;
      h.id = "rc" + std::to_string(spec_.host_bridges.size());
      h.cpu = spec_.cpus[cpu].id;
      spec_.host_bridges.push_back(h);
      kind_[h.id] = Kind::HostBridge;
      walk(b, h.id, cpu);
      return;
    }
    const bool has_bridges = std::any_of(b.children("object").begin(), b.children("object").end(),
                                         [](xml_node c) { return is(c, "Bridge"); });
    if (has_bridges && kind_[parent] != Kind::HostBridge && kind_[parent] != Kind::Switch) {
      walk(b, add_switch(b, parent), cpu);  // an upstream port: the switch itself, in its parent's slot
      return;
    }
    if (has_bridges && kind_[parent] == Kind::HostBridge) {
      walk(b, add_slot(parent, b), cpu);  // a root port leading to a switch
      return;
    }
    walk(b, add_slot(parent, b), cpu);  // a root port or a switch's downstream port: a slot
  }

  std::string add_slot(const std::string& parent, xml_node port) {
    SlotEntry s;
    s.id = "slot" + std::to_string(spec_.slots.size());
    s.parent = parent;
    s.gen = h_.gen;
    s.width = 16;
    s.where = line(port.offset_debug());
    spec_.slots.push_back(s);
    kind_[s.id] = Kind::Slot;
    return s.id;
  }

  std::string add_switch(xml_node up, const std::string& slot) {
    const PciType t = pci_type(up);
    SwitchEntry s;
    s.id = "sw" + std::to_string(spec_.switches.size());
    const nccl_xml::ModelChoice m =
        h_.switch_model.empty()
            ? nccl_xml::switch_model({static_cast<std::uint16_t>(t.vendor), static_cast<std::uint16_t>(t.device)}, h_.gen, 16)
            : nccl_xml::ModelChoice{h_.switch_model, ""};
    s.model = m.key;
    if (!m.guess.empty()) note(s.id + ": " + m.guess);
    s.attach = attach_to(slot);
    spec_.switches.push_back(s);
    kind_[s.id] = Kind::Switch;
    return s.id;
  }

  /// A device of `width` lanes in `parent`: its slot when it is one (and it is free; the slot is made
  /// that wide), else an on-board link to it.
  PcieAttach attach_to(const std::string& parent, int width = 16) {
    PcieAttach a;
    if (kind_[parent] == Kind::Slot && used_.insert(parent).second) {
      a.slot = parent;
      for (SlotEntry& s : spec_.slots)
        if (s.id == parent) s.width = width;
    } else {
      a.parent = kind_[parent] == Kind::Slot ? slot_parent(parent) : parent;
      a.gen = h_.gen > 0 ? h_.gen : 3;
      a.width = width;
      if (h_.gen == 0) note("On-board PCIe links are assumed Gen3 (--gen)");
    }
    if (width < 16) note("NIC slots are as wide as the NIC (its catalog width); GPU and switch slots x16");
    return a;
  }

  std::string slot_parent(const std::string& slot) const {
    for (const SlotEntry& s : spec_.slots)
      if (s.id == slot) return s.parent;
    return slot;
  }

  void device(xml_node d, const std::string& parent, std::size_t cpu) {
    const PciType t = pci_type(d);
    const unsigned base = t.cls >> 8;
    const std::string bus = d.attribute("pci_busid").value();
    const std::string slot_key = bus.substr(0, bus.rfind('.'));  // functions of one device share it
    if (parent.empty() || spec_.cpus.empty()) fail(d, "a PCI device outside any host bridge");
    (void)cpu;
    if (base == 0x03 && t.vendor == 0x10de) {
      gpu(d, t, parent);
    } else if ((t.cls == 0x0200 || t.cls == 0x0207) && nics_seen_.insert(slot_key).second) {
      nic(d, t, parent);
    } else {
      note("PCI devices other than NVIDIA GPUs and NICs were left out");
    }
  }

  void gpu(xml_node d, const PciType& t, const std::string& parent) {
    GpuEntry g;
    const std::size_t index = spec_.gpus.size();
    g.id = "gpu" + std::to_string(index);
    std::string name;
    for (xml_node os : d.children("object"))
      if (is(os, "OSDev") && name.empty()) name = info(os, "GPUModel");
    if (!h_.gpu_models.empty()) {
      g.model = h_.gpu_models.size() == 1 ? h_.gpu_models.front() : h_.gpu_models.at(std::min(index, h_.gpu_models.size() - 1));
    } else if (const auto key = name.empty() ? std::nullopt : gpu_key_from_name(name)) {
      g.model = *key;
    } else {
      nccl_xml::GpuFacts facts;
      facts.id = {static_cast<std::uint16_t>(t.vendor), static_cast<std::uint16_t>(t.device)};
      facts.geforce_class = t.cls == 0x0300;
      const nccl_xml::ModelChoice m = nccl_xml::gpu_model(facts);
      if (m.key.empty() || find_gpu(m.key) == nullptr)
        fail(d, "no catalog GPU for " + (name.empty() ? std::string("PCI id ") + d.attribute("pci_type").value() : "\"" + name + "\"") +
                    ": give --gpu KEY (`rigsim catalog gpus`)");
      g.model = m.key;
      if (!m.guess.empty()) note(g.id + ": " + m.guess);
    }
    g.attach = attach_to(parent);
    g.where = line(d.offset_debug());
    spec_.gpus.push_back(g);
  }

  /// A NIC the catalog knows by its PCI id (or --nic); any other network function is left out, since a
  /// guessed 100 Gb/s card where the box has a 1 GbE port would mislead every multi-node prediction.
  void nic(xml_node d, const PciType& t, const std::string& parent) {
    (void)d;
    NicEntry n;
    n.id = "nic" + std::to_string(spec_.nics.size());
    const nccl_xml::ModelChoice m =
        h_.nic_model.empty() ? nccl_xml::nic_model({static_cast<std::uint16_t>(t.vendor), static_cast<std::uint16_t>(t.device)}, 0, h_.gen)
                             : nccl_xml::ModelChoice{h_.nic_model, ""};
    if (!m.guess.empty() && t.vendor != 0x15b3) {
      char id[16];
      std::snprintf(id, sizeof id, "%04x:%04x", t.vendor, t.device);
      note(std::string("Network device ") + id + " is not in the catalog and was left out (--nic to include NICs)");
      return;
    }
    n.model = m.key;
    if (!m.guess.empty()) note(n.id + ": " + m.guess);
    n.attach = attach_to(parent, find_nic(n.model)->pcie_width);
    spec_.nics.push_back(n);
  }

  /// Host bridge lanes: x16 for each slot, switch or on-board device below it; empty bridges and
  /// slots are dropped (hwloc keeps bridges with nothing rigsim models below them).
  void finish_bridges() {
    std::set<std::string> used_parents;
    const auto use = [&](const PcieAttach& a) {
      used_parents.insert(a.slot.empty() ? a.parent : slot_parent(a.slot));
      if (!a.slot.empty()) used_parents.insert(a.slot);
    };
    for (const GpuEntry& g : spec_.gpus) use(g.attach);
    for (const NicEntry& n : spec_.nics) use(n.attach);
    // A switch counts as used when anything is below it; walk up until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (const SwitchEntry& s : spec_.switches)
        if (used_parents.contains(s.id) && !used_parents.contains(s.attach.slot.empty() ? s.attach.parent : s.attach.slot)) {
          use(s.attach);
          changed = true;
        }
    }
    std::erase_if(spec_.switches, [&](const SwitchEntry& s) { return !used_parents.contains(s.id); });
    std::erase_if(spec_.slots, [&](const SlotEntry& s) { return !used_parents.contains(s.id); });
    std::erase_if(spec_.host_bridges, [&](const HostBridgeEntry& h) { return !used_parents.contains(h.id); });
    for (HostBridgeEntry& h : spec_.host_bridges) {
      int lanes = 0;
      for (const SlotEntry& s : spec_.slots) lanes += s.parent == h.id ? s.width : 0;
      for (const SwitchEntry& s : spec_.switches) lanes += s.attach.parent == h.id ? s.attach.width : 0;
      for (const GpuEntry& g : spec_.gpus) lanes += g.attach.parent == h.id ? g.attach.width : 0;
      for (const NicEntry& n : spec_.nics) lanes += n.attach.parent == h.id ? n.attach.width : 0;
      h.lanes = std::max(lanes, 1);
    }
  }

  enum class Kind { None, HostBridge, Slot, Switch };

  const std::string& text_;
  std::string file_;
  const ImportHints& h_;
  std::vector<std::size_t> newlines_;
  LayoutSpec spec_;
  std::map<std::string, Kind> kind_;
  std::set<std::string> used_;       // slots holding a device or switch
  std::set<std::string> nics_seen_;  // bus:device of NICs already imported (one per card, not per port)
  std::map<std::string, int> notes_;
  int depth_ = 0;
};

}  // namespace

LayoutSpec import_hwloc(const std::string& text, const std::string& file, const ImportHints& hints) {
  LayoutSpec spec = Importer(text, file, hints).run();
  spec.file = file;
  return spec;
}

}  // namespace rigsim::topology
