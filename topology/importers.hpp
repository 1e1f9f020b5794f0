// Importers: from what a seller or a running box can show to a layout sketch (`rigsim import`).
// Each reads one kind of text into a LayoutSpec (written with layout_to_json); what the input does
// not say (models, generations, the CPU) comes from hints or is assumed, and every assumption is a
// line of LayoutSpec::notes.
#pragma once

#include <string>
#include <vector>

#include "topology/layout_spec.hpp"

namespace rigsim::topology {

/// What the user knows that the input does not show.
struct ImportHints {
  std::vector<std::string> gpu_models;  // catalog keys: one for every GPU, or one per GPU in index order
  std::string cpu_model;                // catalog key of the CPU (every socket)
  std::string nic_model;                // catalog key of every NIC (default: assumed, noted)
  std::string switch_model;             // catalog key of every PCIe switch (default: by generation, noted)
  int gen = 0;                          // PCIe generation of the slots when the input has none (0: the CPU's)
  std::string name;                     // layout name (default: from the file name)
  /// Where the CPU and GPU models came from, for the sketch's notes (default: "CPU model KEY (from
  /// --cpu); GPU models from --gpu", the import command's options).
  std::string models_from{};
};

/// `nvidia-smi topo -m` (the GPU/NIC relation matrix with CPU and NUMA affinity). Sockets come from
/// the NUMA affinity column, root complexes from PHB/NODE, switches from PIX/PXB, NVLink and NVSwitch
/// from NV#. The matrix names no models: hints.gpu_models and hints.cpu_model are required.
/// Throws rigsim::InputError (file, "line N") for text that is not such a matrix, for
/// `nvidia-smi topo -p2p` output, and for missing hints.
LayoutSpec import_nvidia_smi_topo(const std::string& text, const std::string& file, const ImportHints& hints);

/// hwloc XML (`lstopo --of xml`, hwloc 2.x): Packages are the sockets, host bridges their root
/// complexes, bridges with bridges below them PCIe switches, other bridges slots; NVIDIA GPUs and
/// NICs with their models from hints, hwloc's GPUModel names or PCI ids. hwloc shows no NVLink.
/// Throws rigsim::InputError (file, "line N") for malformed XML and for parts no catalog entry matches
/// (name the hint to give).
LayoutSpec import_hwloc(const std::string& text, const std::string& file, const ImportHints& hints);

/// `lspci -tvnn` (also -tv, -t): root buses, root ports, switches (bridges with bridges below them),
/// NVIDIA GPUs (named by their marketing name or PCI id) and Mellanox NICs. lspci shows neither the CPU
/// nor sockets: hints.cpu_model is required, and root buses from 0x80 up are taken as socket 1.
LayoutSpec import_lspci(const std::string& text, const std::string& file, const ImportHints& hints);

/// A PCIe tree from import_lspci or import_hwloc completed with `nvidia-smi topo -m` of the same machine:
/// each GPU's socket from the NUMA affinity column (lspci shows none) and NVLink / NVSwitch from NV#.
/// GPU i is the i-th GPU in PCI bus order in both. Throws rigsim::InputError when the GPU counts differ.
LayoutSpec merge_nvidia_smi_topo(LayoutSpec tree, const std::string& smi_text, const std::string& smi_file);

}  // namespace rigsim::topology
