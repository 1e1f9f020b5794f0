// Tool-output parsers (parsers.hpp). Each reads line by line, knows the layout it expects, and turns
// anything else into an InputError naming the file and line.
#include "calibration/parsers.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "calibration/parsers_text.hpp"
#include "common/input.hpp"
#include "topology/p2p.hpp"

namespace rigsim::calibration {

using namespace text;

namespace {

const std::vector<std::string> kOps{"reduce_scatter", "all_reduce", "all_gather", "alltoall",
                                    "broadcast",      "sendrecv",   "reduce"};

std::string op_from(const std::string& text, const std::string& file, const Lines& l) {
  static const std::regex perf(R"((all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|sendrecv)_perf)");
  std::smatch m;
  if (std::regex_search(text, m, perf)) return m[1];
  const std::string name = std::filesystem::path(file).filename().string();
  for (const std::string& op : kOps)
    if (name.find(op) != std::string::npos) return op;
  l.fail(0, "nccl-tests does not print which collective it ran, and neither the text nor the file name says: "
            "give it (--op all_reduce, ...)");
}

struct Table {
  std::vector<std::string> columns;  // header tokens without '#'
  std::size_t time = 0;              // index of the out-of-place time column
  std::size_t line = 0;
};

std::optional<Table> table_header(const std::string& line, std::size_t i) {
  if (!starts_with(trim(line), "#")) return std::nullopt;
  std::vector<std::string> t = tokens(trim(line).substr(1));
  const auto time = std::find(t.begin(), t.end(), "time");
  if (t.empty() || t.front() != "size" || time == t.end()) return std::nullopt;
  Table tab;
  tab.columns = t;
  tab.time = static_cast<std::size_t>(time - t.begin());
  tab.line = i;
  return tab;
}

void check_op(const Lines& l, const Table& t, const std::vector<std::string>& row, std::size_t i, const std::string& op) {
  const auto redop = std::find(t.columns.begin(), t.columns.end(), "redop");
  if (redop == t.columns.end()) return;
  const std::string r = row[static_cast<std::size_t>(redop - t.columns.begin())];
  const bool reduces = op == "all_reduce" || op == "reduce_scatter" || op == "reduce";
  if (reduces == (r == "none"))
    l.fail(i, "the table's redop \"" + r + "\" does not fit collective " + op + " (wrong --op or file name?)");
}

}  // namespace

ParseResult parse_nccl_tests(const std::string& text, const std::string& file, const std::string& given_op) {
  const Lines l(text, file);
  ParseResult out;
  Measurements& m = out.measurements;
  m.file = file;
  const std::string op = given_op.empty() ? op_from(text, file, l) : given_op;
  if (std::find(kOps.begin(), kOps.end(), op) == kOps.end())
    throw InputError(file, "--op", "unknown collective \"" + op + "\"");
  static const std::regex rank(
      R"(#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s+(.*\S)\s*)");
  std::vector<std::string> hosts;
  std::vector<int> first_host_devices;
  std::string params;
  std::optional<Table> table;
  bool info_noted = false, zero_noted = false;
  for (std::size_t i = 0; i < l.text.size(); ++i) {
    const std::string& line = l.text[i];
    std::smatch r;
    if (std::regex_match(line, r, rank)) {
      const std::string host = r[2];
      const int device = static_cast<int>(integer_at(l, i, r[3], kMaxDevice, "a CUDA device index"));
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
      if (host == hosts.front()) {
        first_host_devices.push_back(device);
        ensure_gpu(m.rig, device);
        m.rig.gpus[static_cast<std::size_t>(device)].name = r[5];
        m.rig.gpus[static_cast<std::size_t>(device)].bus_id = r[4];
      }
      continue;
    }
    const std::string t = trim(line);
    if (starts_with(t, "# nThread")) params = trim(t.substr(1));
    // The NCCL release that ran: nccl-tests' own line (2.13.10 and later) gives the library's
    // NCCL_VERSION_CODE; with NCCL_DEBUG=VERSION or INFO, NCCL prints "NCCL version 2.18.3+cuda12.2"
    // (below, with the log lines). Both read by hand: std::regex's recursive matcher can overflow the
    // stack on a long token.
    if (starts_with(t, "#") && t.find("nccl-tests version") != std::string::npos) {
      if (const std::size_t at = t.find("nccl-library="); at != std::string::npos) {
        const std::string code = t.substr(at + 13, t.find_first_of(" \t", at) - (at + 13));
        m.rig.nccl = topology::nccl_release_of(integer_at(l, i, code, 99999, "an NCCL version code"));
      }
      continue;
    }
    if (auto h = table_header(line, i)) {
      table = h;
      Series s;
      s.tool = "nccl-tests";
      s.command = params;
      s.test = Test::Collective;
      s.op = op;
      // "nThread 1 nGpus 8 ...": the GPUs each thread launches (nccl-tests' -g).
      static const std::regex ngpus(R"(\bnGpus\s+(\d{1,6})\b)");
      std::smatch g;
      if (std::regex_search(params, g, ngpus))
        s.gpus_per_thread = static_cast<int>(std::min<long long>(std::stoll(g[1].str()), 65536));
      m.series.push_back(std::move(s));
      continue;
    }
    if (t.empty() || starts_with(t, "#")) continue;
    if (t.find("NCCL INFO") != std::string::npos || t.find("NCCL WARN") != std::string::npos) {
      if (const std::size_t at = t.find("NCCL INFO NCCL version ");
          at != std::string::npos && m.rig.nccl.empty()) {
        const std::string release = t.substr(at + 23, t.find_first_of(" \t", at + 23) - (at + 23));
        if (!release.empty() && std::isdigit(static_cast<unsigned char>(release.front())) != 0)
          m.rig.nccl = release;
      }
      if (!info_noted) out.notes.push_back("NCCL log lines inside the table were skipped (first at line " +
                                           std::to_string(i + 1) + ")");
      info_noted = true;
      continue;
    }
    if (!table) l.fail(i, "expected the nccl-tests table header (\"#  size  count  type ...\") before data rows");
    const std::vector<std::string> row = tokens(t);
    if (row.size() != table->columns.size())
      l.fail(i, "expected " + std::to_string(table->columns.size()) + " columns as in the header on line " +
                    std::to_string(table->line + 1) + ", got " + std::to_string(row.size()) + " (a truncated row?)");
    check_op(l, *table, row, i, op);
    Point p;
    const std::uint64_t size = bytes_at(l, i, row[0], "a size in bytes");
    if (size == 0) {  // all_gather, alltoall, ...: a per-rank count that rounds to nothing
      if (!zero_noted) out.notes.push_back("rows of size 0 (nothing moved) were skipped");
      zero_noted = true;
      continue;
    }
    p.bytes = size;
    const std::size_t c = table->time;
    if (c + 6 >= row.size()) l.fail(table->line, "the header has no in-place columns after the out-of-place time");
    p.time_us = number_at(l, i, row[c], "a time in microseconds");
    p.algbw_gbs = number_at(l, i, row[c + 1], "algbw in GB/s");
    p.busbw_gbs = number_at(l, i, row[c + 2], "busbw in GB/s");
    p.in_place_time_us = number_at(l, i, row[c + 4], "a time in microseconds");
    p.in_place_busbw_gbs = number_at(l, i, row[c + 6], "busbw in GB/s");
    if (p.time_us <= 0) l.fail(i, "a time of 0 us cannot be a measurement");
    m.series.back().points.push_back(p);
  }
  if (m.series.empty()) l.fail(0, "no nccl-tests result table (\"#  size  count  type ...\") found");
  for (const Series& s : m.series)
    if (s.points.empty()) l.fail(l.text.size() - 1, "a result table has no rows (truncated output?)");
  if (!hosts.empty()) {
    m.rig.host = hosts.front();
    for (Series& s : m.series) {
      s.nodes = static_cast<int>(hosts.size());
      s.gpus = first_host_devices;
    }
    if (hosts.size() > 1)
      out.notes.push_back(std::to_string(hosts.size()) + " hosts: the series runs on " + std::to_string(hosts.size()) +
                          " servers of the layout, GPUs " + std::to_string(first_host_devices.size()) + " per server");
  }
  return out;
}

// ---- p2pBandwidthLatencyTest -------------------------------------------------------------------

namespace {

/// `n` rows "i v0 ... v(n-1)" after the header at line `at`; returns them and moves `at` past them.
std::vector<std::vector<double>> matrix_rows(const Lines& l, std::size_t& at, std::size_t n) {
  std::vector<std::vector<double>> rows;
  for (std::size_t r = 0; r < n; ++r) {
    ++at;
    if (at >= l.text.size()) l.fail(l.text.size() - 1, "the matrix ends after " + std::to_string(r) + " of " + std::to_string(n) + " rows");
    const auto t = tokens(l.text[at]);
    if (t.size() != n + 1 || t.front() != std::to_string(r))
      l.fail(at, "expected row " + std::to_string(r) + " with " + std::to_string(n) + " values, got \"" + trim(l.text[at]) + "\"");
    std::vector<double> v;
    for (std::size_t c = 1; c <= n; ++c) v.push_back(number_at(l, at, t[c], "a matrix value"));
    rows.push_back(std::move(v));
  }
  return rows;
}

}  // namespace

ParseResult parse_p2p_bandwidth_latency(const std::string& text, const std::string& file) {
  const Lines l(text, file);
  ParseResult out;
  Measurements& m = out.measurements;
  m.file = file;
  // outputBandwidthMatrix copies numElems ints: 40,000,000 in current cuda-samples (160 MB,
  // p2pBandwidthLatencyTest.cu, `--numElems` to change it); releases before that used 10,000,000.
  constexpr std::uint64_t kBytes = 40000000ull * 4;
  static const std::regex device(R"(Device:\s*(\d+),\s*(.*?),\s*pciBusID:\s*([0-9a-fA-F]+),\s*pciDeviceID:\s*([0-9a-fA-F]+),\s*pciDomainID:\s*([0-9a-fA-F]+)\s*)");
  for (std::size_t i = 0; i < l.text.size(); ++i) {
    std::smatch d;
    if (!std::regex_match(l.text[i], d, device)) continue;
    const int index = static_cast<int>(integer_at(l, i, d[1], kMaxDevice, "a CUDA device index"));
    ensure_gpu(m.rig, index);
    char bus[32];
    std::snprintf(bus, sizeof bus, "%04lx:%02lx:%02lx.0", integer_at(l, i, d[5], 0xffff, "a PCI domain (hex)", 16),
                  integer_at(l, i, d[3], 0xff, "a PCI bus (hex)", 16), integer_at(l, i, d[4], 0xff, "a PCI device (hex)", 16));
    m.rig.gpus[static_cast<std::size_t>(index)].name = d[2];
    m.rig.gpus[static_cast<std::size_t>(index)].bus_id = bus;
  }
  const std::size_t n = m.rig.gpus.size();
  if (n == 0) l.fail(0, "no \"Device: N, NAME, pciBusID: ...\" lines: not p2pBandwidthLatencyTest output");
  for (std::size_t i = 0; i < l.text.size(); ++i) {
    const std::string title = trim(l.text[i]);
    const bool bandwidth = title.find("Bandwidth") != std::string::npos && title.find("Matrix") != std::string::npos;
    const bool latency = title.find("Latency") != std::string::npos && title.find("Matrix") != std::string::npos &&
                         title.find("P2P=") != std::string::npos;
    if (!bandwidth && !latency) continue;
    const bool on = title.find("P2P=Enabled") != std::string::npos;
    std::size_t at = i + 1;
    if (at >= l.text.size() || tokens(l.text[at]).empty()) l.fail(i, "a matrix title without its header line");
    const auto rows = matrix_rows(l, at, n);
    Series s;
    s.tool = "p2pBandwidthLatencyTest";
    s.command = title;
    s.test = Test::PeerCopy;
    s.peer_access = on;
    s.bidirectional = starts_with(title, "Bidirectional");
    s.latency = latency;
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        if (a == b || rows[a][b] <= 0) continue;
        Point p;
        p.src = static_cast<int>(a), p.dst = static_cast<int>(b);
        if (latency) {
          p.latency_us = rows[a][b];
        } else {
          p.bytes = kBytes;
          p.gbps = rows[a][b];
        }
        s.points.push_back(p);
      }
    if (!s.points.empty()) m.series.push_back(std::move(s));
    if (starts_with(title, "Unidirectional P2P=Disabled")) {
      Series d;
      d.tool = "p2pBandwidthLatencyTest";
      d.command = title + ", diagonal";
      d.test = Test::DeviceCopy;
      for (std::size_t a = 0; a < n; ++a) {
        Point p;
        p.src = static_cast<int>(a), p.bytes = kBytes, p.gbps = rows[a][a];
        if (p.gbps > 0) d.points.push_back(p);
      }
      if (!d.points.empty()) m.series.push_back(std::move(d));
    } else if (bandwidth) {
      out.notes.push_back("\"" + title + "\": diagonal not imported (the device copies come from the "
                          "Unidirectional P2P=Disabled matrix)");
    }
    if (latency) out.notes.push_back("\"" + title + "\": the CPU latency block is not imported (host-side timing)");
    i = at;
  }
  if (m.series.empty()) l.fail(l.text.size() - 1, "no bandwidth or latency matrix found (truncated output?)");
  return out;
}

// ---- bandwidthTest ------------------------------------------------------------------------------

ParseResult parse_bandwidth_test(const std::string& text, const std::string& file) {
  const Lines l(text, file);
  ParseResult out;
  Measurements& m = out.measurements;
  m.file = file;
  static const std::regex device(R"(\s*Device\s+(\d+):\s*(.*\S)\s*)");
  static const std::regex table(R"(\s*(Host to Device|Device to Host|Device to Device) Bandwidth,\s*(\d+) Device\(s\)\s*)");
  int gpu = 0;
  for (std::size_t i = 0; i < l.text.size(); ++i) {
    std::smatch d;
    if (std::regex_match(l.text[i], d, device)) {
      gpu = static_cast<int>(integer_at(l, i, d[1], kMaxDevice, "a CUDA device index"));
      ensure_gpu(m.rig, gpu);
      m.rig.gpus[static_cast<std::size_t>(gpu)].name = d[2];
      continue;
    }
    std::smatch t;
    if (!std::regex_match(l.text[i], t, table)) continue;
    const std::string kind = t[1];
    if (integer_at(l, i, t[2], kMaxDevice + 1, "a number of devices") != 1) {
      out.notes.push_back("line " + std::to_string(i + 1) + ": " + kind + " over " + t[2].str() +
                          " devices at once (a sum) is not imported");
      continue;
    }
    std::size_t at = i + 1;
    const bool pinned = at < l.text.size() && l.text[at].find("PINNED") != std::string::npos;
    if (at < l.text.size() && l.text[at].find("PAGEABLE") != std::string::npos) {
      out.notes.push_back("line " + std::to_string(i + 1) + ": pageable " + kind +
                          " copies are not imported (rigsim models pinned copies)");
      continue;
    }
    if (!pinned) l.fail(at, "expected \"PINNED Memory Transfers\" after the table title");
    ++at;
    if (at >= l.text.size() || l.text[at].find("Transfer Size") == std::string::npos)
      l.fail(at, "expected the \"Transfer Size (Bytes)  Bandwidth(GB/s)\" header");
    const bool mbps = l.text[at].find("MB/s") != std::string::npos;
    Series s;
    s.tool = "bandwidthTest";
    s.command = kind + ", pinned";
    s.test = kind == "Device to Device" ? Test::DeviceCopy : Test::HostCopy;
    if (s.test == Test::HostCopy) s.direction = kind == "Host to Device" ? "h2d" : "d2h";
    for (++at; at < l.text.size() && !trim(l.text[at]).empty(); ++at) {
      const auto row = tokens(l.text[at]);
      if (row.size() != 2) l.fail(at, "expected \"SIZE  BANDWIDTH\", got \"" + trim(l.text[at]) + "\"");
      Point p;
      p.src = gpu;
      const std::uint64_t bytes = bytes_at(l, at, row[0], "a transfer size in bytes");
      if (bytes < 1) l.fail(at, "a transfer size of 0 bytes");
      p.bytes = bytes;
      p.gbps = number_at(l, at, row[1], "a bandwidth") / (mbps ? 1000.0 : 1.0);
      if (p.gbps <= 0) l.fail(at, "a bandwidth of 0");
      s.points.push_back(p);
    }
    if (s.points.empty()) l.fail(at < l.text.size() ? at : l.text.size() - 1, "the " + kind + " table has no rows");
    if (mbps) out.notes.push_back(kind + ": MB/s read as 10^6 bytes per second");
    m.series.push_back(std::move(s));
    i = at;
  }
  if (m.series.empty()) l.fail(l.text.size() - 1, "no bandwidthTest table found (truncated output?)");
  return out;
}

// ---- nvbandwidth --------------------------------------------------------------------------------

std::string detect_tool(const std::string& text) {
  if (text.find("nvbandwidth Version") != std::string::npos || text.find("Running host_to_device") != std::string::npos ||
      text.find("Running device_to_device") != std::string::npos)
    return "nvbandwidth";
  if (text.find("P2P (Peer-to-Peer) GPU Bandwidth Latency Test") != std::string::npos ||
      text.find("Bandwidth Matrix (GB/s)") != std::string::npos)
    return "p2pBandwidthLatencyTest";
  if (text.find("CUDA Bandwidth Test") != std::string::npos || text.find("Host to Device Bandwidth") != std::string::npos)
    return "bandwidthTest";
  if (text.find("# nThread") != std::string::npos || text.find("busbw") != std::string::npos) return "nccl-tests";
  return "";
}

ParseResult load_any(const std::string& path, const std::string& op) {
  const std::string text = read_input_file(path);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return {measurements_from_json(parse_json_text(text, path), path), {}};
  const std::string tool = detect_tool(text);
  ParseResult r;
  if (tool == "nccl-tests")
    r = parse_nccl_tests(text, path, op);
  else if (tool == "p2pBandwidthLatencyTest")
    r = parse_p2p_bandwidth_latency(text, path);
  else if (tool == "bandwidthTest")
    r = parse_bandwidth_test(text, path);
  else if (tool == "nvbandwidth")
    r = parse_nvbandwidth(text, path);
  else
    throw InputError(path, "line 1",
                     "not a rigsim-measurements/1 JSON file nor the output of nccl-tests, p2pBandwidthLatencyTest, "
                     "bandwidthTest or nvbandwidth");
  r.measurements.file = path;
  return r;
}

}  // namespace rigsim::calibration
