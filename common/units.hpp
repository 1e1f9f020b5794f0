// Strong types for the quantities rigsim deals in. Every value is stored in SI base units:
// bytes, bytes per second, seconds. Parsing accepts the strings people write ("24GB/s", "2us",
// "8GiB", "100Gb/s"); decimal prefixes are powers of 1000, binary ones (Ki, Mi, Gi) powers of 1024.
#pragma once

#include <compare>
#include <string>
#include <string_view>

namespace rigsim {

/// An amount of data, in bytes.
struct Bytes {
  double value = 0;  // bytes
  constexpr auto operator<=>(const Bytes&) const = default;
};

/// A data rate, in bytes per second (one direction of a link unless a name says otherwise).
struct BytesPerSecond {
  double value = 0;  // bytes per second
  constexpr auto operator<=>(const BytesPerSecond&) const = default;
  constexpr double gb_per_s() const { return value / 1e9; }
};

/// A duration, in seconds.
struct Seconds {
  double value = 0;  // seconds
  constexpr auto operator<=>(const Seconds&) const = default;
  constexpr double us() const { return value * 1e6; }
};

constexpr BytesPerSecond gb_per_s(double gbs) {
  return {gbs * 1e9};
}
constexpr Seconds microseconds(double us) {
  return {us * 1e-6};
}
constexpr Seconds nanoseconds(double ns) {
  return {ns * 1e-9};
}

constexpr Seconds operator/(Bytes b, BytesPerSecond r) {
  return {b.value / r.value};
}
constexpr BytesPerSecond operator*(BytesPerSecond r, double f) {
  return {r.value * f};
}
constexpr Seconds operator+(Seconds a, Seconds b) {
  return {a.value + b.value};
}

/// Parses "8GiB", "512MB", "1e6", "4096B" into bytes. Throws std::invalid_argument with a sentence.
Bytes parse_bytes(std::string_view text);
/// Parses "24GB/s", "100Gb/s" (bits), "12.5 GB/s", "900MiB/s" into bytes per second.
BytesPerSecond parse_rate(std::string_view text);
/// Parses "2us", "1.5 ms", "150ns", "3s" into seconds.
Seconds parse_duration(std::string_view text);

/// "24.0 GB/s" style rendering, decimal units, for people.
std::string format_rate(BytesPerSecond r);
/// "128 MiB" style rendering, binary units, for people.
std::string format_bytes(Bytes b);

}  // namespace rigsim
