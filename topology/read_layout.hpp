// The one entry point from a layout file to a Topology: layout JSON or an NCCL topology XML dump,
// parsed into a LayoutSpec, then validated and built (one server, or a cluster of identical servers).
#pragma once

#include <string>

#include "topology/layout_spec.hpp"
#include "topology/topology.hpp"

namespace rigsim::topology {

/// Parses the layout at `path` without building it: NCCL topology XML when the name ends in ".xml"
/// (topology/nccl_xml.hpp), else layout JSON (topology/layout_json.hpp). Throws rigsim::InputError.
LayoutSpec read_layout_spec(const std::string& path);

/// Reads, validates and builds the layout at `path`; with `nodes` > 1, that many copies of the server
/// joined by a network switch (build_cluster). Throws rigsim::InputError.
Topology read_layout(const std::string& path, int nodes = 1);

}  // namespace rigsim::topology
