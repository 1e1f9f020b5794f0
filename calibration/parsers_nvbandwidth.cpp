// nvbandwidth's output (parsers.hpp parse_nvbandwidth).
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <utility>

#include "calibration/parsers.hpp"
#include "calibration/parsers_text.hpp"

namespace rigsim::calibration {

using namespace text;

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
      bytes = static_cast<std::uint64_t>(
                  integer_at(l, i, g[1], g[2] == "bytes" ? 1l << 40 : 1l << 20, "a buffer size"))
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
      if (row.size() != cols + 1)
        l.fail(at, "expected " + std::to_string(cols + 1) + " fields, got " + std::to_string(row.size()));
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
    if (s.points.empty())
      l.fail(at < l.text.size() ? at : l.text.size() - 1, "the " + test + " matrix has no values");
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

}  // namespace rigsim::calibration
