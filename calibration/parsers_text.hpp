// Shared by the tool-output parsers (parsers.cpp, parsers_nvbandwidth.cpp): a text as numbered lines
// and the readers of its tokens, each failing with the file and line.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "calibration/measurements.hpp"
#include "common/input.hpp"

namespace rigsim::calibration::text {

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

inline std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

inline std::optional<double> number(const std::string& t) {
  double v = 0;
  const char* end = t.data() + t.size();
  const auto [p, ec] = std::from_chars(t.data(), end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

inline double number_at(const Lines& l, std::size_t i, const std::string& t, const char* what) {
  const auto v = number(t);
  if (!v || *v < 0)
    l.fail(i, std::string("expected ") + what + " (a non-negative number), got \"" + t + "\"");
  return *v;
}

/// A whole number in [0, max] written in `base` (digits a regex already matched, but as long as the
/// input makes them), or a located error naming `what`.
inline long integer_at(const Lines& l, std::size_t i, const std::string& t, long max, const char* what,
                       int base = 10) {
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

inline std::uint64_t bytes_at(const Lines& l, std::size_t i, const std::string& t, const char* what) {
  const double v = number_at(l, i, t, what);
  if (v > kMaxBytes || std::floor(v) != v)
    l.fail(i, std::string("expected ") + what + " (whole bytes up to 2^50), got \"" + t + "\"");
  return static_cast<std::uint64_t>(v);
}

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

inline std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

/// Makes rig.gpus long enough to hold device `index`.
inline void ensure_gpu(Rig& rig, int index) {
  while (static_cast<int>(rig.gpus.size()) <= index) {
    RigGpu g;
    g.index = static_cast<int>(rig.gpus.size());
    rig.gpus.push_back(g);
  }
}

// ---- nccl-tests --------------------------------------------------------------------------------

}  // namespace rigsim::calibration::text
