// Parsers of real tool output into rigsim-measurements/1 (measurements.hpp): nccl-tests stdout,
// cuda-samples p2pBandwidthLatencyTest and bandwidthTest, and nvbandwidth. Strict: a malformed or
// truncated file is an error naming the file and line; anything read but not imported (a test rigsim
// has no series for, a matrix kind it does not model) is named in the notes, never skipped silently.
#pragma once

#include <string>
#include <vector>

#include "calibration/measurements.hpp"

namespace rigsim::calibration {

struct ParseResult {
  Measurements measurements;
  std::vector<std::string> notes;  // what was skipped or assumed, for people
};

/// Which tool wrote a text: "nccl-tests", "p2pBandwidthLatencyTest", "bandwidthTest", "nvbandwidth",
/// or "" when none is recognised.
std::string detect_tool(const std::string& text);

/// nccl-tests stdout, any layout met in the wild: the current one (`redop root ... #wrong`), the
/// pre-2022 one (an `error` column, no root, NCCL INFO lines inside the table) and multi-process runs
/// over several hosts (series.nodes = hosts). nccl-tests does not print which collective it ran:
/// `op` names it (all_reduce, ...); when empty it comes from a `*_perf` command line in the text or
/// from the file name, else it is an error.
ParseResult parse_nccl_tests(const std::string& text, const std::string& file, const std::string& op = "");

/// cuda-samples p2pBandwidthLatencyTest: the four bandwidth matrices as peer_copy series (their
/// diagonals as device_copy series) and the two GPU latency matrices as latency series. Copies are
/// 40,000,000 ints = 160,000,000 bytes, as current cuda-samples' outputBandwidthMatrix allocates.
ParseResult parse_p2p_bandwidth_latency(const std::string& text, const std::string& file);

/// cuda-samples bandwidthTest: Host to Device, Device to Host (pinned only; pageable tables are noted
/// and skipped) and Device to Device tables, one point per transfer size row.
ParseResult parse_bandwidth_test(const std::string& text, const std::string& file);

/// nvbandwidth: host_to_device / device_to_host copy-engine tests as host_copy series, the
/// device_to_device read/write copy-engine tests as peer_copy series; every other test is named in
/// the notes. Buffers are nvbandwidth's default for the printed version (64 MiB to v0.6, 512 MiB from
/// v0.7) unless the output says otherwise. Read tests copy column -> row, write tests row -> column.
ParseResult parse_nvbandwidth(const std::string& text, const std::string& file);

/// Reads `path`: a rigsim-measurements/1 JSON document, or the output of one of the tools above
/// (detected). `op` is passed to parse_nccl_tests.
ParseResult load_any(const std::string& path, const std::string& op = "");

}  // namespace rigsim::calibration
