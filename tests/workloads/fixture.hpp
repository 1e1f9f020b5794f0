// Helpers for workloads tests: where the built-in models live, in-memory documents, error capture.
#pragma once

#include <string>
#include <utility>

#include "common/input.hpp"
#include "tests/common/input_error.hpp"
#include "workloads/model.hpp"

namespace rigsim::workloads::testing {

inline std::string models_dir() {
  return std::string(RIGSIM_SOURCE_DIR) + "/scenarios/models";
}

inline ModelConfig builtin(const std::string& name) {
  return find_model(name, models_dir());
}

inline ModelConfig model_from_text(const std::string& text) {
  return parse_model(parse_json_text(text, "model.json"), "model.json");
}

using rigsim::testing::input_error_of;

/// Relative difference |got - want| / want.
inline double rel_diff(double got, double want) {
  return (got > want ? got - want : want - got) / want;
}

}  // namespace rigsim::workloads::testing
