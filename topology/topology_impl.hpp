// Private: the data behind a Topology, shared by build.cpp, topology.cpp and paths.cpp.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <map>
#include <optional>

#include "topology/topology.hpp"

namespace rigsim::topology {

/// Undirected multigraph: vertex i is DeviceId i, the edge_index property is the LinkId.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                    boost::property<boost::edge_index_t, std::size_t>>;

struct Topology::Impl {
  std::string name;
  std::string description;
  std::vector<std::string> notes;
  double psu_w = 0;
  double price_usd = 0;
  std::string price_source;
  bool p2p_patched_driver = false;
  std::vector<Device> devices;
  std::vector<Link> links;
  std::map<std::string, DeviceId, std::less<>> by_name;
  std::vector<std::optional<LinkId>> uplink;  // per device: the link to its PCIe parent
  std::vector<std::string> warnings;
  Graph graph;
};

}  // namespace rigsim::topology
