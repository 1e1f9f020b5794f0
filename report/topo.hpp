// `rigsim topo`: how the GPUs of a layout are connected, as nvidia-smi topo -m would show it, plus
// each device's link, the lane budgets, P2P decisions with reasons, and warnings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topology/p2p.hpp"
#include "topology/topology.hpp"

namespace rigsim::report {

using topology::P2pPolicy;
using topology::Topology;

/// The nvidia-smi topo -m matrix, legend, link table, lane budgets, P2P matrix and warnings.
std::string topo_text(const Topology& topo, const P2pPolicy& policy);
/// The same facts as JSON (keys documented in README "topo --format json").
nlohmann::json topo_json(const Topology& topo, const P2pPolicy& policy);
/// Graphviz rendering of the device graph.
std::string topo_dot(const Topology& topo);

}  // namespace rigsim::report
