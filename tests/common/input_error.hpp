// Capturing an InputError in tests: where it points and what it says.
#pragma once

#include <string>
#include <utility>

#include "common/input.hpp"

namespace rigsim::testing {

/// Runs `f` and returns the InputError's location and message ("" when nothing was thrown).
template <typename F>
std::pair<std::string, std::string> input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return {e.location(), e.what()};
  }
  return {"", ""};
}

}  // namespace rigsim::testing
