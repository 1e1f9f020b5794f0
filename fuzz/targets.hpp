// The fuzzed entry points: each feeds bytes to one of rigsim's readers the way the command line does.
// A reader may reject the input with rigsim::InputError (a clean, located error); anything else — a
// crash, a sanitizer report, another exception, a hang — is a finding. The same functions replay the
// regression corpus in the normal test suite (tests/reliability/fuzz_regressions_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rigsim::fuzz {

/// Layout JSON -> LayoutSpec -> Topology (what `rigsim topo layout.json` does before printing).
void layout_json(std::string_view bytes);
/// NCCL topology XML -> LayoutSpec -> Topology; the same bytes as an NCCL graph file.
void nccl_xml(std::string_view bytes);
/// Calibration profile JSON over the built-in cost model.
void cost_model(std::string_view bytes);
/// Training scenario JSON.
void scenario(std::string_view bytes);

/// A rigsim-measurements/1 document.
void measurements(std::string_view bytes);
/// Every tool-output parser (nccl-tests, p2pBandwidthLatencyTest, bandwidthTest, nvbandwidth).
void tool_output(std::string_view bytes);
/// The importers (nvidia-smi topo -m, lspci -tvnn, hwloc XML), each built when read.
void importers(std::string_view bytes);
/// Target by name ("layout_json", "nccl_xml", "cost_model", "scenario", "measurements", "tool_output",
/// "importers"); nullptr when unknown.
using Target = void (*)(std::string_view);
Target target_named(std::string_view name);

}  // namespace rigsim::fuzz
