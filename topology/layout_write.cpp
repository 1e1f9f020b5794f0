// layout_to_json(): a LayoutSpec as layout JSON, the inverse of parse_layout (what importers write).
// Defaults are left out, as a person writes a layout.
#include "topology/layout_json.hpp"

namespace rigsim::topology {
namespace {

using nlohmann::json;

void put_attach(json& j, const PcieAttach& a) {
  if (!a.slot.empty()) {
    j["slot"] = a.slot;
    if (a.port >= 0) j["port"] = a.port;
  } else {
    j["parent"] = a.parent;
    if (a.gen > 0 && a.width > 0) j["link"] = {{"gen", a.gen}, {"width", a.width}};
  }
  if (a.riser) {
    json r = json::object();
    if (a.riser->gen > 0) r["gen"] = a.riser->gen;
    if (a.riser->width > 0) r["width"] = a.riser->width;
    if (!a.riser->model.empty())
      r["model"] = a.riser->model;
    else if (!a.riser->kind.empty())
      r["kind"] = a.riser->kind;
    j["riser"] = std::move(r);
  }
}

json cpus(const LayoutSpec& s) {
  json out = json::array();
  for (const CpuEntry& c : s.cpus) {
    json j = {{"id", c.id}, {"model", c.model}, {"socket", c.socket}};
    if (c.numa != c.socket) j["numa"] = c.numa;
    if (c.reserved_lanes > 0) j["reserved_lanes"] = c.reserved_lanes;
    if (c.memory_bw_gbs > 0) j["memory_bw_gbs"] = c.memory_bw_gbs;
    if (c.nps != 1) j["nps"] = c.nps;
    out.push_back(std::move(j));
  }
  return out;
}

json pcie_tree(const LayoutSpec& s, json doc) {
  json bridges = json::array();
  for (const HostBridgeEntry& h : s.host_bridges) {
    json b = {{"id", h.id}, {"cpu", h.cpu}, {"lanes", h.lanes}};
    if (h.quadrant >= 0) b["quadrant"] = h.quadrant;
    bridges.push_back(std::move(b));
  }
  doc["host_bridges"] = std::move(bridges);
  if (!s.chipsets.empty()) {
    json chipsets = json::array();
    for (const ChipsetEntry& c : s.chipsets)
      chipsets.push_back({{"id", c.id}, {"model", c.model}, {"parent", c.parent}});
    doc["chipsets"] = std::move(chipsets);
  }
  if (!s.slots.empty()) {
    json slots = json::array();
    for (const SlotEntry& e : s.slots) {
      json j = {{"id", e.id}, {"parent", e.parent}};
      if (e.gen > 0) j["gen"] = e.gen;
      j["width"] = e.width;
      if (!e.bifurcation.empty()) j["bifurcation"] = e.bifurcation;
      if (e.position > 0) j["position"] = e.position;
      slots.push_back(std::move(j));
    }
    doc["slots"] = std::move(slots);
  }
  if (!s.switches.empty()) {
    json switches = json::array();
    for (const SwitchEntry& e : s.switches) {
      json j = {{"id", e.id}, {"model", e.model}};
      put_attach(j, e.attach);
      if (e.acs_redirect) j["acs_redirect"] = true;
      switches.push_back(std::move(j));
    }
    doc["switches"] = std::move(switches);
  }
  return doc;
}

json endpoints(const LayoutSpec& s, json doc) {
  json gpus = json::array();
  for (const GpuEntry& g : s.gpus) {
    json j = {{"id", g.id}, {"model", g.model}};
    put_attach(j, g.attach);
    gpus.push_back(std::move(j));
  }
  doc["gpus"] = std::move(gpus);
  if (!s.nics.empty()) {
    json nics = json::array();
    for (const NicEntry& n : s.nics) {
      json j = {{"id", n.id}, {"model", n.model}};
      put_attach(j, n.attach);
      if (n.speed_gbps > 0) j["speed_gbps"] = n.speed_gbps;
      nics.push_back(std::move(j));
    }
    doc["nics"] = std::move(nics);
  }
  if (!s.nvlinks.empty()) {
    json links = json::array();
    for (const NvLinkEntry& l : s.nvlinks) {
      json j = {{"gpus", {l.a, l.b}}};
      if (l.links > 0) j["links"] = l.links;
      if (!l.bridge) j["bridge"] = false;
      links.push_back(std::move(j));
    }
    doc["nvlinks"] = std::move(links);
  }
  if (!s.xgmi.empty()) {
    json hives = json::array();
    for (const XgmiEntry& x : s.xgmi) {
      json j = {{"gpus", x.gpus}};
      if (x.links > 0) j["links"] = x.links;
      if (!x.bridge) j["bridge"] = false;
      hives.push_back(std::move(j));
    }
    doc["xgmi"] = std::move(hives);
  }
  if (!s.nvswitches.empty()) {
    json switches = json::array();
    for (const NvSwitchEntry& n : s.nvswitches) {
      json j = {{"id", n.id}, {"model", n.model}};
      if (n.chips != 1) j["chips"] = n.chips;
      j["gpus"] = n.gpus;
      if (n.links_per_gpu > 0) j["links_per_gpu"] = n.links_per_gpu;
      switches.push_back(std::move(j));
    }
    doc["nvswitches"] = std::move(switches);
  }
  return doc;
}

}  // namespace

json layout_to_json(const LayoutSpec& s) {
  json doc = {{"name", s.name}};
  if (!s.description.empty()) doc["description"] = s.description;
  if (!s.notes.empty()) doc["notes"] = s.notes;
  if (s.psu.unit_w > 0) {
    const PsuSpec plain;  // one ATX 3.x unit is written the short way
    if (s.psu.kind == plain.kind && s.psu.units == 1 && s.psu.redundant == 0)
      doc["psu_w"] = s.psu.unit_w;
    else
      doc["psu"] = {{"kind", power::to_string(s.psu.kind)},
                    {"units", s.psu.units},
                    {"unit_w", s.psu.unit_w},
                    {"redundant", s.psu.redundant}};
  }
  if (s.price_usd > 0) {
    doc["price_usd"] = s.price_usd;
    doc["price_source"] = s.price_source;
  }
  if (s.p2p_patched_driver) doc["driver"] = {{"p2p_patched", true}};
  if (!s.parts.is_null()) doc["parts"] = s.parts;
  doc["cpus"] = cpus(s);
  if (!s.inter_socket.empty()) {
    json links = json::array();
    for (const InterSocketEntry& l : s.inter_socket) {
      json j = {{"a", l.a}, {"b", l.b}};
      if (l.links > 0) j["links"] = l.links;
      if (l.effective_gbs > 0) j["effective_gbs"] = l.effective_gbs;
      links.push_back(std::move(j));
    }
    doc["inter_socket"] = std::move(links);
  }
  return endpoints(s, pcie_tree(s, std::move(doc)));
}

}  // namespace rigsim::topology
