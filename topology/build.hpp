// Validation and construction of a Topology from a LayoutSpec. Physically impossible layouts are
// rejected with the reason and the location of the offending entry (InputError).
#pragma once

#include "topology/layout_spec.hpp"
#include "topology/topology.hpp"

namespace rigsim::topology {

/// Validates `spec` and builds the immutable Topology. Throws rigsim::InputError.
Topology build_topology(const LayoutSpec& spec);

/// `nodes` copies of one server joined by a non-blocking network switch: device names get a
/// "n<k>/" prefix (node 0 included), every NIC gets a Network link to the switch at its line rate.
/// A layout without a NIC cannot form a cluster (InputError). nodes == 1 gives build_topology(spec)
/// with the prefix.
Topology build_cluster(const LayoutSpec& spec, int nodes);

}  // namespace rigsim::topology
