// Tool-output parsers (parsers.hpp). Each reads line by line, knows the layout it expects, and turns
// anything else into an InputError naming the file and line.
#include "calibration/parsers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>

#include "common/input.hpp"
#include "topology/p2p.hpp"

namespace rigsim::calibration {
namespace {

/// The text as numbered lines (1-based), with a trailing '\r' dropped.
struct Lines {
  std::vector<std::string> text;
  std::string file;
  explicit Lines(const std::string& all, std::string f) : file(std::move(f)) {
    std::istringstream in(all);
    for (std::string l; std::getline(in, l);) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      text.push_back(l);
    }
  }
  [[noreturn]] void fail(std::size_t i, const std::string& message) const {
    throw InputError(file, "line " + std::to_string(i + 1), message);
  }
};

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

std::optional<double> number(const std::string& t) {
  double v = 0;
  const char* end = t.data() + t.size();
  const auto [p, ec] = std::from_chars(t.data(), end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

double number_at(const Lines& l, std::size_t i, const std::string& t, const char* what) {
  const auto v = number(t);
  if (!v || *v < 0) l.fail(i, std::string("expected ") + what + " (a non-negative number), got \"" + t + "\"");
  return *v;
}

/// A whole number in [0, max] written in `base` (digits a regex already matched, but as long as the
/// input makes them), or a located error naming `what`.
long integer_at(const Lines& l, std::size_t i, const std::string& t, long max, const char* what, int base = 10) {
  long v = 0;
  const char* end = t.data() + t.size();
  const auto [p, ec] = std::from_chars(t.data(), end, v, base);
  if (ec != std::errc() || p != end || v < 0 || v > max)
    l.fail(i, std::string("expected ") + what + " (0.." + std::to_string(max) + "), got \"" + t + "\"");
  return v;
}

/// A CUDA device index: 1,024 is far above any one machine, and rig.gpus holds every index below it.
constexpr long kMaxDevice = 1023;
/// Largest size accepted in a tool's table: 2^50 bytes (1 PiB), far above any test, well inside uint64.
constexpr double kMaxBytes = 1125899906842624.0;

std::uint64_t bytes_at(const Lines& l, std::size_t i, const std::string& t, const char* what) {
  const double v = number_at(l, i, t, what);
  if (v > kMaxBytes || std::floor(v) != v)
    l.fail(i, std::string("expected ") + what + " (whole bytes up to 2^50), got \"" + t + "\"");
  return static_cast<std::uint64_t>(v);
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

/// Makes rig.gpus long enough to hold device `index`.
void ensure_gpu(Rig& rig, int index) {
  while (static_cast<int>(rig.gpus.size()) <= index) {
    RigGpu g;
    g.index = static_cast<int>(rig.gpus.size());
    rig.gpus.push_back(g);
  }
}

// ---- nccl-tests --------------------------------------------------------------------------------

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
    if (starts_with(trim(line), "# nThread")) params = trim(trim(line).substr(1));
    // The NCCL release that ran: nccl-tests' own line (2.13.10 and later) gives the library's
    // NCCL_VERSION_CODE; with NCCL_DEBUG=VERSION or INFO, NCCL prints "NCCL version 2.18.3+cuda12.2".
    // Read by hand, not by std::regex: its recursive matcher overflows the stack on a long token.
    const std::string t0 = trim(line);
    if (starts_with(t0, "#") && t0.find("nccl-tests version") != std::string::npos) {
      const std::size_t at = t0.find("nccl-library=");
      if (at != std::string::npos) {
        const std::string code = t0.substr(at + 13, t0.find_first_of(" \t", at) - (at + 13));
        m.rig.nccl = topology::nccl_release_of(integer_at(l, i, code, 99999, "an NCCL version code"));
      }
      continue;
    }
    if (const std::size_t at = line.find("NCCL INFO NCCL version ");
        at != std::string::npos && m.rig.nccl.empty()) {
      const std::size_t from = at + 23;
      const std::string release = line.substr(from, line.find_first_of(" \t\r", from) - from);
      if (!release.empty() && std::isdigit(static_cast<unsigned char>(release.front())) != 0)
        m.rig.nccl = release;
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
    const std::string t = trim(line);
    if (t.empty() || starts_with(t, "#")) continue;
    if (t.find("NCCL INFO") != std::string::npos || t.find("NCCL WARN") != std::string::npos) {
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

ParseResult parse_nvbandwidth(const std::string& text, const std::string& file) {
  const Lines l(text, file);
  ParseResult out;
  Measurements& m = out.measurements;
  m.file = file;
  // nvbandwidth's default --bufferSize: 64 MiB up to v0.6, 512 MiB from v0.7 (common.h
  // defaultBufferSize); a stated buffer size wins.
  std::uint64_t bytes = 0;
  static const std::regex version(R"(nvbandwidth Version:\s*(\S+))");
  static const std::regex device(R"(Device\s+(\d+):\s*(.*\S)\s*)");
  static const std::regex driver(R"(Driver Version:\s*(\S+))");
  static const std::regex runtime(R"(CUDA Runtime Version:\s*(\d+))");
  static const std::regex running(R"(Running\s+(\w+)\.\s*)");
  static const std::regex buffer(R"(buffer size[^0-9]*(\d+)\s*(MiB|bytes)?)", std::regex::icase);
  std::string tool_version;
  for (std::size_t i = 0; i < l.text.size(); ++i) {
    const std::string& line = l.text[i];
    std::smatch g;
    if (std::regex_search(line, g, version)) {
      tool_version = g[1];
      int major = 0, minor = 0;
      if (bytes == 0 && std::sscanf(tool_version.c_str(), "v%d.%d", &major, &minor) == 2)
        bytes = (major == 0 && minor <= 6 ? 64ull : 512ull) << 20;
    }
    if (std::regex_match(line, g, device)) {
      const int d = static_cast<int>(integer_at(l, i, g[1], kMaxDevice, "a CUDA device index"));
      ensure_gpu(m.rig, d);
      m.rig.gpus[static_cast<std::size_t>(d)].name = g[2];
    }
    if (std::regex_search(line, g, driver) && line.find("CUDA") == std::string::npos) m.rig.driver = g[1];
    if (std::regex_search(line, g, runtime)) {
      const long v = integer_at(l, i, g[1], 999999, "a CUDA runtime version");
      m.rig.cuda = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    }
    if (std::regex_search(line, g, buffer) && line.find("Running") == std::string::npos)
      bytes = static_cast<std::uint64_t>(integer_at(l, i, g[1], g[2] == "bytes" ? 1l << 40 : 1l << 20, "a buffer size"))
              << (g[2] == "bytes" ? 0 : 20);
    if (!std::regex_match(line, g, running)) continue;
    if (bytes == 0) {
      bytes = 512ull << 20;
      out.notes.push_back("no nvbandwidth version line: buffers taken as 512 MiB (the default from v0.7)");
    }
    const std::string test = g[1];
    // The host tests: each GPU's copy alone, or while other copies run (testcases_ce.cpp; the figure
    // is the measured copy's own rate, USE_FIRST_BW, in every version from v0.2).
    static const std::map<std::string, std::tuple<bool, bool, bool>> host_tests = {
        // test: h2d, the other direction at once, every GPU at once
        {"host_to_device_memcpy_ce", {true, false, false}},
        {"device_to_host_memcpy_ce", {false, false, false}},
        {"host_to_device_bidirectional_memcpy_ce", {true, true, false}},
        {"device_to_host_bidirectional_memcpy_ce", {false, true, false}},
        {"host_to_all_memcpy_ce", {true, false, true}},
        {"all_to_host_memcpy_ce", {false, false, true}},
        {"host_to_all_bidirectional_memcpy_ce", {true, true, true}},
        {"all_to_host_bidirectional_memcpy_ce", {false, true, true}}};
    // SM copies: the kernels' stores (to a peer, to host memory); their reads are not simulated.
    const bool sm_d2d = test == "device_to_device_memcpy_write_sm",
               sm_d2h = test == "device_to_host_memcpy_sm";
    // Every peer to one GPU and one GPU to every peer (testcase.cpp allToOneHelper / oneToAllHelper): the
    // read tests swap the buffers, so data flows into the GPU in all_to_one_write and one_to_all_read.
    const std::string fan = test == "all_to_one_write_ce" || test == "one_to_all_read_ce"   ? "in"
                            : test == "one_to_all_write_ce" || test == "all_to_one_read_ce" ? "out"
                                                                                            : "";
    const auto host = host_tests.find(sm_d2h ? "device_to_host_memcpy_ce" : test);
    // Both directions between two GPUs at once: from v0.6 the tool prints each direction and their Total
    // (the sum, what p2pBandwidthLatencyTest's bidirectional figure is); before, the CE tests printed the
    // measured direction alone. rigsim imports the Total.
    int v_major = 0, v_minor = 0;
    const bool totals =
        std::sscanf(tool_version.c_str(), "v%d.%d", &v_major, &v_minor) == 2 && (v_major > 0 || v_minor >= 6);
    const bool d2d_bidir = test == "device_to_device_bidirectional_memcpy_read_ce" ||
                           test == "device_to_device_bidirectional_memcpy_write_ce";
    const bool d2d = test == "device_to_device_memcpy_read_ce" ||
                     test == "device_to_device_memcpy_write_ce" || sm_d2d || !fan.empty() ||
                     (d2d_bidir && totals);
    if (host == host_tests.end() && !d2d) {
      out.notes.push_back(
          test + " (line " + std::to_string(i + 1) + ") is not imported: " +
          (test.ends_with("_sm")
               ? "an SM (kernel) copy other than a lone store (to a peer or to host memory); "
                 "rigsim simulates those and copy-engine copies"
           : d2d_bidir ? "before v0.6 the tool printed one direction of a bidirectional pair, not their total"
                       : "no rigsim series for this pattern"));
      continue;
    }
    std::size_t at = i + 1;
    if (d2d_bidir) {  // skip to the Total matrix of this test
      while (at < l.text.size() && l.text[at].find("Total bandwidth") == std::string::npos &&
             l.text[at].rfind("Running ", 0) != 0)
        ++at;
      if (at >= l.text.size() || l.text[at].rfind("Running ", 0) == 0)
        l.fail(at < l.text.size() ? at : l.text.size() - 1,
               "expected the \"... Total bandwidth (GB/s)\" matrix of " + test +
                   " (nvbandwidth v0.6 and later)");
    }
    if (at >= l.text.size() || l.text[at].find("bandwidth") == std::string::npos)
      l.fail(at, "expected the \"memcpy CE|SM ... bandwidth (GB/s)\" title after \"Running " + test + ".\"");
    // The data flows column -> row in the read tests and row -> column in the write tests, whatever
    // the titles' arrows show (nvbandwidth testcases_ce.cpp, v0.4 and v0.8).
    const bool reversed = test == "device_to_device_memcpy_read_ce";
    ++at;
    if (at >= l.text.size()) l.fail(at - 1, "the " + test + " matrix has no header");
    const std::size_t cols = tokens(l.text[at]).size();
    Series s;
    s.tool = "nvbandwidth";
    s.tool_version = tool_version;
    s.command = test;
    s.test = d2d ? Test::PeerCopy : Test::HostCopy;
    s.sm_copy = sm_d2d || sm_d2h;
    s.fan = fan;
    s.bidirectional = d2d_bidir;
    if (!d2d) {
      const auto& [h2d, bidirectional, concurrent] = host->second;
      s.direction = h2d ? "h2d" : "d2h";
      s.bidirectional = bidirectional;
      s.concurrent = concurrent;
    }
    for (++at; at < l.text.size() && !trim(l.text[at]).empty(); ++at) {
      const auto row = tokens(l.text[at]);
      if (row.size() != cols + 1) l.fail(at, "expected " + std::to_string(cols + 1) + " fields, got " + std::to_string(row.size()));
      const auto r = number(row[0]);
      if (!r) l.fail(at, "expected a row index, got \"" + row[0] + "\"");
      for (std::size_t c = 0; c < cols; ++c) {
        if (row[c + 1] == "N/A") continue;
        const double v = number_at(l, at, row[c + 1], "a bandwidth");
        if (v <= 0) continue;  // the diagonal of older versions (0.00)
        Point p;
        p.bytes = bytes;
        p.gbps = v;
        if (d2d && fan.empty()) {
          p.src = reversed ? static_cast<int>(c) : static_cast<int>(*r);
          p.dst = reversed ? static_cast<int>(*r) : static_cast<int>(c);
        } else {
          p.src = static_cast<int>(c);
        }
        s.points.push_back(p);
      }
    }
    if (s.points.empty()) l.fail(at < l.text.size() ? at : l.text.size() - 1, "the " + test + " matrix has no values");
    m.series.push_back(std::move(s));
    i = at;
  }
  if (m.series.empty())
    l.fail(l.text.size() - 1,
           "no nvbandwidth test rigsim imports ({host_to_device,device_to_host}[_bidirectional]_memcpy_ce, "
           "{host_to_all,all_to_host}[_bidirectional]_memcpy_ce, device_to_device_memcpy_{read,write}_ce)");
  return out;
}

// ---- dispatch -----------------------------------------------------------------------------------

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
