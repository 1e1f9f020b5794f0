// The layout JSON format (docs/layout-format.md): strict reading into a LayoutSpec.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topology/layout_spec.hpp"
#include "topology/topology.hpp"

namespace rigsim::topology {

/// Reads a layout document. Unknown keys, missing required keys and wrong types throw InputError
/// naming `file` and the JSON pointer.
LayoutSpec parse_layout(const nlohmann::json& doc, const std::string& file);

/// A LayoutSpec as a layout document (the inverse of parse_layout; defaults left out), for importers.
nlohmann::json layout_to_json(const LayoutSpec& spec);

/// Loads, parses, validates and builds a layout file: the usual entry point.
Topology load_layout(const std::string& path);

}  // namespace rigsim::topology
