#include "topology/layout_json.hpp"

#include "common/input.hpp"
#include "common/suggest.hpp"
#include "topology/build.hpp"
#include "topology/catalog.hpp"

namespace rigsim::topology {
namespace {

using nlohmann::json;

int positive(ObjectReader& r, const std::string& key, int value, int min, int max) {
  if (value < min || value > max)
    r.fail(key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                    std::to_string(value));
  return value;
}

// A riser is a catalog part ("model") or described by hand; "gen"/"width" given with a model lower
// what it carries (a Gen4 cable that trains at Gen3 in this build), never raise it.
RiserSpec read_riser(ObjectReader r) {
  RiserSpec s;
  const auto model = r.optional_string("model");
  const RiserPart* part = nullptr;
  if (model) {
    part = find_riser(*model);
    if (part == nullptr)
      r.fail("model", "unknown riser model \"" + *model + "\"" + did_you_mean(*model, riser_keys()) +
                          " (`rigsim catalog risers` lists the known ones)");
  }
  s.gen = positive(r, "gen", r.optional_int("gen").value_or(part ? part->gen : 0), 0, 6);
  s.width = positive(r, "width", r.optional_int("width").value_or(part ? part->width : 0), 0, 16);
  if (part && s.gen > part->gen)
    r.fail("gen", "a " + std::string(part->name) + " carries at most Gen" + std::to_string(part->gen));
  if (part && s.width > part->width)
    r.fail("width", "a " + std::string(part->name) + " carries at most x" + std::to_string(part->width));
  s.kind = r.optional_string("kind").value_or(part ? std::string(part->key) : "");
  if (part && s.kind != part->key)
    r.fail("kind", "\"kind\" is the model's key with a \"model\"; leave it out");
  s.model = part ? std::string(part->key) : "";
  r.finish();
  return s;
}

// Reads "slot"/"port" or "parent"/"link", and "riser", from a device entry.
PcieAttach read_attach(ObjectReader& r) {
  PcieAttach a;
  a.where = r.pointer();
  a.slot = r.optional_string("slot").value_or("");
  a.port = r.optional_int("port").value_or(-1);
  a.parent = r.optional_string("parent").value_or("");
  if (!a.slot.empty() && !a.parent.empty()) r.fail("parent", "give either \"slot\" or \"parent\", not both");
  if (a.port >= 0 && a.slot.empty()) r.fail("port", "\"port\" needs a \"slot\"");
  if (const json* link = r.optional_object("link")) {
    if (!a.slot.empty()) r.fail("link", "\"link\" describes an on-board connection; a slot sets its own");
    ObjectReader lr(*link, r.file(), r.pointer_of("link"));
    a.gen = positive(lr, "gen", lr.required_int("gen"), 1, 6);
    a.width = positive(lr, "width", lr.required_int("width"), 1, 32);
    lr.finish();
  }
  if (const json* riser = r.optional_object("riser"))
    a.riser = read_riser(ObjectReader(*riser, r.file(), r.pointer_of("riser")));
  return a;
}

template <typename F>
void for_each_entry(ObjectReader& top, const std::string& key, bool required, F&& f) {
  const json* arr = required ? &top.required_array(key) : top.optional_array(key);
  if (arr == nullptr) return;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    ObjectReader r = top.element(*arr, key, i);
    r.allow("$comment");
    f(r);
    r.finish();
  }
}

void read_cpus(ObjectReader& top, LayoutSpec& spec) {
  for_each_entry(top, "cpus", true, [&](ObjectReader& r) {
    CpuEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.model = r.required_string("model");
    e.socket =
        positive(r, "socket", r.optional_int("socket").value_or(static_cast<int>(spec.cpus.size())), 0, 63);
    e.numa = r.optional_int("numa").value_or(e.socket);
    e.reserved_lanes = positive(r, "reserved_lanes", r.optional_int("reserved_lanes").value_or(0), 0, 256);
    e.memory_bw_gbs = r.optional_number("memory_bw_gbs").value_or(0);
    e.nps = r.optional_int("nps").value_or(1);
    if (e.nps != 1 && e.nps != 2 && e.nps != 4 && e.nps != 8)
      r.fail("nps", "expected NUMA nodes per socket: 1, 2, 4 or 8, got " + std::to_string(e.nps));
    spec.cpus.push_back(e);
  });
  for_each_entry(top, "host_bridges", true, [&](ObjectReader& r) {
    HostBridgeEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.cpu = r.required_string("cpu");
    e.lanes = positive(r, "lanes", r.required_int("lanes"), 1, 256);
    if (const auto q = r.optional_int("quadrant")) e.quadrant = positive(r, "quadrant", *q, 0, 15);
    spec.host_bridges.push_back(e);
  });
  for_each_entry(top, "inter_socket", false, [&](ObjectReader& r) {
    InterSocketEntry e;
    e.where = r.pointer();
    e.a = r.required_string("a");
    e.b = r.required_string("b");
    e.links = positive(r, "links", r.optional_int("links").value_or(0), 0, 8);
    e.effective_gbs = r.optional_number("effective_gbs").value_or(0);
    spec.inter_socket.push_back(e);
  });
}

void read_pcie_tree(ObjectReader& top, LayoutSpec& spec) {
  for_each_entry(top, "chipsets", false, [&](ObjectReader& r) {
    ChipsetEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.model = r.required_string("model");
    e.parent = r.required_string("parent");
    spec.chipsets.push_back(e);
  });
  for_each_entry(top, "slots", false, [&](ObjectReader& r) {
    SlotEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.parent = r.required_string("parent");
    e.gen = positive(r, "gen", r.optional_int("gen").value_or(0), 0, 6);
    e.width = positive(r, "width", r.required_int("width"), 1, 32);
    e.position = positive(r, "position", r.optional_int("position").value_or(0), 0, 64);
    if (const json* b = r.optional_array("bifurcation")) {
      for (std::size_t i = 0; i < b->size(); ++i) {
        if (!(*b)[i].is_number_integer())
          throw InputError(r.file(), r.pointer_of("bifurcation") + "/" + std::to_string(i),
                           "expected a port width (integer lanes)");
        e.bifurcation.push_back((*b)[i].get<int>());
      }
    }
    spec.slots.push_back(e);
  });
  for_each_entry(top, "switches", false, [&](ObjectReader& r) {
    SwitchEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.model = r.required_string("model");
    e.acs_redirect = r.optional_bool("acs_redirect").value_or(false);
    e.attach = read_attach(r);
    spec.switches.push_back(e);
  });
}

void read_endpoints(ObjectReader& top, LayoutSpec& spec) {
  for_each_entry(top, "gpus", true, [&](ObjectReader& r) {
    GpuEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.model = r.required_string("model");
    e.attach = read_attach(r);
    spec.gpus.push_back(e);
  });
  for_each_entry(top, "nics", false, [&](ObjectReader& r) {
    NicEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.model = r.required_string("model");
    e.speed_gbps = r.optional_number("speed_gbps").value_or(0);
    e.attach = read_attach(r);
    spec.nics.push_back(e);
  });
}

void read_nvlink(ObjectReader& top, LayoutSpec& spec) {
  for_each_entry(top, "nvlinks", false, [&](ObjectReader& r) {
    NvLinkEntry e;
    e.where = r.pointer();
    const auto gpus = r.string_list("gpus", true);
    if (gpus.size() != 2)
      r.fail("gpus", "an NVLink joins exactly two GPUs, got " + std::to_string(gpus.size()));
    e.a = gpus[0];
    e.b = gpus[1];
    e.links = positive(r, "links", r.optional_int("links").value_or(0), 0, 18);
    e.bridge = r.optional_bool("bridge").value_or(true);
    spec.nvlinks.push_back(e);
  });
  for_each_entry(top, "xgmi", false, [&](ObjectReader& r) {
    XgmiEntry e;
    e.where = r.pointer();
    e.gpus = r.string_list("gpus", true);
    if (e.gpus.size() < 2 || e.gpus.size() > 8)
      r.fail("gpus", "an xGMI bridge or board joins 2 to 8 GPUs, got " + std::to_string(e.gpus.size()));
    e.links = positive(r, "links", r.optional_int("links").value_or(0), 0, 16);
    e.bridge = r.optional_bool("bridge").value_or(true);
    spec.xgmi.push_back(e);
  });
  for_each_entry(top, "nvswitches", false, [&](ObjectReader& r) {
    NvSwitchEntry e;
    e.where = r.pointer();
    e.id = r.required_string("id");
    e.model = r.required_string("model");
    e.chips = positive(r, "chips", r.optional_int("chips").value_or(1), 1, 64);
    e.gpus = r.string_list("gpus", true);
    e.links_per_gpu = positive(r, "links_per_gpu", r.optional_int("links_per_gpu").value_or(0), 0, 18);
    spec.nvswitches.push_back(e);
  });
}

}  // namespace

// "psu_w": W (one ATX 3.x unit), or "psu": {"kind", "units", "unit_w", "redundant"}.
PsuSpec parse_psu(ObjectReader& top, const std::string& file) {
  PsuSpec psu;
  const json* object = top.optional_object("psu");
  if (const auto w = top.optional_number("psu_w")) {
    if (object != nullptr)
      top.fail("psu_w", "give either \"psu_w\" (one ATX 3.x unit) or a \"psu\" object, not both");
    if (!(*w >= 0 && *w < 1e6)) top.fail("psu_w", "expected the PSU capacity in W, a non-negative number");
    psu.unit_w = *w;
    return psu;
  }
  if (object == nullptr) return psu;
  ObjectReader r(*object, file, "/psu");
  const std::string kind = r.optional_string("kind").value_or("atx3");
  std::string kinds;
  bool found = false;
  for (const power::PsuKind k : power::kPsuKinds) {
    kinds += (kinds.empty() ? "" : ", ") + std::string(power::to_string(k));
    if (power::to_string(k) == kind) {
      psu.kind = k;
      found = true;
    }
  }
  if (!found) r.fail("kind", "expected one of " + kinds + ", got \"" + kind + "\"");
  const auto unit_w = r.optional_number("unit_w");
  if (!unit_w) r.fail_here("missing \"unit_w\" (the rating of one supply, W)");
  if (!(*unit_w > 0 && *unit_w < 1e5))
    r.fail("unit_w", "expected the rating of one supply in W, a positive number");
  psu.unit_w = *unit_w;
  psu.units = r.optional_int("units").value_or(1);
  if (psu.units < 1 || psu.units > 64) r.fail("units", "expected the number of supplies, 1 to 64");
  psu.redundant = r.optional_int("redundant").value_or(0);
  if (psu.redundant < 0 || psu.redundant >= psu.units)
    r.fail("redundant", "expected how many of the " + std::to_string(psu.units) +
                            " supplies are spares (N+N: half), at least 0 and fewer than \"units\"");
  r.finish();
  return psu;
}

LayoutSpec parse_layout(const json& doc, const std::string& file) {
  ObjectReader top(doc, file, "");
  top.allow("$comment");
  LayoutSpec spec;
  spec.file = file;
  spec.name = top.required_string("name");
  spec.description = top.optional_string("description").value_or("");
  spec.notes = top.string_list("notes");
  spec.psu = parse_psu(top, file);
  spec.price_usd = top.optional_number("price_usd").value_or(0);
  if (!(spec.price_usd >= 0 && spec.price_usd < 1e9))
    top.fail("price_usd", "expected the box's price in USD, a non-negative number");
  spec.price_source = top.optional_string("price_source").value_or("");
  if (spec.price_usd > 0 && spec.price_source.empty())
    top.fail("price_usd", "a price needs its \"price_source\" (the listing or quote, with its date)");
  if (const json* driver = top.optional_object("driver")) {
    ObjectReader d(*driver, file, "/driver");
    spec.p2p_patched_driver = d.optional_bool("p2p_patched").value_or(false);
    d.finish();
  }
  // Parts first: the models below may name them. Shadowing a built-in part is reported with the
  // layout's warnings.
  if (const json* parts = top.optional_object("parts")) {
    for (std::string& note : add_catalog_parts(*parts, file, "/parts"))
      spec.import_warnings.push_back(std::move(note));
    spec.parts = *parts;
  }
  read_cpus(top, spec);
  read_pcie_tree(top, spec);
  read_endpoints(top, spec);
  read_nvlink(top, spec);
  top.finish();
  return spec;
}

Topology load_layout(const std::string& path) {
  return build_topology(parse_layout(load_json_file(path), path));
}

}  // namespace rigsim::topology
