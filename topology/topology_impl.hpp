// Private: the data behind a Topology, shared by build.cpp, topology.cpp and paths.cpp.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

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

  /// Breadth-first trees (possibly partial) from the sources asked most recently (paths.cpp): a matrix
  /// asks one source for every target, a ring each GPU for its neighbours, so a few trees save almost
  /// every search, and the memory stays bounded (a 32,768-GPU cluster would need gigabytes for a tree
  /// per GPU).
  struct Tree {
    std::vector<std::size_t> pred, pred_edge;  // per device: parent in the tree and the link to it
    std::vector<boost::default_color_type> color;  // the search's colours, kept for the next reuse
    std::vector<std::size_t> touched;              // devices whose entries the search set
    std::size_t discovered = 0;                // devices with a parent (the source not counted)
    bool complete = false;                     // every reachable device is in it
  };
  /// The graphs a tree searches: PCIe and the network (between servers), PCIe inside one server, NVLink.
  enum class TreeKind { Pcie, PcieInServer, Nvlink };
  struct PathCache {
    std::mutex mutex;
    /// Per TreeKind: the trees of the most recent sources.
    std::array<std::deque<std::pair<DeviceId, std::shared_ptr<Tree>>>, 3> trees;
    /// Per device: (peer, links) of its NVLink connections, built once.
    std::optional<std::vector<std::vector<std::pair<DeviceId, int>>>> nvlinks_of;
    /// Per server: its devices (Topology::node_devices), built once.
    std::optional<std::vector<std::vector<DeviceId>>> by_node;
    /// Topology::memo: per question, per device: -2 not asked yet, -1 no answer, else the device.
    std::map<std::string, std::vector<long>, std::less<>> memo;
  };
  std::unique_ptr<PathCache> cache = std::make_unique<PathCache>();
};

}  // namespace rigsim::topology
