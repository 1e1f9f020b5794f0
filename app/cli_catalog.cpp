// `rigsim catalog [KIND]`: the hardware the layouts can name, with every number's source.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli.hpp"
#include "topology/catalog.hpp"

namespace rigsim::app {
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

std::string gpus_text() {
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-18s %6s %7s %9s %9s %7s %-6s %-9s %-4s %5s %6s\n", "key", "mem GB",
                "GB/s", "bf16/f32a", "fp16/f16a", "fp32", "PCIe", "NVLink", "P2P", "TDP W", "used $");
  out << buf;
  for (const auto& g : gpu_catalog()) {
    const std::string nv =
        g.nvlink_gen ? "NV" + std::to_string(g.nvlink_gen) + "x" + std::to_string(g.nvlink_links) : "-";
    const std::string pcie = "G" + std::to_string(g.pcie_gen) + "x" + std::to_string(g.pcie_width);
    std::snprintf(buf, sizeof buf, "%-18s %6.0f %7.0f %9.1f %9.1f %7.1f %-6s %-9s %-4s %5.0f %6.0f\n",
                  std::string(g.key).c_str(), g.memory_gb, g.memory_bw_gbs, g.fp16_fp32acc_tflops,
                  g.fp16_fp16acc_tflops, g.fp32_tflops, pcie.c_str(), nv.c_str(), g.p2p_stock ? "yes" : "no",
                  g.tdp_w, g.used_price_usd);
    out << buf;
  }
  out << "\nTFLOP/s are dense. `rigsim catalog gpus --json` gives every value's source.\n";
  return out.str();
}

}  // namespace

void add_catalog(CLI::App& app, Action& action) {
  struct Options {
    std::string kind = "gpus";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("catalog", "List the hardware catalog (GPUs, CPUs, chipsets, switches, NICs)");
  cmd->add_option("kind", opt->kind, "What to list")
      ->check(CLI::IsMember({"gpus", "cpus", "chipsets", "switches", "nics", "nvswitches"}));
  cmd->add_flag("--json", opt->json, "JSON with sources");
  cmd->callback([opt, &action] {
    action = [opt] {
      if (opt->kind == "gpus" && !opt->json) {
        emit(gpus_text(), "");
        return 0;
      }
      const json out = opt->kind == "gpus"   ? gpus_json()
                       : opt->kind == "cpus" ? cpus_json()
                                             : others_json(opt->kind);
      emit(out.dump(2) + "\n", "");
      return 0;
    };
  });
}

}  // namespace rigsim::app
