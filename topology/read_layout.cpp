#include "topology/read_layout.hpp"

#include <fstream>
#include <sstream>

#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"
#include "topology/nccl_xml.hpp"

namespace rigsim::topology {
namespace {

bool is_xml(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".xml") == 0;
}


}  // namespace

LayoutSpec read_layout_spec(const std::string& path) {
  if (is_xml(path)) return import_nccl_xml(read_input_file(path), path);
  return parse_layout(load_json_file(path), path);
}

Topology read_layout(const std::string& path, int nodes) {
  const LayoutSpec spec = read_layout_spec(path);
  return nodes == 1 ? build_topology(spec) : build_cluster(spec, nodes);
}

}  // namespace rigsim::topology
