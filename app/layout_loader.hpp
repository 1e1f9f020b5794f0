// Loads a layout given on the command line: NCCL topology XML when the name ends in .xml,
// else layout JSON.
#pragma once

#include <string>

#include "topology/layout_json.hpp"
#include "topology/nccl_xml.hpp"

namespace rigsim::app {

inline topology::Topology load_any_layout(const std::string& path) {
  const bool xml = path.size() >= 4 && path.compare(path.size() - 4, 4, ".xml") == 0;
  return xml ? topology::load_nccl_xml(path) : topology::load_layout(path);
}

}  // namespace rigsim::app
