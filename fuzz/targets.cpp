#include "fuzz/targets.hpp"

#include <string>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"
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

Target target_named(std::string_view name) {
  if (name == "layout_json") return &layout_json;
  if (name == "nccl_xml") return &nccl_xml;
  if (name == "cost_model") return &cost_model;
  if (name == "scenario") return &scenario;
  return nullptr;
}

}  // namespace rigsim::fuzz
