// Text and JSON renderings of a P2pBenchResult. The text follows the CUDA samples'
// p2pBandwidthLatencyTest layout ("%6d" headers, "%6.02f" cells) so people can put it next to a real
// run (../shared/data/p2p/*p2pBandwidthLatencyTest*.txt); trailing blanks are trimmed.
#include "report/p2p.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace rigsim::report {
namespace {

using namespace model;

std::string cell(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string trim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void matrix(std::ostringstream& out, const std::string& title, const char* corner, const Matrix& m) {
  out << title << "\n";
  std::string head = std::string("   ") + corner;
  for (std::size_t j = 0; j < m.size(); ++j) head += cell("%6.0f ", static_cast<double>(j));
  out << trim(head) << "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::string row = cell("%6.0f ", static_cast<double>(i));
    for (double v : m[i]) row += cell("%6.02f ", v);
    out << trim(row) << "\n";
  }
}

void header(std::ostringstream& out, const P2pBenchResult& r) {
  out << "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test] simulated by rigsim\n";
  out << "Layout: " << r.layout << ", cost model: " << r.cost_model << ", copy size: " << format_bytes(r.size)
      << "\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << "Device: " << i << ", " << r.models[i] << ", " << r.gpus[i] << "\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    for (std::size_t j = 0; j < r.gpus.size(); ++j)
      if (i != j)
        out << "Device=" << i << (r.can_access[i][j] ? " CAN" : " CANNOT") << " Access Peer Device=" << j
            << "\n";
  out << "\n***NOTE: In case a device doesn't have P2P access to other one, it falls back to normal memcopy "
         "procedure.\n"
         "So you can see lesser Bandwidth (GB/s) and unstable Latency (us) in those cases.\n\n";
  out << "P2P Connectivity Matrix\n     D\\D";
  for (std::size_t j = 0; j < r.gpus.size(); ++j) out << cell("%6.0f", static_cast<double>(j));
  out << "\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i) {
    out << cell("%6.0f  ", static_cast<double>(i));
    for (std::size_t j = 0; j < r.gpus.size(); ++j) out << cell("%6.0f", r.can_access[i][j] ? 1.0 : 0.0);
    out << "\n";
  }
}

void host_table(std::ostringstream& out, const P2pBenchResult& r) {
  out << "\n[bandwidthTest] Pinned host memory on each GPU's own socket, " << format_bytes(r.size)
      << " per copy (GB/s)\n";
  out << "   GPU    H2D    D2H\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f ", r.h2d_gbps[i])
        << cell("%6.02f", r.d2h_gbps[i]) << "\n";
  out << "\n[nvbandwidth] Each GPU's copy while others run: every GPU the same way (host_to_all, "
         "all_to_host),\n"
         "the other direction on the same GPU (bidirectional), both directions on every GPU (GB/s)\n";
  out << "   GPU  H2D all  D2H all  H2D bidir  D2H bidir  H2D all bidir  D2H all bidir\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%8.02f ", r.h2d_concurrent_gbps[i])
        << cell("%8.02f ", r.d2h_concurrent_gbps[i]) << cell("%10.02f ", r.h2d_bidir_gbps[i])
        << cell("%10.02f ", r.d2h_bidir_gbps[i]) << cell("%14.02f ", r.h2d_concurrent_bidir_gbps[i])
        << cell("%14.02f", r.d2h_concurrent_bidir_gbps[i]) << "\n";
  out << "Why (the link each test's copies crowd most; the first GPU of each kind):\n";
  for (const model::HostTestWhy& w : r.host_why)
    out << "  " << w.test << " GPU " << w.gpu << " (" << w.gpus << (w.gpus == 1 ? " GPU" : " GPUs")
        << "): " << cell("%.2f", w.gbps) << " GB/s; " << w.limit << " (" << cell("%.2f", w.limit_gbps)
        << " GB/s) shared by " << w.copies << (w.copies == 1 ? " copy" : " copies") << "\n";
  out << "\n[latency] One 4-byte pinned copy the host waits for, memory on each GPU's own socket (us)\n";
  out << "   GPU    H2D    D2H\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f ", r.h2d_latency_us[i])
        << cell("%6.02f", r.d2h_latency_us[i]) << "\n";
  if (std::all_of(r.h2d_remote_gbps.begin(), r.h2d_remote_gbps.end(), [](double v) { return v == 0; }))
    return;
  out << "\n[bandwidthTest] Pinned host memory on another socket (the remote NUMA node) (GB/s)\n";
  out << "   GPU    H2D    D2H\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f ", r.h2d_remote_gbps[i])
        << cell("%6.02f", r.d2h_remote_gbps[i]) << "\n";
}

/// "0.94 MB" as a person reads a chunk.
std::string megabytes(double bytes) {
  return cell("%.3g MB", bytes / 1e6);
}

/// One line per kind of GPU pair: which way the copy goes, and what sets its figure.
void why(std::ostringstream& out, const P2pBenchResult& r) {
  if (r.why.empty()) return;
  out << "\nWhy (one copy alone; the first GPU pair of each kind and how many pairs share it):\n";
  for (const P2pWhy& w : r.why) {
    out << "  " << (w.enabled ? "P2P=Enabled  " : "P2P=Disabled ") << w.src << " -> " << w.dst << " ("
        << w.pairs << (w.pairs == 1 ? " pair" : " pairs") << ", " << w.path << "): ";
    if (w.enabled) out << w.access << "; ";
    if (w.peer) {
      out << "a direct copy, " << cell("%.2f", w.gbps) << " GB/s; alone it gets "
          << cell("%.2f", w.limit_gbps) << " GB/s, limited by " << w.limit
          << (w.capped ? " (its per-transfer limit)" : "") << "; latency " << cell("%.2f", w.latency_us)
          << " us, " << w.latency_basis << "\n";
      continue;
    }
    out << "staged through host memory, D2H " << cell("%.2f", w.d2h_gbps) << " GB/s (" << w.d2h_limit
        << ") then H2D " << cell("%.2f", w.h2d_gbps) << " GB/s (" << w.h2d_limit << ")";
    if (!w.shared.empty()) {
      out << ", both crossing";
      for (std::size_t k = 0; k < w.shared.size(); ++k) out << (k ? ", " : " ") << w.shared[k];
    }
    out << "; "
        << (w.overlapped ? "each chunk's D2H beside the previous chunk's H2D"
                         : "the legs take turns through one buffer (GeForce Turing / Ampere)")
        << ", " << cell("%.0f", w.chunks) << (w.chunks == 1 ? " chunk of " : " chunks of ")
        << megabytes(w.chunk_bytes) << ", " << cell("%.0f", w.handoffs) << " hand-offs of "
        << cell("%.3g", w.sync_us) << " us: " << cell("%.2f", w.gbps) << " GB/s\n";
  }
}

nlohmann::json rounded(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(std::round(x * 100.0) / 100.0);
  return a;
}

nlohmann::json rounded(const Matrix& m) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& row : m) a.push_back(rounded(row));
  return a;
}

}  // namespace

std::string p2p_bench_text(const P2pBenchResult& r) {
  std::ostringstream out;
  header(out, r);
  matrix(out, "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "D\\D", r.uni_p2p_off);
  matrix(out, "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)", "D\\D", r.uni_p2p_on);
  matrix(out, "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "D\\D", r.bi_p2p_off);
  matrix(out, "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", "D\\D", r.bi_p2p_on);
  matrix(out, "P2P=Disabled Latency Matrix (us)", "GPU", r.latency_us_p2p_off);
  matrix(out, "P2P=Enabled Latency (P2P Writes) Matrix (us)", "GPU", r.latency_us_p2p_on);
  host_table(out, r);
  out << "\n";
  matrix(out,
         "[nvbandwidth] device_to_device_memcpy_write_sm: a kernel on GPU (row) storing to GPU (column), "
         "P2P=Enabled pairs (GB/s)",
         "D\\D", r.uni_p2p_on_sm);
  out << "[nvbandwidth] device_to_host_memcpy_sm: a kernel storing to pinned memory of its own socket "
         "(GB/s)\n"
         "   GPU    D2H\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f", r.d2h_sm_gbps[i]) << "\n";
  out << "[nvbandwidth] all_to_one / one_to_all (copy engines, peers with access): every other GPU copying "
         "to the GPU at once, the GPU copying to every other (GB/s in all)\n"
         "   GPU     in    out\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f ", r.fan_in_gbps[i])
        << cell("%6.02f", r.fan_out_gbps[i]) << "\n";
  why(out, r);
  return out.str();
}

nlohmann::json p2p_bench_json(const P2pBenchResult& r) {
  nlohmann::json j = nlohmann::json::object();
  j["layout"] = r.layout;
  j["cost_model"] = r.cost_model;
  j["size_bytes"] = r.size.value;
  j["gpus"] = r.gpus;
  j["uni_p2p_on"] = rounded(r.uni_p2p_on);
  j["uni_p2p_off"] = rounded(r.uni_p2p_off);
  j["bi_p2p_on"] = rounded(r.bi_p2p_on);
  j["bi_p2p_off"] = rounded(r.bi_p2p_off);
  j["latency_us_p2p_on"] = rounded(r.latency_us_p2p_on);
  j["latency_us_p2p_off"] = rounded(r.latency_us_p2p_off);
  j["h2d_gbps"] = rounded(r.h2d_gbps);
  j["d2h_gbps"] = rounded(r.d2h_gbps);
  j["uni_p2p_on_sm"] = rounded(r.uni_p2p_on_sm);
  j["d2h_sm_gbps"] = rounded(r.d2h_sm_gbps);
  nlohmann::json host_why = nlohmann::json::array();
  for (const model::HostTestWhy& w : r.host_why)
    host_why.push_back({{"test", w.test},
                        {"gpu", w.gpu},
                        {"gpus", w.gpus},
                        {"gbps", std::round(w.gbps * 100.0) / 100.0},
                        {"limit", w.limit},
                        {"limit_gbps", std::round(w.limit_gbps * 100.0) / 100.0},
                        {"copies", w.copies}});
  j["host_why"] = host_why;
  j["fan_in_gbps"] = rounded(r.fan_in_gbps);
  j["fan_out_gbps"] = rounded(r.fan_out_gbps);
  j["h2d_concurrent_gbps"] = rounded(r.h2d_concurrent_gbps);
  j["d2h_concurrent_gbps"] = rounded(r.d2h_concurrent_gbps);
  j["h2d_bidir_gbps"] = rounded(r.h2d_bidir_gbps);
  j["d2h_bidir_gbps"] = rounded(r.d2h_bidir_gbps);
  j["h2d_concurrent_bidir_gbps"] = rounded(r.h2d_concurrent_bidir_gbps);
  j["d2h_concurrent_bidir_gbps"] = rounded(r.d2h_concurrent_bidir_gbps);
  j["h2d_latency_us"] = rounded(r.h2d_latency_us);
  j["d2h_latency_us"] = rounded(r.d2h_latency_us);
  j["h2d_remote_gbps"] = rounded(r.h2d_remote_gbps);
  j["d2h_remote_gbps"] = rounded(r.d2h_remote_gbps);
  nlohmann::json why = nlohmann::json::array();
  auto two = [](double x) { return std::round(x * 100.0) / 100.0; };
  for (const P2pWhy& w : r.why) {
    nlohmann::json k = {{"matrix", w.enabled ? "p2p_on" : "p2p_off"},
                        {"way", w.peer ? "direct" : "staged"},
                        {"src", w.src},
                        {"dst", w.dst},
                        {"pairs", w.pairs},
                        {"path", w.path},
                        {"access", w.access},
                        {"gbps", two(w.gbps)},
                        {"limit", w.limit},
                        {"limit_gbps", two(w.limit_gbps)},
                        {"capped", w.capped}};
    if (w.peer) k["latency"] = {{"us", two(w.latency_us)}, {"basis", w.latency_basis}};
    if (!w.peer)
      k["staging"] = {{"d2h_gbps", two(w.d2h_gbps)},  {"d2h_limit", w.d2h_limit},
                      {"h2d_gbps", two(w.h2d_gbps)},  {"h2d_limit", w.h2d_limit},
                      {"shared", w.shared},           {"overlapped", w.overlapped},
                      {"chunk_bytes", w.chunk_bytes}, {"chunks", w.chunks},
                      {"handoffs", w.handoffs},       {"sync_us", w.sync_us}};
    why.push_back(std::move(k));
  }
  j["why"] = std::move(why);
  return j;
}

}  // namespace rigsim::report
