// NCCL topology XML (NCCL_TOPO_DUMP_FILE output, NCCL_TOPO_FILE input): import into a LayoutSpec,
// export of a Topology. Format: reference nccl.md §d.6.
#pragma once

#include <string>

#include "topology/layout_spec.hpp"
#include "topology/topology.hpp"

namespace rigsim::topology {

/// Reads NCCL topology XML text into a LayoutSpec; `file` names the source in errors
/// (which give the XML line). Tolerates what real dumps contain: empty link_speed,
/// link_width="0", numaid="-1", virtual bridges, NICs without a PCI parent.
LayoutSpec import_nccl_xml(const std::string& xml_text, const std::string& file);

/// Loads and builds a Topology from an NCCL XML file.
Topology load_nccl_xml(const std::string& path);

/// Writes a Topology as NCCL topology XML, so NCCL can be pointed at a hypothetical server
/// (NCCL_TOPO_FILE). Bus ids are synthesised deterministically.
std::string export_nccl_xml(const Topology& topo);

}  // namespace rigsim::topology
