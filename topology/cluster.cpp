// Multi-node clusters: n copies of one server joined through their NICs by a network switch.
#include <algorithm>

#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/builder.hpp"

namespace rigsim::topology {
namespace {

/// One node's copy of a server: every id and reference gets the "n<k>/" prefix.
void append_node(const LayoutSpec& in, int node, int sockets, LayoutSpec& out) {
  const std::string p = "n" + std::to_string(node) + "/";
  auto ref = [&](const std::string& id) { return id.empty() ? id : p + id; };
  auto attach = [&](PcieAttach a) {
    a.slot = ref(a.slot);
    a.parent = ref(a.parent);
    return a;
  };
  for (auto e : in.cpus) {
    e.id = ref(e.id);
    e.socket += node * sockets;
    out.cpus.push_back(e);
  }
  for (auto e : in.host_bridges) {
    e.id = ref(e.id);
    e.cpu = ref(e.cpu);
    out.host_bridges.push_back(e);
  }
  for (auto e : in.chipsets) {
    e.id = ref(e.id);
    e.parent = ref(e.parent);
    out.chipsets.push_back(e);
  }
  for (auto e : in.slots) {
    e.id = ref(e.id);
    e.parent = ref(e.parent);
    out.slots.push_back(e);
  }
  for (auto e : in.switches) {
    e.id = ref(e.id);
    e.attach = attach(e.attach);
    out.switches.push_back(e);
  }
  for (auto e : in.gpus) {
    e.id = ref(e.id);
    e.attach = attach(e.attach);
    out.gpus.push_back(e);
  }
  for (auto e : in.nics) {
    e.id = ref(e.id);
    e.attach = attach(e.attach);
    out.nics.push_back(e);
  }
  for (auto e : in.nvlinks) {
    e.a = ref(e.a);
    e.b = ref(e.b);
    out.nvlinks.push_back(e);
  }
  for (auto e : in.xgmi) {
    for (auto& g : e.gpus) g = ref(g);
    out.xgmi.push_back(e);
  }
  for (auto e : in.nvswitches) {
    e.id = ref(e.id);
    for (auto& g : e.gpus) g = ref(g);
    out.nvswitches.push_back(e);
  }
  auto links = in.inter_socket;
  if (links.empty() && in.cpus.size() == 2) links.push_back({in.cpus[0].id, in.cpus[1].id, 0, 0, "/cpus"});
  for (auto e : links) {
    e.a = ref(e.a);
    e.b = ref(e.b);
    out.inter_socket.push_back(e);
  }
}

}  // namespace

Topology build_cluster(const LayoutSpec& spec, int nodes) {
  if (nodes < 1)
    throw InputError(spec.file, "", "a cluster needs at least one node, got " + std::to_string(nodes));
  if (spec.nics.empty() && nodes > 1)
    throw InputError(spec.file, "/nics",
                     "layout \"" + spec.name + "\" has no NIC: its servers cannot be joined into a cluster");
  LayoutSpec all;
  all.file = spec.file;
  all.name = spec.name + " x" + std::to_string(nodes);
  all.description = spec.description;
  all.notes = spec.notes;
  all.psu = {};  // per-server PSU; the power check of one server is build_topology's
  all.p2p_patched_driver = spec.p2p_patched_driver;
  int sockets = 0;
  for (const auto& c : spec.cpus) sockets = std::max(sockets, c.socket + 1);
  for (int k = 0; k < nodes; ++k) append_node(spec, k, sockets, all);
  return detail::Builder(all, nodes).build();
}

}  // namespace rigsim::topology
