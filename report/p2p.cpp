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
  out << "   GPU    H2D    D2H  H2D, all GPUs at once\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f ", r.h2d_gbps[i])
        << cell("%6.02f ", r.d2h_gbps[i]) << cell("%6.02f", r.h2d_concurrent_gbps[i]) << "\n";
  if (std::all_of(r.h2d_remote_gbps.begin(), r.h2d_remote_gbps.end(), [](double v) { return v == 0; }))
    return;
  out << "\n[bandwidthTest] Pinned host memory on another socket (the remote NUMA node) (GB/s)\n";
  out << "   GPU    H2D    D2H\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i)
    out << cell("%6.0f ", static_cast<double>(i)) << cell("%6.02f ", r.h2d_remote_gbps[i])
        << cell("%6.02f", r.d2h_remote_gbps[i]) << "\n";
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
  j["h2d_concurrent_gbps"] = rounded(r.h2d_concurrent_gbps);
  j["h2d_remote_gbps"] = rounded(r.h2d_remote_gbps);
  j["d2h_remote_gbps"] = rounded(r.d2h_remote_gbps);
  return j;
}

}  // namespace rigsim::report
