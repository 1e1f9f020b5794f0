// merge_nvidia_smi_topo(): a PCIe tree read from lspci or hwloc, completed with what only
// `nvidia-smi topo -m` shows: the NUMA node (socket) of each GPU and the NVLink between them.
#include <algorithm>
#include <map>

#include "common/input.hpp"
#include "topology/importers.hpp"

namespace rigsim::topology {
namespace {

/// Device id -> the host bridge above it (through slots and switches).
std::string host_bridge_of(const LayoutSpec& s, const PcieAttach& a) {
  std::map<std::string, std::string> parent;
  for (const SlotEntry& e : s.slots) parent[e.id] = e.parent;
  for (const SwitchEntry& e : s.switches) parent[e.id] = e.attach.slot.empty() ? e.attach.parent : e.attach.slot;
  std::string at = a.slot.empty() ? a.parent : a.slot;
  for (int guard = 0; parent.contains(at) && guard < 64; ++guard) at = parent[at];
  return at;
}

}  // namespace

LayoutSpec merge_nvidia_smi_topo(LayoutSpec tree, const std::string& text, const std::string& file) {
  if (tree.gpus.empty()) throw InputError(file, "line 1", "the PCIe tree has no GPU to complete");
  ImportHints hints;
  hints.gpu_models = {tree.gpus.front().model};
  hints.cpu_model = tree.cpus.empty() ? "" : tree.cpus.front().model;
  hints.name = tree.name;
  LayoutSpec smi = import_nvidia_smi_topo(text, file, hints);  // first with one model: the counts
  if (smi.gpus.size() != tree.gpus.size())
    throw InputError(file, "line 1", "the matrix shows " + std::to_string(smi.gpus.size()) + " GPUs, the PCIe tree " +
                                         std::to_string(tree.gpus.size()) + ": not the same machine?");
  hints.gpu_models.clear();
  for (const GpuEntry& g : tree.gpus) hints.gpu_models.push_back(g.model);
  smi = import_nvidia_smi_topo(text, file, hints);
  // Sockets: each GPU's host bridge belongs to the socket the matrix gives that GPU (GPU i is the i-th
  // in PCI bus order in both).
  tree.cpus = smi.cpus;
  tree.inter_socket = smi.inter_socket;
  std::map<std::string, std::string> cpu_of_bridge;
  for (std::size_t i = 0; i < smi.gpus.size(); ++i)
    cpu_of_bridge[host_bridge_of(tree, tree.gpus[i].attach)] =
        [&] {
          const std::string rc = host_bridge_of(smi, smi.gpus[i].attach);
          for (const HostBridgeEntry& h : smi.host_bridges)
            if (h.id == rc) return h.cpu;
          return smi.cpus.front().id;
        }();
  for (HostBridgeEntry& h : tree.host_bridges) {
    if (auto it = cpu_of_bridge.find(h.id); it != cpu_of_bridge.end()) h.cpu = it->second;
    else if (std::none_of(tree.cpus.begin(), tree.cpus.end(), [&](const CpuEntry& c) { return c.id == h.cpu; }))
      h.cpu = tree.cpus.front().id;  // a bridge with NICs only, on a socket the matrix does not name
  }
  tree.nvlinks = smi.nvlinks;
  tree.nvswitches = smi.nvswitches;
  std::erase_if(tree.notes, [](const std::string& n) { return n.find("root buses 80 and up") != std::string::npos; });
  tree.notes.push_back("Sockets (NUMA affinity) and NVLink from `nvidia-smi topo -m` (" + file + ")");
  return tree;
}

}  // namespace rigsim::topology
