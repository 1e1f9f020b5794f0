// import_lspci(): `lspci -tvnn` (or -tv / -t) to a layout sketch.
//
// The tree text is parsed by column: every node ("[0000:80]" root bus, "02.0" device) sits to the right
// of its parent, and a sibling starts in its elder sibling's column, so a stack of (column, node) gives
// each node its parent. A device followed by "-[bb]" or "-[bb-cc]" is a bridge; a bridge under a root
// bus is a root port (a slot); a bridge whose children are bridges is a switch's upstream port (its
// children are downstream ports, each a slot). NVIDIA function-0 devices that are not audio, USB or
// bridges are GPUs; Mellanox function-0 devices NICs. lspci shows neither the CPU nor NUMA: --cpu is
// required, and root buses from 0x80 up are taken as the second socket (the usual two-socket
// numbering), which the notes say.
#include <algorithm>
#include <cstdio>
#include <cctype>
#include <map>
#include <set>
#include <regex>
#include <sstream>

#include "common/input.hpp"
#include "common/suggest.hpp"
#include "topology/catalog.hpp"
#include "topology/catalog_names.hpp"
#include "topology/importers.hpp"
#include "topology/nccl_xml_ids.hpp"

namespace rigsim::topology {
namespace {

struct Node {
  enum Kind { Root, Bridge, Device } kind = Device;
  std::string bus;   // "0000:80" for a root bus
  std::string slot;  // "02.0" for a device
  std::string name;  // as printed, "" when not on the line
  std::string secondary;  // a root's bus, a bridge's first secondary bus ("81" of "-[81-8b]")
  std::string busid;      // a device's "0000:85:00.0"
  unsigned vendor = 0, device = 0;
  int parent = -1;
  int line = 0;
  std::vector<int> children;
};

bool hex2(const std::string& s, std::size_t i) {
  return i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])) &&
         std::isxdigit(static_cast<unsigned char>(s[i + 1]));
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : file_(file) {
    std::istringstream in(text);
    int n = 0;
    for (std::string l; std::getline(in, l);) line(l, ++n);
    if (nodes_.empty()) throw InputError(file_, "line 1", "expected `lspci -tv` output (a tree starting with \"-[0000:00]\")");
  }
  std::vector<Node> nodes() && { return std::move(nodes_); }

 private:
  void line(const std::string& l, int number) {
    std::size_t i = 0;
    while (i < l.size()) {
      if (l[i] == '[' && i + 9 < l.size() + 1 && l.compare(i + 5, 1, ":") == 0 && l.find(']', i) == i + 8 &&
          hex2(l, i + 1) && hex2(l, i + 3) && hex2(l, i + 6)) {  // "[dddd:bb]", all hex
        add(Node::Root, i, l, number, i + 9);
        i += 9;
        continue;
      }
      if (i > 0 && l[i - 1] == '-' && hex2(l, i) && i + 3 < l.size() && l[i + 2] == '.' &&
          std::isdigit(static_cast<unsigned char>(l[i + 3]))) {
        std::size_t end = i + 4;
        Node::Kind kind = Node::Device;
        std::string secondary;
        if (l.compare(end, 2, "-[") == 0) {
          const std::size_t close = l.find(']', end);
          if (close == std::string::npos || !hex2(l, end + 2))
            throw InputError(file_, "line " + std::to_string(number), "a bridge's bus range is not \"-[bb]\" or \"-[bb-cc]\"");
          kind = Node::Bridge;
          secondary = l.substr(end + 2, 2);
          end = close + 1;
        }
        add(kind, i, l, number, end);
        nodes_.back().secondary = secondary;
        i = end;
        continue;
      }
      ++i;
    }
  }

  void add(Node::Kind kind, std::size_t column, const std::string& l, int number, std::size_t end) {
    while (!stack_.empty() && stack_.back().first >= column) stack_.pop_back();
    Node n;
    n.kind = kind;
    n.line = number;
    if (kind == Node::Root) {
      n.bus = l.substr(column + 1, 7);
      n.secondary = n.bus.substr(5, 2);
    } else {
      if (stack_.empty()) throw InputError(file_, "line " + std::to_string(number), "a device before any root bus \"[0000:00]\"");
      n.slot = l.substr(column, 4);
    }
    // The name, when this is the last node of its line: "  NVIDIA Corporation ... [10de:2204]".
    const std::size_t rest = l.find_first_not_of("- ", end);
    if (rest != std::string::npos && end + 1 < l.size() && l.compare(end, 2, "  ") == 0) {
      n.name = l.substr(rest);
      static const std::regex ids(R"(\[([0-9a-f]{4}):([0-9a-f]{4})\](?:\s*\(rev [0-9a-f]+\))?\s*$)");
      std::smatch m;
      if (std::regex_search(n.name, m, ids)) {
        n.vendor = std::stoul(m[1], nullptr, 16);
        n.device = std::stoul(m[2], nullptr, 16);
      }
    }
    if (!stack_.empty()) {
      n.parent = stack_.back().second;
      if (nodes_[static_cast<std::size_t>(n.parent)].kind == Node::Device)
        throw InputError(file_, "line " + std::to_string(number), "a device below a device that is not a bridge");
      Node& p = nodes_[static_cast<std::size_t>(n.parent)];
      p.children.push_back(static_cast<int>(nodes_.size()));
      n.bus = p.bus;
      if (kind != Node::Root) n.busid = n.bus.substr(0, 5) + p.secondary + ":" + n.slot;
    }
    stack_.emplace_back(column, static_cast<int>(nodes_.size()));
    nodes_.push_back(std::move(n));
  }

  std::string file_;
  std::vector<Node> nodes_;
  std::vector<std::pair<std::size_t, int>> stack_;
};

class Builder {
 public:
  Builder(std::vector<Node> nodes, const std::string& file, const ImportHints& h)
      : n_(std::move(nodes)), file_(file), h_(h) {}

  LayoutSpec build() {
    if (h_.cpu_model.empty())
      throw InputError("", "--cpu", "lspci does not show the CPU: give its catalog key, e.g. --cpu xeon-e5-v4");
    if (find_cpu(h_.cpu_model) == nullptr)
      throw InputError("", "--cpu", "unknown CPU model \"" + h_.cpu_model + "\"" + did_you_mean(h_.cpu_model, cpu_keys()));
    spec_.name = h_.name;
    spec_.description = "Imported from lspci -tv (" + file_ + ")";
    spec_.notes.push_back("Sketch made by `rigsim import lspci` from " + file_ +
                          "; every line below is an assumption to check against the real box.");
    per_x16_ = find_cpu(h_.cpu_model)->root_port_per_x16;
    for (std::size_t i = 0; i < n_.size(); ++i)
      if (n_[i].kind == Node::Root) root(static_cast<int>(i));
    if (spec_.gpus.empty()) throw InputError(file_, "line 1", "no NVIDIA GPU in the tree (with -nn, ids [10de:....])");
    finish();
    number_by_bus();
    return spec_;
  }

 private:
  void note(const std::string& s) {
    if (std::find(spec_.notes.begin(), spec_.notes.end(), s) == spec_.notes.end()) spec_.notes.push_back(s);
  }

  std::string cpu_of(const Node& r) {
    const bool second = std::stoul(r.bus.substr(5, 2), nullptr, 16) >= 0x80;
    if (second) note("lspci shows no sockets: root buses 80 and up are taken as socket 1 (the usual two-socket numbering)");
    const std::size_t s = second ? 1 : 0;
    while (spec_.cpus.size() <= s) {
      CpuEntry c;
      c.id = "cpu" + std::to_string(spec_.cpus.size());
      c.model = h_.cpu_model;
      c.socket = static_cast<int>(spec_.cpus.size());
      c.numa = c.socket;
      spec_.cpus.push_back(c);
    }
    return spec_.cpus[s].id;
  }

  void root(int r) {
    const std::string cpu = cpu_of(n_[static_cast<std::size_t>(r)]);
    std::string rc;
    for (int c : n_[static_cast<std::size_t>(r)].children) {
      if (rc.empty() || per_x16_) {
        rc = "rc" + std::to_string(spec_.host_bridges.size());
        spec_.host_bridges.push_back({rc, cpu, 16, -1, ""});
      }
      const Node& d = n_[static_cast<std::size_t>(c)];
      if (d.kind == Node::Bridge)
        below(c, slot(rc));
      else
        endpoint(c, rc);
    }
  }

  /// Everything below bridge `b`, which is (or leads to) `parent` (a slot or switch id).
  void below(int b, const std::string& parent) {
    for (int c : n_[static_cast<std::size_t>(b)].children) {
      const Node& d = n_[static_cast<std::size_t>(c)];
      if (d.kind != Node::Bridge) {
        endpoint(c, parent);
        continue;
      }
      const bool upstream = std::any_of(d.children.begin(), d.children.end(),
                                        [&](int k) { return n_[static_cast<std::size_t>(k)].kind == Node::Bridge; });
      if (upstream && kind_[parent] == 'S') {
        const std::string sw = add_switch(d, parent);
        for (int port : d.children)
          if (n_[static_cast<std::size_t>(port)].kind == Node::Bridge) below(port, slot(sw));
      } else {
        below(c, kind_[parent] == 'W' ? slot(parent) : parent);
      }
    }
  }

  std::string slot(const std::string& parent) {
    SlotEntry s;
    s.id = "slot" + std::to_string(spec_.slots.size());
    s.parent = parent;
    s.gen = h_.gen;
    s.width = 16;
    spec_.slots.push_back(s);
    kind_[s.id] = 'S';
    return s.id;
  }

  std::string add_switch(const Node& up, const std::string& slot) {
    SwitchEntry s;
    s.id = "sw" + std::to_string(spec_.switches.size());
    const nccl_xml::ModelChoice m =
        h_.switch_model.empty()
            ? nccl_xml::switch_model({static_cast<std::uint16_t>(up.vendor), static_cast<std::uint16_t>(up.device)}, h_.gen, 16)
            : nccl_xml::ModelChoice{h_.switch_model, ""};
    s.model = m.key;
    if (!m.guess.empty()) note("Switches: " + m.guess + (up.vendor == 0 ? " (run lspci -tvnn to show ids)" : ""));
    s.attach.slot = slot;
    used_.insert(slot);
    spec_.switches.push_back(s);
    kind_[s.id] = 'W';
    return s.id;
  }

  PcieAttach attach_to(const std::string& parent) {
    PcieAttach a;
    if (kind_[parent] == 'S' && used_.insert(parent).second) {
      a.slot = parent;
    } else {
      a.parent = parent;
      for (const SlotEntry& s : spec_.slots)
        if (s.id == parent) a.parent = s.parent;
      a.gen = h_.gen > 0 ? h_.gen : 3;
      a.width = 16;
    }
    return a;
  }

  void endpoint(int i, const std::string& parent) {
    const Node& d = n_[static_cast<std::size_t>(i)];
    if (d.slot.back() != '0') return;  // other functions of a device already seen
    static const std::regex not_gpu("Audio|USB|Bridge|bridge|NVSwitch|UCSI|Serial bus", std::regex::icase);
    const bool nvidia = d.vendor == 0x10de || (d.vendor == 0 && d.name.find("NVIDIA") != std::string::npos);
    if (nvidia && !std::regex_search(d.name, not_gpu)) {
      gpu(d, parent);
    } else if (d.vendor == 0x15b3 || (d.vendor == 0 && d.name.find("Mellanox") != std::string::npos)) {
      NicEntry n;
      n.id = "nic" + std::to_string(spec_.nics.size());
      const nccl_xml::ModelChoice m =
          h_.nic_model.empty() ? nccl_xml::nic_model({static_cast<std::uint16_t>(d.vendor), static_cast<std::uint16_t>(d.device)}, 0, h_.gen)
                               : nccl_xml::ModelChoice{h_.nic_model, ""};
      n.model = m.key;
      if (!m.guess.empty()) note("NICs: " + m.guess + " (--nic)");
      n.attach = attach_to(parent);
      spec_.nics.push_back(n);
    }
  }

  void gpu(const Node& d, const std::string& parent) {
    GpuEntry g;
    const std::size_t index = spec_.gpus.size();
    g.id = "gpu" + std::to_string(index);
    // lspci names a GPU "NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204] (rev a1)": the
    // marketing name is the bracket before the ids.
    static const std::regex marketing(R"(\[([^\]]*[A-Za-z][^\]]*)\]\s*(\[[0-9a-f]{4}:[0-9a-f]{4}\])?\s*(\(rev [0-9a-f]+\))?\s*$)");
    std::smatch m;
    const std::string name = std::regex_search(d.name, m, marketing) ? m[1].str() : d.name;
    if (!h_.gpu_models.empty()) {
      g.model = h_.gpu_models.size() == 1 ? h_.gpu_models.front() : h_.gpu_models.at(std::min(index, h_.gpu_models.size() - 1));
    } else if (const auto key = gpu_key_from_name(name)) {
      g.model = *key;
    } else {
      nccl_xml::GpuFacts facts;
      facts.id = {static_cast<std::uint16_t>(d.vendor), static_cast<std::uint16_t>(d.device)};
      const nccl_xml::ModelChoice c = nccl_xml::gpu_model(facts);
      if (c.key.empty() || find_gpu(c.key) == nullptr || d.vendor == 0)
        throw InputError(file_, "line " + std::to_string(d.line),
                         "no catalog GPU for \"" + d.name + "\": give --gpu KEY (`rigsim catalog gpus`)");
      g.model = c.key;
      note(g.id + ": " + c.guess);
    }
    g.attach = attach_to(parent);
    spec_.gpus.push_back(g);
    gpu_bus_.push_back(d.busid);
  }

  /// GPU i is the i-th GPU in PCI bus order, as CUDA numbers them with CUDA_DEVICE_ORDER=PCI_BUS_ID
  /// (and nvidia-smi always): lspci prints root buses in its own order.
  void number_by_bus() {
    std::vector<std::size_t> order(spec_.gpus.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return gpu_bus_[a] < gpu_bus_[b]; });
    std::vector<GpuEntry> sorted;
    for (std::size_t i : order) {
      sorted.push_back(spec_.gpus[i]);
      sorted.back().id = "gpu" + std::to_string(sorted.size() - 1);
    }
    spec_.gpus = std::move(sorted);
    note("GPU i is the i-th GPU in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID, nvidia-smi's order)");
  }

  /// Drops slots, switches and host bridges with nothing rigsim models below them; host bridge lanes
  /// are x16 per remaining child.
  void finish() {
    std::set<std::string> used;
    const auto mark = [&](const PcieAttach& a) { used.insert(a.slot.empty() ? a.parent : a.slot); };
    for (const GpuEntry& g : spec_.gpus) mark(g.attach);
    for (const NicEntry& n : spec_.nics) mark(n.attach);
    for (bool changed = true; changed;) {
      changed = false;
      for (const SlotEntry& s : spec_.slots)
        if (used.contains(s.id) && used.insert(s.parent).second) changed = true;
      for (const SwitchEntry& s : spec_.switches)
        if (used.contains(s.id) && used.insert(s.attach.slot).second) changed = true;
    }
    std::erase_if(spec_.slots, [&](const SlotEntry& s) { return !used.contains(s.id); });
    std::erase_if(spec_.switches, [&](const SwitchEntry& s) { return !used.contains(s.id); });
    std::erase_if(spec_.host_bridges, [&](const HostBridgeEntry& h) { return !used.contains(h.id); });
    for (HostBridgeEntry& h : spec_.host_bridges) {
      int children = 0;
      for (const SlotEntry& s : spec_.slots) children += s.parent == h.id;
      for (const GpuEntry& g : spec_.gpus) children += g.attach.parent == h.id;
      for (const NicEntry& n : spec_.nics) children += n.attach.parent == h.id;
      h.lanes = 16 * std::max(children, 1);
    }
    std::erase_if(spec_.cpus, [&](const CpuEntry& c) {
      return std::none_of(spec_.host_bridges.begin(), spec_.host_bridges.end(), [&](const HostBridgeEntry& h) { return h.cpu == c.id; });
    });
    for (std::size_t s = 1; s < spec_.cpus.size(); ++s) spec_.inter_socket.push_back({spec_.cpus[0].id, spec_.cpus[s].id, 0, 0, ""});
    note("Slots are assumed x16 at the CPU's generation (lspci -tv shows no link state; lspci -vv LnkSta does)");
  }

  std::vector<Node> n_;
  std::string file_;
  const ImportHints& h_;
  LayoutSpec spec_;
  bool per_x16_ = false;
  std::map<std::string, char> kind_;  // 'S' slot, 'W' switch
  std::set<std::string> used_;        // slots holding something
  std::vector<std::string> gpu_bus_;  // bus id of each GPU, in spec_.gpus order
};

}  // namespace

LayoutSpec import_lspci(const std::string& text, const std::string& file, const ImportHints& hints) {
  LayoutSpec spec = Builder(Parser(text, file).nodes(), file, hints).build();
  spec.file = file;
  return spec;
}

}  // namespace rigsim::topology
