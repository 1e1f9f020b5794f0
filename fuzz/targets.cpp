#include "fuzz/targets.hpp"

#include <string>

#include "calibration/cost_model.hpp"
#include "calibration/measurements.hpp"
#include "calibration/parsers.hpp"
#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/importers.hpp"
#include "topology/layout_json.hpp"
#include "topology/nccl_graph.hpp"
#include "topology/nccl_xml.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::fuzz {

void layout_json(std::string_view bytes) {
  try {
    const std::string text(bytes);
    (void)topology::build_topology(topology::parse_layout(parse_json_text(text, "fuzz.json"), "fuzz.json"));
  } catch (const InputError&) {
  }
}

void nccl_xml(std::string_view bytes) {
  try {
    (void)topology::build_topology(topology::import_nccl_xml(std::string(bytes), "fuzz.xml"));
  } catch (const InputError&) {
  }
  try {  // the same bytes as an NCCL graph file (NCCL_GRAPH_FILE)
    (void)topology::parse_nccl_graphs(std::string(bytes), "fuzz.xml");
  } catch (const InputError&) {
  }
}

void cost_model(std::string_view bytes) {
  try {
    (void)calibration::apply_overrides(calibration::default_cost_model(),
                                       parse_json_text(std::string(bytes), "fuzz.json"), "fuzz.json");
  } catch (const InputError&) {
  }
}

void scenario(std::string_view bytes) {
  try {
    (void)workloads::parse_scenario(parse_json_text(std::string(bytes), "fuzz.json"), "fuzz.json");
  } catch (const InputError&) {
  }
}

void measurements(std::string_view bytes) {
  try {
    (void)calibration::measurements_from_json(parse_json_text(std::string(bytes), "fuzz.json"), "fuzz.json");
  } catch (const InputError&) {
  }
}

/// Every tool-output parser on the same bytes (each must reject what is not its tool's output).
void tool_output(std::string_view bytes) {
  const std::string text(bytes);
  for (auto parse : {calibration::parse_p2p_bandwidth_latency, calibration::parse_bandwidth_test,
                     calibration::parse_nvbandwidth}) {
    try {
      (void)parse(text, "fuzz.txt");
    } catch (const InputError&) {
    }
  }
  try {
    (void)calibration::parse_nccl_tests(text, "fuzz_all_reduce.txt");
  } catch (const InputError&) {
  }
}

/// The importers: `nvidia-smi topo -m`, `lspci -tvnn` and hwloc XML, each built as a layout when read.
void importers(std::string_view bytes) {
  const std::string text(bytes);
  const topology::ImportHints hints{{"rtx-4090"}, "epyc-7002", "", "", 0, "fuzz"};
  for (auto import : {topology::import_nvidia_smi_topo, topology::import_lspci, topology::import_hwloc}) {
    try {
      (void)topology::build_topology(import(text, "fuzz.txt", hints));
    } catch (const InputError&) {
    }
  }
}

Target target_named(std::string_view name) {
  if (name == "layout_json") return &layout_json;
  if (name == "nccl_xml") return &nccl_xml;
  if (name == "cost_model") return &cost_model;
  if (name == "scenario") return &scenario;
  if (name == "measurements") return &measurements;
  if (name == "tool_output") return &tool_output;
  if (name == "importers") return &importers;
  return nullptr;
}

}  // namespace rigsim::fuzz
