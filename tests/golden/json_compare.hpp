// Compares a report against its reviewed expectation: structure and strings exactly, numbers
// within a stated relative tolerance (absolute floor 1e-12). Returns one line per difference, with the
// JSON pointer.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rigsim::testing {

inline void json_diff(const nlohmann::json& expected, const nlohmann::json& actual, double rel_tol,
                      const std::string& pointer, std::vector<std::string>& out) {
  if (expected.is_number() && actual.is_number()) {
    const double e = expected.get<double>(), a = actual.get<double>();
    // Relative, with an absolute floor of 1e-12 so that a zero (an idle time of 0 s) may come out as
    // rounding noise of another compiler or optimisation level.
    const double tol = std::max(rel_tol * std::abs(e), 1e-12);
    if (std::abs(e - a) > tol)
      out.push_back(pointer + ": expected " + expected.dump() + ", got " + actual.dump() + " (tolerance " +
                    std::to_string(rel_tol * 100) + " %)");
    return;
  }
  if (expected.type() != actual.type()) {
    out.push_back(pointer + ": expected " + expected.dump() + ", got " + actual.dump());
    return;
  }
  if (expected.is_object()) {
    for (const auto& [k, v] : expected.items()) {
      if (!actual.contains(k))
        out.push_back(pointer + "/" + k + ": missing");
      else
        json_diff(v, actual.at(k), rel_tol, pointer + "/" + k, out);
    }
    for (const auto& [k, v] : actual.items())
      if (!expected.contains(k)) out.push_back(pointer + "/" + k + ": unexpected key");
    return;
  }
  if (expected.is_array()) {
    if (expected.size() != actual.size()) {
      out.push_back(pointer + ": expected " + std::to_string(expected.size()) + " elements, got " +
                    std::to_string(actual.size()));
      return;
    }
    for (std::size_t i = 0; i < expected.size(); ++i)
      json_diff(expected[i], actual[i], rel_tol, pointer + "/" + std::to_string(i), out);
    return;
  }
  if (expected != actual) out.push_back(pointer + ": expected " + expected.dump() + ", got " + actual.dump());
}

inline std::vector<std::string> json_diff(const nlohmann::json& expected, const nlohmann::json& actual,
                                          double rel_tol) {
  std::vector<std::string> out;
  json_diff(expected, actual, rel_tol, "", out);
  return out;
}

}  // namespace rigsim::testing
