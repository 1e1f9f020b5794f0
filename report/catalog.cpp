// `rigsim catalog` reports: every catalog table as JSON (every value with its source) and as a text
// table (the values without their sources).
#include "report/catalog.hpp"

#include "common/input.hpp"
#include "common/suggest.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "topology/catalog.hpp"

namespace rigsim::report {
namespace {

using nlohmann::json;
using namespace rigsim::topology;

json gpus_json() {
  json out = json::array();
  for (const auto& g : gpu_catalog())
    out.push_back({{"key", g.key},
                   {"name", g.name},
                   {"vendor", to_string(g.vendor)},
                   {"geforce", g.geforce},
                   {"memory_gb", g.memory_gb},
                   {"memory_bw_gbs", g.memory_bw_gbs},
                   {"fp16_fp32acc_tflops", g.fp16_fp32acc_tflops},
                   {"fp16_fp16acc_tflops", g.fp16_fp16acc_tflops},
                   {"fp32_tflops", g.fp32_tflops},
                   {"pcie_gen", g.pcie_gen},
                   {"pcie_width", g.pcie_width},
                   {"nvlink_gen", g.nvlink_gen},
                   {"nvlink_links", g.nvlink_links},
                   {"nvlink_link_gbs", g.nvlink_link_gbs},
                   {"nvlink_bridge", g.nvlink_bridge},
                   {"p2p_stock", g.p2p_stock},
                   {"p2p_patchable", g.p2p_patchable},
                   {"sm", g.sm},
                   {"tdp_w", g.tdp_w},
                   {"used_price_usd", g.used_price_usd},
                   {"source", g.source}});
  return out;
}

json cpus_json() {
  json out = json::array();
  for (const auto& c : cpu_catalog())
    out.push_back({{"key", c.key},
                   {"name", c.name},
                   {"vendor", to_string(c.vendor)},
                   {"pcie_gen", c.pcie_gen},
                   {"pcie_lanes", c.pcie_lanes},
                   {"memory_channels", c.memory_channels},
                   {"memory_bw_gbs", c.memory_bw_gbs},
                   {"root_port_per_x16", c.root_port_per_x16},
                   {"inter_socket", to_string(c.inter_socket)},
                   {"inter_socket_links", c.inter_socket_links},
                   {"inter_socket_link_gbs", c.inter_socket_link_gbs},
                   {"inter_socket_effective_gbs", c.inter_socket_effective_gbs},
                   {"p2p_across_sockets", c.p2p_across_sockets},
                   {"tdp_w", c.tdp_w},
                   {"source", c.source}});
  return out;
}

json others_json(const std::string& kind) {
  json out = json::array();
  if (kind == "chipsets")
    for (const auto& c : chipset_catalog())
      out.push_back({{"key", c.key},
                     {"name", c.name},
                     {"uplink_gen", c.uplink_gen},
                     {"uplink_width", c.uplink_width},
                     {"downstream_gen", c.downstream_gen},
                     {"downstream_lanes", c.downstream_lanes},
                     {"source", c.source}});
  if (kind == "switches")
    for (const auto& s : switch_catalog())
      out.push_back({{"key", s.key},
                     {"name", s.name},
                     {"gen", s.gen},
                     {"lanes", s.lanes},
                     {"latency_ns", s.latency_ns},
                     {"p2p", s.p2p},
                     {"source", s.source}});
  if (kind == "nics")
    for (const auto& n : nic_catalog())
      out.push_back({{"key", n.key},
                     {"name", n.name},
                     {"speed_gbps", n.speed_gbps},
                     {"ports", n.ports},
                     {"pcie_gen", n.pcie_gen},
                     {"pcie_width", n.pcie_width},
                     {"gpudirect_rdma", n.gpudirect_rdma},
                     {"source", n.source}});
  if (kind == "nvswitches")
    for (const auto& s : nvswitch_catalog())
      out.push_back({{"key", s.key},
                     {"name", s.name},
                     {"nvlink_gen", s.nvlink_gen},
                     {"ports", s.ports},
                     {"link_gbs", s.link_gbs},
                     {"source", s.source}});
  return out;
}

/// One cell of the text table: numbers with at most two decimals, booleans as yes/no.
std::string cell(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v.get<double>());
  std::string s = buf;
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) s.pop_back();
  return s;
}

}  // namespace

const std::vector<std::string>& catalog_kinds() {
  static const std::vector<std::string> kinds{"gpus", "cpus", "chipsets", "switches", "nics", "nvswitches"};
  return kinds;
}

nlohmann::json catalog_json(const std::string& kind) {
  if (kind == "gpus") return gpus_json();
  if (kind == "cpus") return cpus_json();
  return others_json(kind);
}

std::string catalog_text(const std::string& kind) {
  const json rows = catalog_json(kind);
  if (rows.empty()) return "(no " + kind + ")\n";
  std::vector<std::string> columns{"key"};  // then the values in name order; sources are for --json
  for (const auto& [key, value] : rows.front().items())
    if (key != "source" && key != "name" && key != "key") columns.push_back(key);
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    width[c] = columns[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], cell(r.at(columns[c])).size());
  }
  std::ostringstream out;
  auto line = [&](auto value_of) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string v = value_of(c);
      out << v << (c + 1 < columns.size() ? std::string(width[c] - v.size() + 2, ' ') : "");
    }
    out << "\n";
  };
  line([&](std::size_t c) { return columns[c]; });
  for (const auto& r : rows) line([&](std::size_t c) { return cell(r.at(columns[c])); });
  out << "\n`rigsim catalog " << kind << " --json` gives every value with its source.\n";
  return out.str();
}

nlohmann::json catalog_entry(const std::string& key) {
  for (const std::string& kind : catalog_kinds())
    for (const auto& e : catalog_json(kind))
      if (e.at("key") == key) {
        json out = e;
        out["kind"] = kind;
        return out;
      }
  return nullptr;
}

std::string catalog_show(const std::string& key) {
  const json e = catalog_entry(key);
  if (e.is_null()) {
    std::vector<std::string> keys;
    for (const std::string& kind : catalog_kinds())
      for (const auto& x : catalog_json(kind)) keys.push_back(x.at("key").get<std::string>());
    throw InputError("", "catalog show", "no part \"" + key + "\" in the catalog" + did_you_mean(key, keys));
  }
  std::ostringstream out;
  out << e.at("key").get<std::string>() << " (" << e.at("kind").get<std::string>() << "): " << e.at("name").get<std::string>()
      << "\n";
  for (const auto& [k, v] : e.items())
    if (k != "key" && k != "name" && k != "kind" && k != "source") out << "  " << k << ": " << cell(v) << "\n";
  out << "Source: " << e.at("source").get<std::string>() << "\n";
  return out.str();
}

}  // namespace rigsim::report
