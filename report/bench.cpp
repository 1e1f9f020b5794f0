// `rigsim bench` reports: the nccl-tests output (preamble, table, footer) followed by a "why" section
// (algorithm, protocol, rings, connections, busiest links), and the same facts as JSON.
#include "report/bench.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

namespace rigsim::report {
namespace {

using namespace model;
using topology::DeviceId;

/// GPUs of each server, servers in id order (a single server is server 0).
std::map<int, std::vector<DeviceId>> gpus_by_node(const topology::Topology& topo) {
  std::map<int, std::vector<DeviceId>> out;
  for (DeviceId g : topo.gpus()) out[topo.device(g).node].push_back(g);
  return out;
}

std::string fixed(double v, int decimals) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
  return buf.data();
}

std::string route_words(const Connection& c) {
  return std::string(to_string(c.transport)) + " " + std::string(topology::to_string(c.path)) + " " +
         fixed(c.rate.gb_per_s(), 2) + " GB/s";
}

/// Connections listed one by one when few, else grouped by (transport, class, rate) with a count.
std::string connection_lines(const topology::Topology& topo, const std::vector<Connection>& cs) {
  std::string out;
  if (cs.size() <= 16) {
    for (const Connection& c : cs)
      out += "#   " + topo.device(c.src).name + " -> " + topo.device(c.dst).name + ": " + route_words(c) +
             (c.reason.empty() ? "" : " (" + c.reason + ")") + "\n";
    return out;
  }
  std::map<std::string, std::size_t> groups;
  for (const Connection& c : cs) ++groups[route_words(c)];
  for (const auto& [what, n] : groups) out += "#   " + std::to_string(n) + " x " + what + "\n";
  return out;
}

std::string ring_line(const topology::Topology& topo, const Ring& r) {
  std::string out = "#   ";
  const std::size_t shown = std::min<std::size_t>(r.order.size(), 16);
  for (std::size_t i = 0; i < shown; ++i) out += (i ? " -> " : "") + topo.device(r.order[i]).name;
  if (shown < r.order.size()) out += " -> ... (" + std::to_string(r.order.size()) + " GPUs)";
  return out + "\n";
}

/// The protocol NCCL's tuning model picks per size: the ranges of sizes run with each protocol.
std::string protocol_lines(const BenchResult& res) {
  std::string out = "# Protocols (NCCL's tuning model: latency + size / bandwidth, fastest wins):";
  for (std::size_t i = 0; i < res.rows.size();) {
    std::size_t j = i;
    while (j + 1 < res.rows.size() && res.rows[j + 1].protocol == res.rows[i].protocol) ++j;
    out += (i ? ", " : " ") + std::string(to_string(res.rows[i].protocol)) + " " +
           std::to_string(res.rows[i].row.size) + (j > i ? "-" + std::to_string(res.rows[j].row.size) : "") +
           " B";
    i = j + 1;
  }
  return out + "\n";
}

/// "24 NCCL channel(s) on 1 simulated ring(s)" for rings (copies of one ring cross the same links, so
/// rigsim simulates each distinct ring once); "2 tree(s)", "N flow(s)" otherwise.
std::string channel_words(const CollectivePlan& p) {
  if (p.algorithm == Algorithm::Ring && !p.rings.empty())
    return std::to_string(p.nccl.comm) + " NCCL channel(s) on " + std::to_string(p.channels) + " simulated " +
           (p.op == CollectiveOp::Broadcast || p.op == CollectiveOp::Reduce ? "chain(s)" : "ring(s)");
  if (p.algorithm == Algorithm::Nvls) return "one flow per GPU pair through the NVSwitch";
  if (p.algorithm == Algorithm::NvlsTree)
    return "one flow per GPU to the next GPU of its server (the NVLS load) and one to the same GPU of "
           "the next server";
  if (p.algorithm == Algorithm::Tree) return std::to_string(p.channels) + " tree(s)";
  if (p.algorithm == Algorithm::Pairwise)
    return std::to_string(p.connections.size()) + " send/recv flow(s) (NCCL: " + std::to_string(p.nccl.p2p) +
           " p2p channel(s), " + std::to_string(p.nccl.p2p_per_peer) + " per peer; each send on " +
           std::to_string(p.p2p_op_channels) + " at this size" +
           (p.p2p_cta_gbs > 0 ? ", " + fixed(p.p2p_cta_gbs, 1) + " GB/s per channel's thread block" : "") +
           ")";
  return std::to_string(p.channels) + " channel(s)";
}

/// When one thread's launches set the pace of some sizes (BenchOptions::gpus_per_thread).
std::string host_line(const Platform& platform, const BenchResult& res) {
  std::uint64_t last = 0;
  for (const BenchRow& r : res.rows)
    if (r.host_bound) last = r.row.size;
  if (last == 0) return "";
  const std::size_t g = res.gpus_per_thread;
  return "# Host: one thread launches the collective on each of its " + std::to_string(g) +
         " GPU(s) in turn every iteration (nccl-tests -g " + std::to_string(g) + "), " + std::to_string(g) +
         " x " + fixed(platform.cost_model().nccl_launch_per_gpu.us(), 1) +
         " us = " + fixed(res.launch.us(), 1) + " us per iteration: sizes up to " + std::to_string(last) +
         " B take this, not the GPUs' time" + (g > 1 ? " (--gpus-per-thread 1: one process per GPU)" : "") +
         "\n";
}

/// NVLS and NVLS_TREE: the kernel's pipeline of scatter, switch reduce and gather (NvlsPipeline).
std::string nvls_pipeline_line(const CollectivePlan& p) {
  return "# NVLS pipeline: scatter, switch reduce and gather over loops of " +
         std::to_string(p.nvls.channels) + " channels x " + std::to_string(p.nvls.heads) + " heads x " +
         std::to_string(static_cast<long long>(p.nvls.chunk.value / 1024)) +
         " KiB chunks\n#   (NCCL's chunk at this size) = " + fixed(p.nvls.loop.value / (1024.0 * 1024), 1) +
         " MiB; its fill and drain cost " + fixed(p.nvls.fill.value / (1024.0 * 1024), 1) +
         " MiB more at the NVLS rate\n";
}

std::string why(const Platform& platform, const BenchResult& res) {
  const auto& topo = platform.topology();
  const CollectivePlan& p = res.largest;
  std::string out =
      "#\n# Why (largest size, " + std::to_string(res.rows.empty() ? 0 : res.rows.back().row.size) +
      " B): " + std::string(to_string(p.algorithm)) + ", " + std::string(to_string(p.protocol)) +
      " protocol, " + channel_words(p) + ", " + std::string(to_string(p.model)) + " model, latency term " +
      fixed(p.latency.us(), 1) + " us\n";
  // A tree's channels are its rings' (NCCL's tree graph packs the ring's channels; on two servers the
  // reason also gives the bwIntra NCCL counts them at).
  if (((p.algorithm == Algorithm::Ring || p.algorithm == Algorithm::Tree) && !p.rings.empty()) ||
      (p.algorithm == Algorithm::Pairwise && p.nccl.p2p > 0))
    out += "# Channels (NCCL's search, duplication and NCCL_MIN/MAX_NCHANNELS): " + p.nccl.reason + "\n";
  out += protocol_lines(res);
  out += host_line(platform, res);
  if (p.algorithm == Algorithm::Nvls) {
    out +=
        "# NVLS: the NVSwitch reduces each GPU's shard (multimem.ld_reduce) and multicasts the result\n"
        "#   (multimem.st): every GPU sends and receives S(n+1)/n over its NVLinks, not 2(n-1)/n S\n" +
        nvls_pipeline_line(p);
  } else if (p.algorithm == Algorithm::NvlsTree) {
    out +=
        "# NVLS tree: NVLS inside each server (S(n+1)/n per GPU over its NVLinks); each GPU, head of its\n"
        "#   shard, sends the server's partial sum up a tree of the servers over its NIC and receives the\n"
        "#   result: S/n per NIC and direction between 2 servers, 2S/n beyond\n" +
        nvls_pipeline_line(p);
  } else if (p.algorithm == Algorithm::Tree) {
    out += "# Trees: two binary trees over the servers (the second mirrored or shifted) on each of " +
           std::to_string(p.rings.size()) + " ring(s), each tree carrying 1/" +
           std::to_string(p.tree_parents.size()) + " of the data;\n" +
           "#   inside a server the GPUs form a chain in the ring's order, its head (the GPU the ring\n"
           "#   enters the server at) on the network:\n";
    for (const Ring& r : p.rings) out += ring_line(topo, r);
  } else if (!p.rings.empty()) {
    out += p.op == CollectiveOp::Broadcast || p.op == CollectiveOp::Reduce ? "# Chains:\n" : "# Rings:\n";
    for (const Ring& r : p.rings) out += ring_line(topo, r);
  }
  if (p.block_channel_gbs > 0)
    out +=
        "# Blocks: " + std::to_string(p.block_channels) + " x " + fixed(p.block_channel_gbs, 2) + " GB/s (" +
        (p.block_figure_measured ? "what one block of this GPU generation moves, measured: " + p.block_figure
                                 : "NCCL's " + p.block_figure + " for this GPU generation and server count") +
        ") = " + fixed(p.block_channels * p.block_channel_gbs, 1) +
        " GB/s\n#   of bus bandwidth at most, as NCCL counts it" +
        (p.algorithm == Algorithm::Tree       ? " (S up and S down: half of it is algorithm bandwidth)\n"
         : p.algorithm == Algorithm::NvlsTree ? ", the pipeline's fill and drain on top at the NVLS rate\n"
                                              : "\n");
  out +=
      "# Connections (transport, path class, slowest wire rate):\n" + connection_lines(topo, p.connections);
  out += "# Busiest links (utilisation while the largest size ran):\n";
  for (const LinkUsage& u : res.bottleneck)
    out += "#   " + u.link + ": " + fixed(100 * u.utilization, 1) + " %\n";
  if (res.bottleneck.empty()) out += "#   none (nothing moved)\n";
  return out;
}

std::string host_label(const topology::Topology& topo, DeviceId g) {
  return topo.device(g).node >= 0 && topo.device(g).local_name != topo.device(g).name
             ? "node" + std::to_string(topo.device(g).node)
             : topo.name();
}

}  // namespace

std::string bench_text(const Platform& platform, const BenchOptions& o, const BenchResult& res) {
  const auto& topo = platform.topology();
  const auto by_node = gpus_by_node(topo);
  std::vector<std::string> rank_lines;
  for (std::size_t r = 0; r < res.gpus.size(); ++r) {
    const DeviceId g = res.gpus[r];
    const auto& local = by_node.at(topo.device(g).node);
    const auto dev = static_cast<std::size_t>(std::find(local.begin(), local.end(), g) - local.begin());
    rank_lines.push_back(
        nccl_tests::rank_line(r, host_label(topo, g), dev, std::string(topo.device(g).local_name),
                              topo.device(g).gpu ? std::string(topo.device(g).gpu->name) : "GPU"));
  }
  std::vector<nccl_tests::Row> rows;
  for (const auto& r : res.rows) rows.push_back(r.row);
  return nccl_tests::preamble(o.op, o.sweep, res.gpus_per_thread, rank_lines) +
         nccl_tests::table(o.op, rows) + why(platform, res);
}

nlohmann::json bench_json(const Platform& platform, const BenchOptions& o, const BenchResult& res) {
  const auto& topo = platform.topology();
  nlohmann::json j;
  j["op"] = std::string(to_string(o.op));
  j["layout"] = topo.name();
  j["gpus"] = nlohmann::json::array();
  for (DeviceId g : res.gpus) j["gpus"].push_back(topo.device(g).name);
  j["rows"] = nlohmann::json::array();
  for (const auto& r : res.rows)
    j["rows"].push_back({{"size", r.row.size},
                         {"count", r.row.count},
                         {"time_us", r.row.time_us},
                         {"algbw", r.row.algbw},
                         {"busbw", r.row.busbw},
                         {"algorithm", std::string(to_string(r.algorithm))},
                         {"model", std::string(to_string(r.model))},
                         {"protocol", std::string(to_string(r.protocol))},
                         {"host_bound", r.host_bound}});
  j["avg_busbw"] = res.avg_busbw;
  j["gpus_per_thread"] = res.gpus_per_thread;
  j["launch_us"] = std::round(res.launch.us() * 1e6) / 1e6;
  j["bottleneck"] = nlohmann::json::array();
  for (const auto& u : res.bottleneck)
    j["bottleneck"].push_back({{"link", u.link}, {"utilization", u.utilization}});
  if (res.largest.algorithm == Algorithm::Ring && !res.largest.rings.empty())
    j["channels"] = {{"nccl", res.largest.nccl.comm},
                     {"graph", res.largest.nccl.graph},
                     {"graph_gbs", res.largest.nccl.graph_gbs},
                     {"distinct_rings", res.largest.channels}};
  if (res.largest.algorithm == Algorithm::Pairwise && res.largest.nccl.p2p > 0)
    j["channels"] = {{"nccl", res.largest.nccl.comm},
                     {"p2p", res.largest.nccl.p2p},
                     {"p2p_per_peer", res.largest.nccl.p2p_per_peer},
                     {"send_channels", res.largest.p2p_op_channels},
                     {"channel_gbs_nvlink", res.largest.p2p_cta_gbs}};
  if (res.largest.block_channel_gbs > 0)
    j["blocks"] = {{"channels", res.largest.block_channels},
                   {"channel_gbs", res.largest.block_channel_gbs},
                   {"figure", res.largest.block_figure}};
  j["connections"] = nlohmann::json::array();
  for (const auto& c : res.largest.connections)
    j["connections"].push_back({{"src", topo.device(c.src).name},
                                {"dst", topo.device(c.dst).name},
                                {"transport", std::string(to_string(c.transport))},
                                {"path", std::string(topology::to_string(c.path))},
                                {"rate_gbs", c.rate.gb_per_s()}});
  return j;
}

}  // namespace rigsim::report
