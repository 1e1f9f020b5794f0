// import_nvidia_smi_topo(): `nvidia-smi topo -m` to a layout sketch.
//
// The matrix gives, for each pair of GPUs and NICs, the most distant PCIe element between them
// (nvidia-smi's legend): PIX at most one bridge (one switch), PXB several bridges without the host
// bridge (switches under a switch), PHB through one host bridge, NODE between host bridges of one NUMA
// node, SYS across the socket interconnect, NV# a bonded set of # NVLinks (which hides the PCIe
// relation of that pair). The sketch is rebuilt from those classes by grouping: NUMA affinity gives
// the sockets, components joined by PIX/PXB/PHB the root complexes, components joined by PIX/PXB the
// switch trees, and PIX components the leaf switches.
#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>

#include "common/input.hpp"
#include "common/suggest.hpp"
#include "topology/catalog.hpp"
#include "topology/importers.hpp"

namespace rigsim::topology {
namespace {

struct SmiDevice {
  std::string name;  // "GPU0", "NIC1"
  bool gpu = true;
  int index = 0;
  int numa = -1;         // NUMA affinity column; -1: N/A or absent
  std::string affinity;  // CPU affinity column, as printed
  std::string os_name;   // NIC legend: "mlx5_0"
  int line = 0;
};

struct SmiMatrix {
  std::vector<SmiDevice> devices;
  std::vector<std::vector<std::string>> rel;  // rel[i][j]: X, PIX, PXB, PHB, NODE, SYS, NV#
};

/// The line without terminal escape sequences (ESC [ parameters, then a letter): nvidia-smi underlines
/// the header row with ESC[4m ... ESC[0m, also into a pipe (seen on an H200 with driver 580).
std::string without_escapes(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(without_escapes(line));
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool is_device_name(const std::string& t) {
  static const std::regex re("(GPU|NIC)[0-9]{1,4}");  // short enough for std::stoi
  return std::regex_match(t, re);
}

bool is_relation(const std::string& t) {
  static const std::regex re("X|PIX|PXB|PHB|NODE|SYS|SOC|NV[0-9]{1,3}");  // NV18 on H100
  return std::regex_match(t, re);
}

/// The header line's device columns; `line` is its 1-based number.
std::vector<std::string> header_devices(const std::vector<std::string>& lines, std::size_t& at, const std::string& file) {
  for (at = 0; at < lines.size(); ++at) {
    const auto t = split(lines[at]);
    if (!t.empty() && t.front() == "GPU0") {
      std::vector<std::string> names;
      for (const std::string& x : t) {
        if (!is_device_name(x)) break;
        names.push_back(x);
      }
      return names;
    }
  }
  throw InputError(file, "line 1",
                   "expected the output of `nvidia-smi topo -m`: a header line starting with GPU0, found none");
}

int numa_of(const std::string& t, const std::string& file, int line) {
  if (t == "N/A") return -1;
  int v = 0;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || v > 4096)
      throw InputError(file, "line " + std::to_string(line), "expected a NUMA node number or N/A, got \"" + t + "\"");
    v = v * 10 + (c - '0');
  }
  return v;
}

SmiMatrix parse(const std::string& text, const std::string& file) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::size_t head = 0;
  const std::vector<std::string> names = header_devices(lines, head, file);
  SmiMatrix m;
  const std::size_t n = names.size();
  m.rel.assign(n, std::vector<std::string>(n));
  std::vector<bool> seen(n, false);
  for (std::size_t i = head + 1; i < lines.size(); ++i) {
    const auto t = split(lines[i]);
    if (t.empty()) continue;
    if (t.front() == "Legend:") break;
    const int line = static_cast<int>(i + 1);
    const auto col = std::find(names.begin(), names.end(), t.front());
    if (col == names.end())
      throw InputError(file, "line " + std::to_string(line), "expected a row of the matrix starting with one of " +
                                                                 names.front() + ".." + names.back() + ", got \"" +
                                                                 t.front() + "\"");
    const auto r = static_cast<std::size_t>(col - names.begin());
    if (t.size() < n + 1)
      throw InputError(file, "line " + std::to_string(line),
                       "expected " + std::to_string(n) + " cells after " + t.front() + ", got " +
                           std::to_string(t.size() - 1) + " (a truncated matrix?)");
    for (std::size_t c = 0; c < n; ++c) {
      const std::string& cell = t[c + 1];
      if (cell == "OK" || cell == "NS" || cell == "CNS" || cell == "TNS" || cell == "GNS")
        throw InputError(file, "line " + std::to_string(line),
                         "this is `nvidia-smi topo -p2p` output (which pairs may use P2P), not the wiring; give "
                         "`nvidia-smi topo -m`");
      if (!is_relation(cell))
        throw InputError(file, "line " + std::to_string(line),
                         "expected X, PIX, PXB, PHB, NODE, SYS or NV# in column " + names[c] + ", got \"" + cell + "\"");
      m.rel[r][c] = cell == "SOC" ? "SYS" : cell;  // drivers before 2017 printed SOC for SYS
    }
    SmiDevice d;
    d.name = t.front();
    d.gpu = d.name.rfind("GPU", 0) == 0;
    d.index = std::stoi(d.name.substr(3));
    d.line = line;
    if (d.gpu && t.size() >= n + 3) {
      d.affinity = t[n + 1];
      d.numa = numa_of(t[n + 2], file, line);
    }
    if (seen[r]) throw InputError(file, "line " + std::to_string(line), "row " + d.name + " appears twice");
    seen[r] = true;
    m.devices.resize(n);
    m.devices[r] = d;
  }
  for (std::size_t c = 0; c < n; ++c)
    if (!seen[c])
      throw InputError(file, "line " + std::to_string(head + 1), "the matrix has no row for " + names[c] + " (truncated?)");
  // NIC legend: "  NIC0: mlx5_0".
  static const std::regex legend(R"(\s*(NIC[0-9]+):\s*(\S+)\s*)");
  for (const std::string& l : lines) {
    std::smatch s;
    if (!std::regex_match(l, s, legend)) continue;
    for (SmiDevice& d : m.devices)
      if (d.name == s[1]) d.os_name = s[2];
  }
  return m;
}

/// Union-find over device indices.
class Groups {
 public:
  explicit Groups(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t a) { return parent_[a] == a ? a : parent_[a] = find(parent_[a]); }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }
  /// Components of `members` in order of their first member.
  std::vector<std::vector<std::size_t>> of(const std::vector<std::size_t>& members) {
    std::map<std::size_t, std::size_t> slot;
    std::vector<std::vector<std::size_t>> out;
    for (std::size_t d : members) {
      const auto [it, added] = slot.emplace(find(d), out.size());
      if (added) out.emplace_back();
      out[it->second].push_back(d);
    }
    return out;
  }

 private:
  std::vector<std::size_t> parent_;
};

std::vector<std::vector<std::size_t>> components(const SmiMatrix& m, const std::vector<std::size_t>& members,
                                                 const std::set<std::string>& joined_by) {
  Groups g(m.devices.size());
  for (std::size_t a : members)
    for (std::size_t b : members)
      if (a != b && joined_by.contains(m.rel[a][b])) g.join(a, b);
  return g.of(members);
}

std::string checked(const std::string& key, const std::vector<std::string>& known, const std::string& option,
                    const std::string& what) {
  if (std::find(known.begin(), known.end(), key) == known.end())
    throw InputError("", option, "unknown " + what + " \"" + key + "\"" + did_you_mean(key, known) +
                                     " (rigsim catalog lists them)");
  return key;
}

class Builder {
 public:
  Builder(const SmiMatrix& m, const ImportHints& h, const std::string& file) : m_(m), h_(h), file_(file) {}

  LayoutSpec build() {
    spec_.name = h_.name;
    spec_.description = "Imported from `nvidia-smi topo -m` (" + file_ + ")";
    spec_.notes.push_back("Sketch made by `rigsim import nvidia-smi-topo` from " + file_ +
                          "; every line below is an assumption to check against the real box.");
    models();
    sockets();
    for (std::size_t s = 0; s < socket_members_.size(); ++s) socket(s);
    nvlinks();
    xgmi_links();
    if (!nic_names_.empty()) note("NICs " + nic_names_ + " are assumed to be " + nic_model_ + " (--nic).");
    const auto by_index = [](const auto& a, const auto& b) { return std::stoi(a.id.substr(3)) < std::stoi(b.id.substr(3)); };
    std::sort(spec_.gpus.begin(), spec_.gpus.end(), by_index);
    std::sort(spec_.nics.begin(), spec_.nics.end(), by_index);
    return spec_;
  }

  /// Two-socket EPYC boards may join the sockets with 3 xGMI links instead of 4, freeing x16 per socket
  /// (AMD's 2P "160 lanes" configuration): assumed when the devices need it.
  void xgmi_links() {
    const CpuSpec& cpu = *find_cpu(h_.cpu_model);
    if (spec_.cpus.size() != 2 || cpu.inter_socket != InterSocketKind::Xgmi || cpu.inter_socket_links != 4) return;
    for (const CpuEntry& c : spec_.cpus) {
      int lanes = 0;
      for (const HostBridgeEntry& h : spec_.host_bridges)
        if (h.cpu == c.id) lanes += h.lanes;
      if (lanes > lane_budget() && lanes <= lane_budget() + 16) {
        spec_.inter_socket.front().links = 3;
        note(c.id + "'s devices need " + std::to_string(lanes) + " lanes: the sockets are assumed joined by 3 xGMI "
             "links (the 2P configuration with 160 PCIe lanes) instead of 4.");
        return;
      }
    }
  }

 private:
  void note(std::string s) { spec_.notes.push_back(std::move(s)); }

  void models() {
    std::size_t gpus = 0;
    for (const SmiDevice& d : m_.devices) gpus += d.gpu;
    if (h_.gpu_models.empty())
      throw InputError("", "--gpu",
                       "`nvidia-smi topo -m` does not name the GPUs: give their catalog key, e.g. --gpu rtx-4090 "
                       "(one for all, or one per GPU in index order)");
    if (h_.gpu_models.size() != 1 && h_.gpu_models.size() != gpus)
      throw InputError("", "--gpu", "expected one GPU model or " + std::to_string(gpus) + " (one per GPU), got " +
                                        std::to_string(h_.gpu_models.size()));
    for (const std::string& g : h_.gpu_models) checked(g, gpu_keys(), "--gpu", "GPU model");
    if (h_.cpu_model.empty())
      throw InputError("", "--cpu",
                       "`nvidia-smi topo -m` does not name the CPU: give its catalog key, e.g. --cpu epyc-9004");
    checked(h_.cpu_model, cpu_keys(), "--cpu", "CPU model");
    const int gen = h_.gen > 0 ? h_.gen : pcie_generation_of_cpu();
    switch_model_ = !h_.switch_model.empty() ? checked(h_.switch_model, switch_keys(), "--switch", "switch model")
                    : gen >= 5               ? "pex89104"
                    : gen == 4               ? "pex88096"
                                             : "pex8747";
    nic_model_ = !h_.nic_model.empty() ? checked(h_.nic_model, nic_keys(), "--nic", "NIC model")
                 : gen >= 5            ? "connectx-7-400g"
                 : gen == 4            ? "connectx-6-200g"
                                       : "connectx-5-100g";
  }

  int pcie_generation_of_cpu() const { return find_cpu(h_.cpu_model)->pcie_gen; }

  std::string gpu_model(int index) const {
    return h_.gpu_models.size() == 1 ? h_.gpu_models.front() : h_.gpu_models[static_cast<std::size_t>(index)];
  }

  /// Sockets from NUMA affinity; a device without one joins the socket of a device it is not SYS from.
  /// A part made for one or two sockets never gets more: surplus NUMA nodes (EPYC NPS2/NPS4, Xeon
  /// sub-NUMA clustering) are grouped, in order, into that many sockets.
  void sockets() {
    std::set<int> numas;
    for (const SmiDevice& d : m_.devices)
      if (d.numa >= 0) numas.insert(d.numa);
    if (numas.empty()) numas.insert(0);
    const CpuSpec& cpu = *find_cpu(h_.cpu_model);
    const std::size_t most = cpu.inter_socket == InterSocketKind::None ? 1 : 2;
    const std::size_t count = std::min(numas.size(), most);
    std::map<int, std::size_t> socket_of_numa;
    for (int n : numas) socket_of_numa.emplace(n, socket_of_numa.size() * count / numas.size());
    socket_members_.assign(count, {});
    for (std::size_t i = 0; i < m_.devices.size(); ++i) socket_members_[socket_of_numa.at(numa_of_device(i, numas))].push_back(i);
    for (std::size_t s = 0; s < count; ++s) {
      CpuEntry c;
      c.id = "cpu" + std::to_string(s);
      c.model = h_.cpu_model;
      c.socket = static_cast<int>(s);
      for (const auto& [numa, of] : socket_of_numa)
        if (of == s && c.numa < 0) c.numa = numa;
      spec_.cpus.push_back(c);
    }
    if (numas.size() > count)
      note(std::to_string(numas.size()) + " NUMA nodes on " + std::to_string(count) + " socket(s) of " + h_.cpu_model +
           " (NPS or sub-NUMA clustering): consecutive nodes grouped per socket; rigsim does not model NUMA nodes "
           "within a socket, so devices the matrix shows as SYS inside one socket come out as NODE.");
    else if (count > 1)
      note("Each NUMA node of the affinity column is taken as one socket of " + h_.cpu_model + ".");
    for (std::size_t s = 1; s < count; ++s) spec_.inter_socket.push_back({"cpu0", "cpu" + std::to_string(s), 0, 0, ""});
    note((h_.models_from.empty() ? "CPU model " + h_.cpu_model + " (from --cpu); GPU models from --gpu"
                                 : h_.models_from) +
         "; GPU i of the layout is GPU i of the matrix (NVML order: CUDA uses the same with "
         "CUDA_DEVICE_ORDER=PCI_BUS_ID).");
  }

  int numa_of_device(std::size_t i, const std::set<int>& numas) {
    int numa = m_.devices[i].numa;
    for (std::size_t j = 0; numa < 0 && j < m_.devices.size(); ++j)
      if (m_.devices[j].numa >= 0 && m_.rel[i][j] != "SYS" && m_.rel[i][j].rfind("NV", 0) != 0)
        numa = m_.devices[j].numa;
    if (numa >= 0) return numa;
    if (numas.size() > 1)
      note(m_.devices[i].name + ": no NUMA affinity and SYS to every device that has one; placed on NUMA " +
           std::to_string(*numas.begin()) + ".");
    return *numas.begin();
  }

  /// PCIe lanes one socket can give its devices: the part's lanes, less those an AMD two-socket board
  /// gives to xGMI (the build checks the same budget).
  int lane_budget() const {
    const CpuSpec& cpu = *find_cpu(h_.cpu_model);
    int lanes = cpu.pcie_lanes;
    if (spec_.cpus.size() > 1 && cpu.inter_socket == InterSocketKind::Xgmi) lanes -= 16 * cpu.inter_socket_links;
    return lanes;
  }

  /// One socket: root complexes (PIX/PXB/PHB components), switch trees (PIX/PXB), leaf switches (PIX).
  /// GPUs whose every GPU relation is NV# show no PCIe relation at all; when they would take more lanes
  /// than the socket has on root ports of their own, they are paired behind switches, as HGX boards do.
  void socket(std::size_t s) {
    const std::string cpu = "cpu" + std::to_string(s);
    auto roots = components(m_, socket_members_[s], {"PIX", "PXB", "PHB"});
    pair_hidden(roots);
    const bool per_x16 = find_cpu(h_.cpu_model)->root_port_per_x16;
    for (const auto& root : roots) {
      std::vector<std::vector<std::size_t>> trees = components(m_, root, {"PIX", "PXB"});
      if (paired_.contains(root.front())) trees = {root};
      // A CPU whose host bridges are single x16 root ports (EPYC, Threadripper) gets one per tree.
      const std::size_t per_bridge = per_x16 ? 1 : trees.size();
      if (per_x16 && trees.size() > 1)
        note("PHB group " + names(root) + ": one x16 host bridge each, as " + h_.cpu_model +
             " has; rigsim then shows NODE where the matrix says PHB.");
      for (std::size_t t = 0; t < trees.size(); t += per_bridge) {
        const std::string rc = "rc" + std::to_string(spec_.host_bridges.size());
        const std::size_t end = std::min(trees.size(), t + per_bridge);
        for (std::size_t k = t; k < end; ++k) tree(trees[k], rc);
        spec_.host_bridges.push_back({rc, cpu, static_cast<int>(16 * (end - t)), -1, ""});
      }
    }
  }

  void tree(const std::vector<std::size_t>& members, const std::string& rc) {
    if (members.size() == 1) {
      attach(members.front(), rc);
      return;
    }
    const std::string top = add_switch(rc);
    const auto leaves = components(m_, members, {"PIX"});
    if (leaves.size() == 1 || paired_.contains(members.front())) {
      for (std::size_t d : members) attach(d, top);
      return;
    }
    for (const auto& leaf : leaves) {
      if (leaf.size() == 1) {
        attach(leaf.front(), top);
        continue;
      }
      const std::string sw = add_switch(top);
      for (std::size_t d : leaf) attach(d, sw);
    }
  }

  bool hidden(std::size_t d) const {
    if (!m_.devices[d].gpu) return false;
    bool nv = false;
    for (std::size_t j = 0; j < m_.devices.size(); ++j) {
      if (j == d) continue;
      const std::string& r = m_.rel[d][j];
      if (r == "PIX" || r == "PXB" || r == "PHB") return false;
      nv = nv || r.rfind("NV", 0) == 0;
    }
    return nv;
  }

  void pair_hidden(std::vector<std::vector<std::size_t>>& roots) {
    if (static_cast<int>(16 * roots.size()) <= lane_budget()) return;
    std::vector<std::vector<std::size_t>> kept, pairs;
    for (const auto& r : roots) {
      if (r.size() == 1 && hidden(r.front())) {
        if (pairs.empty() || pairs.back().size() == 2) pairs.emplace_back();
        pairs.back().push_back(r.front());
      } else {
        kept.push_back(r);
      }
    }
    for (const auto& p : pairs) {
      if (p.size() == 2) paired_.insert(p.front());
      kept.push_back(p);
    }
    roots = std::move(kept);
    if (!pairs.empty())
      note("NV# hides the PCIe relation of the NVLinked GPUs, and a root port each would exceed the socket's " +
           std::to_string(lane_budget()) + " lanes: they are put in pairs behind PCIe switches, as HGX boards do.");
  }

  std::string names(const std::vector<std::size_t>& members) const {
    std::string out;
    for (std::size_t d : members) out += (out.empty() ? "" : "/") + m_.devices[d].name;
    return out;
  }

  std::string add_switch(const std::string& parent) {
    SwitchEntry e;
    e.id = "sw" + std::to_string(spec_.switches.size());
    e.model = switch_model_;
    e.attach.parent = parent;
    e.attach.gen = find_switch(switch_model_)->gen;
    e.attach.width = 16;
    if (spec_.switches.empty())
      note("PCIe switches (PIX/PXB groups) are assumed to be " + switch_model_ +
           " with x16 uplinks; the matrix does not name them (--switch).");
    spec_.switches.push_back(e);
    return e.id;
  }

  void attach(std::size_t d, const std::string& parent) {
    const SmiDevice& dev = m_.devices[d];
    SlotEntry slot;
    slot.id = "slot" + std::to_string(spec_.slots.size());
    slot.parent = parent;
    slot.gen = h_.gen;
    slot.width = 16;
    spec_.slots.push_back(slot);
    if (dev.gpu) {
      GpuEntry g;
      g.id = "gpu" + std::to_string(dev.index);
      g.model = gpu_model(dev.index);
      g.attach.slot = slot.id;
      spec_.gpus.push_back(g);
      return;
    }
    NicEntry n;
    n.id = "nic" + std::to_string(dev.index);
    n.model = nic_model_;
    n.attach.slot = slot.id;
    spec_.nics.push_back(n);
    nic_names_ += (nic_names_.empty() ? "" : ", ") + dev.name + (dev.os_name.empty() ? "" : " (" + dev.os_name + ")");
  }

  /// NV# pairs: one NVSwitch fabric when every pair of at least four GPUs has the same count (HGX,
  /// DGX), else NVLinks between the pairs (bridges for PCIe cards, board wiring for SXM).
  void nvlinks() {
    std::vector<std::size_t> gpus;
    for (std::size_t i = 0; i < m_.devices.size(); ++i)
      if (m_.devices[i].gpu) gpus.push_back(i);
    std::set<std::string> counts;
    std::size_t pairs = 0;
    for (std::size_t a : gpus)
      for (std::size_t b : gpus)
        if (a < b && m_.rel[a][b].rfind("NV", 0) == 0) counts.insert(m_.rel[a][b]), ++pairs;
    if (pairs == 0) return;
    const GpuSpec* spec = find_gpu(gpu_model(m_.devices[gpus.front()].index));
    if (gpus.size() >= 4 && pairs == gpus.size() * (gpus.size() - 1) / 2 && counts.size() == 1) {
      NvSwitchEntry e;
      e.id = "nvswitch0";
      for (const NvSwitchSpec& s : nvswitch_catalog())
        if (s.nvlink_gen == spec->nvlink_gen) e.model = std::string(s.key);
      if (e.model.empty())
        throw InputError(file_, "line " + std::to_string(m_.devices[gpus.front()].line),
                         "every GPU pair is " + *counts.begin() + " (an NVSwitch board), but the catalog has no NVSwitch "
                         "for NVLink generation " + std::to_string(spec->nvlink_gen));
      for (std::size_t g : gpus) e.gpus.push_back("gpu" + std::to_string(m_.devices[g].index));
      e.links_per_gpu = std::stoi(counts.begin()->substr(2));
      spec_.nvswitches.push_back(e);
      note("Every GPU pair is " + *counts.begin() + ": one NVSwitch fabric (" + e.model + ").");
      return;
    }
    for (std::size_t a : gpus)
      for (std::size_t b : gpus)
        if (a < b && m_.rel[a][b].rfind("NV", 0) == 0)
          spec_.nvlinks.push_back({"gpu" + std::to_string(m_.devices[a].index),
                                   "gpu" + std::to_string(m_.devices[b].index), std::stoi(m_.rel[a][b].substr(2)),
                                   spec->nvlink_bridge, ""});
    note("NV# pairs hide their PCIe relation; those GPUs are placed by their relations to the other devices.");
  }

  const SmiMatrix& m_;
  const ImportHints& h_;
  std::string file_;
  LayoutSpec spec_;
  std::string switch_model_, nic_model_, nic_names_;
  std::vector<std::vector<std::size_t>> socket_members_;
  std::set<std::size_t> paired_;  // first GPU of each pair put behind a switch by pair_hidden
};

}  // namespace

LayoutSpec import_nvidia_smi_topo(const std::string& text, const std::string& file, const ImportHints& hints) {
  const SmiMatrix m = parse(text, file);
  LayoutSpec spec = Builder(m, hints, file).build();
  spec.file = file;
  return spec;
}

}  // namespace rigsim::topology
