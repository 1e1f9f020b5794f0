// Validation and construction of a Topology (see build.hpp). Each rule that rejects a layout names
// the physical reason, the entry's location, and what would be valid.
#include "topology/build.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>

#include "common/input.hpp"
#include "common/suggest.hpp"
#include "topology/builder.hpp"

namespace rigsim::topology {
namespace detail {
namespace {

template <typename Spec>
const Spec* require_model(const Spec* found, const std::string& key, const std::string& file,
                          const std::string& where, const char* what, const std::vector<std::string>& keys) {
  if (found == nullptr)
    throw InputError(file, where + "/model",
                     "unknown " + std::string(what) + " model \"" + key + "\"" + did_you_mean(key, keys) +
                         " (`rigsim catalog` lists the known ones)");
  return found;
}

std::string gen_width(int gen, int width) {
  return "Gen" + std::to_string(gen) + " x" + std::to_string(width);
}

}  // namespace

Builder::Builder(const LayoutSpec& spec, int cluster_nodes)
    : spec_(spec), cluster_nodes_(cluster_nodes), impl_(std::make_shared<Topology::Impl>()) {
  impl_->name = spec.name;
  impl_->description = spec.description;
  impl_->notes = spec.notes;
  for (const auto& w : spec.import_warnings) warn(w);
  impl_->psu_w = spec.psu.capacity_w();
  impl_->price_usd = spec.price_usd;
  impl_->price_source = spec.price_source;
  impl_->p2p_patched_driver = spec.p2p_patched_driver;
}

Topology Builder::build() {
  check_unique_ids();
  add_cpus();
  add_host_bridges();
  add_chipsets();
  index_slots();
  add_switches();
  add_gpus();
  add_nics();
  check_empty_slots();
  add_nvlinks();
  add_xgmi();
  add_nvswitches();
  add_inter_socket();
  if (cluster_nodes_ > 0) add_network();
  check_lane_budgets();
  check_power();
  check_gpu_mix();
  return Topology(impl_);
}

void Builder::fail(const std::string& where, const std::string& message) const {
  throw InputError(spec_.file, where.empty() ? "/" : where, message);
}

void Builder::check_unique_ids() const {
  std::map<std::string, std::string> seen;  // id -> where
  auto claim = [&](const std::string& id, const std::string& where) {
    if (id.empty()) fail(where + "/id", "an id must not be empty");
    auto [it, fresh] = seen.emplace(id, where);
    if (!fresh) fail(where + "/id", "duplicate id \"" + id + "\" (first used at " + it->second + ")");
  };
  for (const auto& e : spec_.cpus) claim(e.id, e.where);
  for (const auto& e : spec_.host_bridges) claim(e.id, e.where);
  for (const auto& e : spec_.chipsets) claim(e.id, e.where);
  for (const auto& e : spec_.slots) claim(e.id, e.where);
  for (const auto& e : spec_.switches) claim(e.id, e.where);
  for (const auto& e : spec_.gpus) claim(e.id, e.where);
  for (const auto& e : spec_.nics) claim(e.id, e.where);
  for (const auto& e : spec_.nvswitches) claim(e.id, e.where);
  if (spec_.cpus.empty()) fail("/cpus", "a layout needs at least one CPU socket");
  if (spec_.gpus.empty()) fail("/gpus", "a layout needs at least one GPU");
}

DeviceId Builder::add_device(Device d) {
  d.id = impl_->devices.size();
  d.local_name = d.name;
  // build_cluster names every device of node k "n<k>/<id>" (cluster.cpp); the node and the id within
  // the server become fields here, the one place that reads that prefix.
  const auto slash = d.name.find('/');
  if (cluster_nodes_ > 0 && slash != std::string::npos && d.name[0] == 'n') {
    d.node = std::stoi(d.name.substr(1, slash - 1));
    d.local_name = d.name.substr(slash + 1);
  }
  impl_->by_name.emplace(d.name, d.id);
  impl_->devices.push_back(std::move(d));
  impl_->uplink.emplace_back();
  boost::add_vertex(impl_->graph);
  return impl_->devices.back().id;
}

LinkId Builder::add_link(Link l) {
  l.id = impl_->links.size();
  boost::add_edge(l.up, l.down, l.id, impl_->graph);
  impl_->links.push_back(std::move(l));
  return impl_->links.back().id;
}

DeviceId Builder::resolve(const std::string& name, const std::string& where,
                          std::initializer_list<DeviceKind> kinds, const std::string& what) const {
  auto it = impl_->by_name.find(name);
  if (it == impl_->by_name.end()) {
    std::vector<std::string> candidates;
    for (const auto& d : impl_->devices)
      if (std::find(kinds.begin(), kinds.end(), d.kind) != kinds.end()) candidates.push_back(d.name);
    for (const auto& [id, s] : slots_) candidates.push_back(id);
    fail(where, "\"" + name + "\" is not a known " + what + did_you_mean(name, candidates));
  }
  const Device& d = impl_->devices[it->second];
  if (std::find(kinds.begin(), kinds.end(), d.kind) == kinds.end())
    fail(where, "\"" + name + "\" is a " + std::string(to_string(d.kind)) + ", expected a " + what);
  return it->second;
}

void Builder::add_cpus() {
  std::set<int> sockets;
  for (const auto& e : spec_.cpus) {
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::Cpu;
    d.model = e.model;
    d.cpu = require_model(find_cpu(e.model), e.model, spec_.file, e.where, "CPU", cpu_keys());
    d.socket = e.socket;
    if (e.nps > d.cpu->numa_domains)
      fail(e.where + "/nps", std::string(d.cpu->name) + " has " + std::to_string(d.cpu->numa_domains) +
                                 " memory domain(s) per socket, so at most " +
                                 std::to_string(d.cpu->numa_domains) +
                                 " NUMA node(s), got \"nps\": " + std::to_string(e.nps));
    d.numa_nodes = e.nps;
    d.numa = e.numa * e.nps;  // Linux numbers a socket's nodes together: NPS4 on socket 1 is 4-7
    d.lanes = d.cpu->pcie_lanes;
    d.pcie_gen = d.cpu->pcie_gen;
    d.memory_bandwidth = gb_per_s(e.memory_bw_gbs > 0 ? e.memory_bw_gbs : d.cpu->memory_bw_gbs);
    if (!sockets.insert(e.socket).second)
      fail(e.where + "/socket", "two CPUs claim socket " + std::to_string(e.socket));
    const DeviceId id = add_device(d);
    cpu_entry_[id] = &e;
    where_[id] = e.where;
  }
}

void Builder::add_host_bridges() {
  std::map<std::string, int> bridges_of, seen_of;  // per CPU id: host bridges declared, placed so far
  for (const auto& e : spec_.host_bridges) ++bridges_of[e.cpu];
  for (const auto& e : spec_.host_bridges) {
    const DeviceId cpu = resolve(e.cpu, e.where + "/cpu", {DeviceKind::Cpu}, "CPU");
    const CpuSpec& c = *dev(cpu).cpu;
    const int domains = c.numa_domains;
    if (e.quadrant >= domains)
      fail(e.where + "/quadrant", std::string(c.name) + " has " + std::to_string(domains) +
                                      " memory domain(s) per socket (0 to " + std::to_string(domains - 1) +
                                      "), got " + std::to_string(e.quadrant));
    // EPYC/Threadripper: every x16 root port is its own host bridge (reference hardware.md §2.7); a
    // bridge placed in a quadrant may stand for several of that quadrant's ports (a switch's uplinks).
    const int quadrant_lanes = c.pcie_lanes / domains;
    if (c.root_port_per_x16 && e.lanes > 16 && (e.quadrant < 0 || e.lanes > quadrant_lanes))
      fail(e.where + "/lanes",
           "a host bridge of " + std::string(c.name) + " is one x16 root port, but \"" + e.id +
               "\" declares " + std::to_string(e.lanes) + " lanes; declare one host bridge per x16" +
               (domains > 1
                    ? ", or give it a \"quadrant\" (up to " + std::to_string(quadrant_lanes) + " lanes)"
                    : std::string()));
    // The quadrant (or die) it sits in: as declared, else the socket's bridges spread over them in order.
    const int index = seen_of[e.cpu]++;
    const int quadrant = e.quadrant >= 0 ? e.quadrant : index * domains / bridges_of[e.cpu];
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::HostBridge;
    d.socket = dev(cpu).socket;
    d.numa = dev(cpu).numa + quadrant * dev(cpu).numa_nodes / domains;
    d.lanes = e.lanes;
    d.pcie_gen = c.pcie_gen;
    const DeviceId id = add_device(d);
    where_[id] = e.where;
    use_lanes(cpu, e.lanes, "host bridge " + e.id);
    Link l;
    l.up = cpu;
    l.down = id;
    l.kind = LinkKind::Internal;
    l.gen = c.pcie_gen;
    l.width = e.lanes;
    l.bandwidth = gb_per_s(pcie_gen(c.pcie_gen).lane_gbs * e.lanes);
    l.note = "root complex inside the CPU package: its lanes' aggregate rate";
    impl_->uplink[id] = add_link(l);
  }
  for (const auto& [cpu, entry] : cpu_entry_)
    if (lanes_used_[cpu] == 0)
      fail(entry->where, "CPU \"" + entry->id + "\" has no host bridge: add one under \"host_bridges\"");
}

void Builder::add_chipsets() {
  for (const auto& e : spec_.chipsets) {
    const DeviceId parent = resolve(e.parent, e.where + "/parent", {DeviceKind::HostBridge, DeviceKind::Cpu},
                                    "host bridge or CPU");
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::Chipset;
    d.model = e.model;
    d.chipset = require_model(find_chipset(e.model), e.model, spec_.file, e.where, "chipset", chipset_keys());
    d.socket = dev(parent).socket;
    d.numa = dev(parent).numa;
    d.lanes = d.chipset->downstream_lanes;
    d.pcie_gen = d.chipset->downstream_gen;
    const DeviceId id = add_device(d);
    where_[id] = e.where;
    const ChipsetSpec& c = *dev(id).chipset;
    // Intel CPUs reach their PCH over DMI, a port apart from their PCIe lanes; AMD's chipset link is
    // four of the CPU's PCIe lanes (reference hardware.md §4.2 and §5).
    const Device& cpu =
        dev(parent).kind == DeviceKind::Cpu ? dev(parent) : dev(impl_->links[*impl_->uplink[parent]].up);
    if (cpu.cpu->vendor != Vendor::Intel) use_lanes(parent, c.uplink_width, "chipset " + e.id + " uplink");
    Link l;
    l.up = parent;
    l.down = id;
    l.kind = LinkKind::ChipsetUplink;
    l.gen = c.uplink_gen;
    l.width = c.uplink_width;
    l.bandwidth = gb_per_s(pcie_link_gbs(c.uplink_gen, c.uplink_width));
    l.note = std::string(c.name) + " uplink, shared by everything behind the chipset";
    impl_->uplink[id] = add_link(l);
  }
}

void Builder::index_slots() {
  // Slots may hang off switches, which are added later; resolve parents lazily in attach().
  for (const auto& e : spec_.slots) {
    SlotState s;
    s.entry = &e;
    if (!e.bifurcation.empty()) {
      int sum = 0;
      for (int w : e.bifurcation) {
        if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
          fail(e.where + "/bifurcation",
               "a bifurcated port is x1, x2, x4, x8 or x16, got x" + std::to_string(w));
        sum += w;
      }
      if (sum > e.width)
        fail(e.where + "/bifurcation", "bifurcation into ports of " + std::to_string(sum) +
                                           " lanes in all exceeds the slot's x" + std::to_string(e.width));
    }
    s.occupant.assign(std::max<std::size_t>(1, e.bifurcation.size()), "");
    slots_.emplace(e.id, s);
  }
}

int Builder::parent_gen(DeviceId parent) const {
  const Device& p = impl_->devices[parent];
  return p.pcie_gen;
}

void Builder::use_lanes(DeviceId parent, int lanes, const std::string& what) {
  lanes_used_[parent] += lanes;
  lane_users_[parent].push_back(what + " x" + std::to_string(lanes));
}

DeviceId Builder::attach(DeviceId child, int device_gen, int device_width, const PcieAttach& a) {
  const std::string& name = dev(child).name;
  int gen = device_gen, width = device_width;
  std::string gen_by, width_by;  // what last lowered the generation and the width
  auto limit = [&](int g, int w, const std::string& by) {
    if (g > 0 && g < gen) {
      gen = g;
      gen_by = by;
    }
    if (w > 0 && w < width) {
      width = w;
      width_by = by;
    }
  };
  DeviceId parent = 0;
  std::string slot_label;
  if (!a.slot.empty()) {
    auto it = slots_.find(a.slot);
    if (it == slots_.end()) {
      std::vector<std::string> ids;
      for (const auto& [id, s] : slots_) ids.push_back(id);
      fail(a.where + "/slot", "\"" + a.slot + "\" is not a slot of this layout" + did_you_mean(a.slot, ids));
    }
    SlotState& s = it->second;
    const SlotEntry& e = *s.entry;
    parent = resolve(e.parent, e.where + "/parent",
                     {DeviceKind::HostBridge, DeviceKind::Switch, DeviceKind::Chipset},
                     "host bridge, switch or chipset");
    int slot_width = e.width;
    std::size_t port = 0;
    if (!e.bifurcation.empty()) {
      if (a.port < 0 || a.port >= static_cast<int>(e.bifurcation.size()))
        fail(a.where + "/port",
             "slot \"" + e.id + "\" is bifurcated into " + std::to_string(e.bifurcation.size()) +
                 " ports: give \"port\" from 0 to " + std::to_string(e.bifurcation.size() - 1));
      port = static_cast<std::size_t>(a.port);
      slot_width = e.bifurcation[port];
      slot_label = e.id + "." + std::to_string(port);
    } else {
      if (a.port > 0)
        fail(a.where + "/port",
             "slot \"" + e.id + "\" is not bifurcated; it has no port " + std::to_string(a.port));
      slot_label = e.id;
    }
    if (!s.occupant[port].empty())
      fail(a.where + "/slot",
           slot_label + " already holds \"" + s.occupant[port] + "\"; one device per slot (port)");
    s.occupant[port] = name;
    // An occupied slot takes its electrical width from the parent once, however it is split.
    const auto occupied =
        std::count_if(s.occupant.begin(), s.occupant.end(), [](const std::string& o) { return !o.empty(); });
    if (occupied == 1) use_lanes(parent, e.width, "slot " + e.id);
    limit(parent_gen(parent), 0, "parent " + dev(parent).name + " Gen" + std::to_string(parent_gen(parent)));
    limit(e.gen, slot_width,
          "slot " + slot_label + " " + gen_width(e.gen > 0 ? e.gen : parent_gen(parent), slot_width));
  } else if (!a.parent.empty()) {
    parent = resolve(a.parent, a.where + "/parent",
                     {DeviceKind::HostBridge, DeviceKind::Switch, DeviceKind::Chipset},
                     "host bridge, switch or chipset");
    const int w = a.width > 0 ? a.width : device_width;
    use_lanes(parent, w, std::string(to_string(dev(child).kind)) + " " + name);
    limit(parent_gen(parent), 0, "parent " + dev(parent).name + " Gen" + std::to_string(parent_gen(parent)));
    limit(a.gen, a.width, "on-board link " + gen_width(a.gen > 0 ? a.gen : gen, w));
  } else {
    fail(a.where, "\"" + name +
                      "\" is attached to nothing: give \"slot\" (a slot id) or \"parent\" (a host bridge, "
                      "switch or chipset id)");
  }
  if (a.riser)
    limit(a.riser->gen, a.riser->width,
          "riser " + (a.riser->kind.empty() ? std::string() : a.riser->kind + " ") +
              gen_width(a.riser->gen > 0 ? a.riser->gen : gen, a.riser->width > 0 ? a.riser->width : width));
  dev(child).socket = dev(parent).socket;
  dev(child).numa = dev(parent).numa;
  Link l;
  l.up = parent;
  l.down = child;
  l.kind = LinkKind::Pcie;
  l.gen = gen;
  l.width = width;
  l.bandwidth = gb_per_s(pcie_link_gbs(gen, width));
  l.slot = slot_label;
  if (gen_by.empty() && width_by.empty())
    l.limited_by = "device " + gen_width(device_gen, device_width);
  else if (gen_by == width_by || width_by.empty())
    l.limited_by = gen_by.empty() ? width_by : gen_by;
  else if (gen_by.empty())
    l.limited_by = width_by;
  else
    l.limited_by = "gen: " + gen_by + "; width: " + width_by;
  impl_->uplink[child] = add_link(l);
  if (gen < device_gen || width < device_width)
    warn(name + " runs at " + gen_width(gen, width) + " instead of " + gen_width(device_gen, device_width) +
         " (limited by " + l.limited_by + ")");
  return parent;
}

void Builder::add_switches() {
  // A switch may hang off another switch declared later: add all devices first, then attach.
  std::vector<DeviceId> ids;
  for (const auto& e : spec_.switches) {
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::Switch;
    d.model = e.model;
    d.pcie_switch =
        require_model(find_switch(e.model), e.model, spec_.file, e.where, "PCIe switch", switch_keys());
    d.lanes = d.pcie_switch->lanes;
    d.pcie_gen = d.pcie_switch->gen;
    d.acs_redirect = e.acs_redirect;
    ids.push_back(add_device(d));
    where_[ids.back()] = e.where;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& e = spec_.switches[i];
    const int uplink_width = e.attach.width > 0 ? e.attach.width : 16;
    attach(ids[i], dev(ids[i]).pcie_gen, uplink_width, e.attach);
    use_lanes(ids[i], impl_->links[*impl_->uplink[ids[i]]].width, "uplink");
  }
  // A PCIe tree ends at a host bridge or chipset: a cycle of parents (sw0 -> sw1 -> sw0) never does.
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::vector<DeviceId> chain{ids[i]};
    while (dev(chain.back()).kind == DeviceKind::Switch) {
      const DeviceId up = impl_->links[*impl_->uplink[chain.back()]].up;
      if (std::find(chain.begin(), chain.end(), up) != chain.end()) {
        std::string names;
        for (DeviceId d : chain) names += dev(d).name + " -> ";
        fail(spec_.switches[i].where, "switch \"" + dev(ids[i]).name + "\" hangs off a cycle of parents (" +
                                          names + dev(up).name +
                                          "); a PCIe tree ends at a host bridge or chipset");
      }
      chain.push_back(up);
    }
  }
}

void Builder::check_empty_slots() {
  // An empty slot's parent is checked too: an id that is no host bridge, switch or chipset is a typo.
  for (const auto& [id, s] : slots_)
    if (std::all_of(s.occupant.begin(), s.occupant.end(), [](const std::string& o) { return o.empty(); }))
      resolve(s.entry->parent, s.entry->where + "/parent",
              {DeviceKind::HostBridge, DeviceKind::Switch, DeviceKind::Chipset},
              "host bridge, switch or chipset");
}

void Builder::add_gpus() {
  for (const auto& e : spec_.gpus) {
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::Gpu;
    d.model = e.model;
    d.gpu = require_model(find_gpu(e.model), e.model, spec_.file, e.where, "GPU", gpu_keys());
    d.pcie_gen = d.gpu->pcie_gen;
    const DeviceId id = add_device(d);
    where_[id] = e.where;
    attach(id, d.gpu->pcie_gen, d.gpu->pcie_width, e.attach);
  }
}

void Builder::add_nics() {
  for (const auto& e : spec_.nics) {
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::Nic;
    d.model = e.model;
    d.nic = require_model(find_nic(e.model), e.model, spec_.file, e.where, "NIC", nic_keys());
    d.pcie_gen = d.nic->pcie_gen;
    d.nic_rate = gb_per_s((e.speed_gbps > 0 ? e.speed_gbps : d.nic->speed_gbps) / 8.0);  // Gbit/s -> GB/s
    const DeviceId id = add_device(d);
    where_[id] = e.where;
    attach(id, d.nic->pcie_gen, d.nic->pcie_width, e.attach);
  }
}

void Builder::add_nvswitches() {
  for (const auto& e : spec_.nvswitches) {
    Device d;
    d.name = e.id;
    d.kind = DeviceKind::NvSwitch;
    d.model = e.model;
    d.nvswitch =
        require_model(find_nvswitch(e.model), e.model, spec_.file, e.where, "NVSwitch", nvswitch_keys());
    const DeviceId sw = add_device(d);
    where_[sw] = e.where;
    for (std::size_t i = 0; i < e.gpus.size(); ++i) {
      const DeviceId g = resolve(e.gpus[i], e.where + "/gpus/" + std::to_string(i), {DeviceKind::Gpu}, "GPU");
      const GpuSpec& s = *dev(g).gpu;
      if (s.nvlink_gen == 0 || s.nvlink_bridge)
        fail(e.where + "/gpus/" + std::to_string(i), "\"" + dev(g).name + "\" (" + std::string(s.name) +
                                                         ") cannot join an NVSwitch: it needs SXM NVLink");
      const int links = e.links_per_gpu > 0 ? e.links_per_gpu : s.nvlink_links;
      nvlinks_used_[g] += links;
      if (nvlinks_used_[g] > s.nvlink_links)
        fail(e.where + "/links_per_gpu", "\"" + dev(g).name + "\" would use " +
                                             std::to_string(nvlinks_used_[g]) + " NVLink links, but a " +
                                             std::string(s.name) + " has " + std::to_string(s.nvlink_links));
      Link l;
      l.up = g;
      l.down = sw;
      l.kind = LinkKind::NvLink;
      l.gen = std::min(s.nvlink_gen, d.nvswitch->nvlink_gen);
      l.width = links;
      l.bandwidth = gb_per_s(links * std::min(s.nvlink_link_gbs, d.nvswitch->link_gbs));
      l.note = "GPU to NVSwitch fabric (" + std::to_string(e.chips) + " chips)";
      add_link(l);
    }
  }
}

void Builder::add_inter_socket() {
  std::vector<InterSocketEntry> entries = spec_.inter_socket;
  if (entries.empty() && spec_.cpus.size() == 2 && cluster_nodes_ == 0) {
    // Two sockets and nothing declared: the catalog's default wiring between them.
    InterSocketEntry e;
    e.a = spec_.cpus[0].id;
    e.b = spec_.cpus[1].id;
    e.where = "/cpus";
    entries.push_back(e);
  }
  for (const auto& e : entries) {
    const DeviceId a = resolve(e.a, e.where + "/a", {DeviceKind::Cpu}, "CPU");
    const DeviceId b = resolve(e.b, e.where + "/b", {DeviceKind::Cpu}, "CPU");
    if (a == b) fail(e.where, "an inter-socket link joins two different CPUs");
    const CpuSpec& c = *dev(a).cpu;
    if (c.inter_socket == InterSocketKind::None)
      fail(e.where, std::string(c.name) + " is a single-socket part: it has no socket-to-socket link");
    Link l;
    l.up = a;
    l.down = b;
    l.kind = LinkKind::InterSocket;
    l.width = e.links > 0 ? e.links : c.inter_socket_links;
    // The wire: links x per-link rate per direction (hardware.md §2.6); the platform applies the
    // link kind's payload efficiency. NCCL's planning figure (CpuSpec::inter_socket_effective_gbs) is
    // not a rate of the wire: it stays in the catalog for what NCCL decides. A layout's
    // "effective_gbs" is a measured rate for GPU traffic: used as is, no efficiency on top.
    l.bandwidth = gb_per_s(e.effective_gbs > 0 ? e.effective_gbs : l.width * c.inter_socket_link_gbs);
    l.declared_effective = e.effective_gbs > 0;
    l.note = std::string(to_string(c.inter_socket)) + " x" + std::to_string(l.width) + " links, " +
             std::to_string(static_cast<int>(l.width * c.inter_socket_link_gbs)) +
             " GB/s per direction on the wire; NCCL plans with " +
             std::to_string(static_cast<int>(c.inter_socket_effective_gbs)) + " GB/s";
    if (l.declared_effective) l.note += "; the layout declares " + std::to_string(e.effective_gbs) + " GB/s";
    add_link(l);
  }
  std::map<int, int> cpus_per_node;
  for (const auto& d : impl_->devices)
    if (d.kind == DeviceKind::Cpu) ++cpus_per_node[d.node];
  {
    for (const auto& cpu : impl_->devices) {
      if (cpu.kind != DeviceKind::Cpu || cpus_per_node[cpu.node] < 2) continue;  // a one-socket server
      bool linked = false;
      for (const auto& l : impl_->links)
        if (l.kind == LinkKind::InterSocket && (l.up == cpu.id || l.down == cpu.id)) linked = true;
      if (!linked)
        fail(where_[cpu.id], "CPU \"" + cpu.name + "\" has no inter-socket link to the other sockets");
    }
  }
}

void Builder::add_network() {
  Device net;
  net.name = "network";
  net.kind = DeviceKind::NetSwitch;
  net.node = -1;
  const DeviceId sw = add_device(net);
  for (const auto& d : impl_->devices) {
    if (d.kind != DeviceKind::Nic) continue;
    Link l;
    l.up = sw;
    l.down = d.id;
    l.kind = LinkKind::Network;
    l.width = d.nic->ports;
    l.bandwidth = d.nic_rate * d.nic->ports;
    l.note = "network port(s) to a non-blocking switch";
    add_link(l);
  }
}

}  // namespace detail

Topology build_topology(const LayoutSpec& spec) {
  return detail::Builder(spec).build();
}

}  // namespace rigsim::topology
