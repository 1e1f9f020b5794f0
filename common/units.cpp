#include "common/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace rigsim {
namespace {

struct NumberAndUnit {
  double number;
  std::string unit;
};

NumberAndUnit split_number(std::string_view text, std::string_view what) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == 'e' || text[i] == 'E' || text[i] == '+' || text[i] == '-')) {
    // 'e' belongs to the number only when followed by a digit or sign ("1e6"), not in "8 eB".
    if ((text[i] == 'e' || text[i] == 'E') &&
        (i + 1 >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                                   text[i + 1] == '-' || text[i + 1] == '+')))
      break;
    ++i;
  }
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + i, number);
  if (ec != std::errc() || ptr != text.data() + i || start == i || !std::isfinite(number))
    throw std::invalid_argument("expected " + std::string(what) + " such as a number with a unit, got \"" +
                                std::string(text) + "\"");
  std::string unit;
  for (; i < text.size(); ++i)
    if (!std::isspace(static_cast<unsigned char>(text[i]))) unit += text[i];
  if (number < 0)
    throw std::invalid_argument(std::string(what) + " must not be negative, got \"" + std::string(text) +
                                "\"");
  return {number, unit};
}

// Multipliers for a size prefix: "", K, M, G, T (decimal) and Ki, Mi, Gi, Ti (binary).
bool prefix_factor(std::string_view prefix, double& factor) {
  static const std::array<std::pair<std::string_view, double>, 13> table{{
      {"", 1.0},
      {"K", 1e3},
      {"k", 1e3},
      {"M", 1e6},
      {"G", 1e9},
      {"T", 1e12},
      {"Ki", 1024.0},
      {"Mi", 1048576.0},
      {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0},
      {"KI", 1024.0},
      {"MI", 1048576.0},
      {"GI", 1073741824.0},
  }};
  for (const auto& [p, f] : table)
    if (p == prefix) {
      factor = f;
      return true;
    }
  return false;
}

}  // namespace

Bytes parse_bytes(std::string_view text) {
  auto [number, unit] = split_number(text, "a size");
  if (unit.empty()) return {number};
  if (unit.back() != 'B')
    throw std::invalid_argument("expected a size in bytes such as \"8GiB\" or \"512MB\", got \"" +
                                std::string(text) + "\"");
  double factor = 1;
  if (!prefix_factor(std::string_view(unit).substr(0, unit.size() - 1), factor))
    throw std::invalid_argument("unknown size unit \"" + unit + "\" in \"" + std::string(text) +
                                "\" (use B, KB, MB, GB, KiB, MiB, GiB)");
  return {number * factor};
}

BytesPerSecond parse_rate(std::string_view text) {
  auto [number, unit] = split_number(text, "a rate");
  const std::string_view u = unit;
  if (u.size() < 3 || u.substr(u.size() - 2) != "/s")
    throw std::invalid_argument("expected a rate such as \"24GB/s\" or \"100Gb/s\", got \"" +
                                std::string(text) + "\"");
  const char base = u[u.size() - 3];
  if (base != 'B' && base != 'b')
    throw std::invalid_argument("a rate is in B/s (bytes) or b/s (bits), got \"" + std::string(text) + "\"");
  double factor = 1;
  if (!prefix_factor(u.substr(0, u.size() - 3), factor))
    throw std::invalid_argument("unknown rate unit \"" + unit + "\" in \"" + std::string(text) + "\"");
  return {number * factor / (base == 'b' ? 8.0 : 1.0)};
}

Seconds parse_duration(std::string_view text) {
  auto [number, unit] = split_number(text, "a duration");
  static const std::array<std::pair<std::string_view, double>, 5> table{
      {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}}};
  for (const auto& [u, f] : table)
    if (u == unit) return {number * f};
  throw std::invalid_argument("expected a duration such as \"2us\" or \"1.5ms\", got \"" + std::string(text) +
                              "\"");
}

std::string format_rate(BytesPerSecond r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GB/s", r.value / 1e9);
  return buf;
}

std::string format_bytes(Bytes b) {
  static const std::array<const char*, 5> names{"B", "KiB", "MiB", "GiB", "TiB"};
  double v = b.value;
  std::size_t i = 0;
  while (v >= 1024.0 && i + 1 < names.size()) {
    v /= 1024.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, v == std::floor(v) ? "%.0f %s" : "%.2f %s", v, names[i]);
  return buf;
}

}  // namespace rigsim
