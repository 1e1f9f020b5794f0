// nccl-tests arithmetic and formatting (reference nccl.md §e). Formats follow nccl-tests' printf
// strings so that its log parsers (ours included) read rigsim's output unchanged.
#include "model/nccl_tests.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "common/input.hpp"

namespace rigsim::model::nccl_tests {
namespace {

constexpr std::size_t kMaxSizes = 10000;

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(static_cast<std::size_t>(std::max(n, 0)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

[[noreturn]] void bad_size(std::string_view text, const std::string& option, const std::string& why) {
  throw InputError("", option,
                   "size \"" + std::string(text) + "\" " + why +
                       " (nccl-tests sizes: a number of bytes with an optional K, M or G "
                       "suffix, powers of 1024, e.g. 8, 64K, 128M, 1G)");
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// The multiplier of a suffix ("", "K", "MiB", "gb", ...), or 0 when it is not one.
double suffix_unit(std::string_view s) {
  if (s.empty()) return 1;
  double unit = 0;
  switch (s.front()) {
    case 'K':
    case 'k':
      unit = 1024.0;
      break;
    case 'M':
    case 'm':
      unit = 1024.0 * 1024;
      break;
    case 'G':
    case 'g':
      unit = 1024.0 * 1024 * 1024;
      break;
    default:
      return 0;
  }
  s.remove_prefix(1);
  return (s.empty() || s == "B" || s == "b" || s == "iB" || s == "ib") ? unit : 0;
}

bool is_sharded(CollectiveOp op) {
  return op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllToAll;
}

}  // namespace

std::uint64_t parse_size(std::string_view text, const std::string& option) {
  const std::string_view t = trim(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || t.empty()) bad_size(text, option, "is not a number");
  const double unit =
      suffix_unit(trim(std::string_view(end, static_cast<std::size_t>(t.data() + t.size() - end))));
  if (unit == 0) bad_size(text, option, "has an unknown unit");
  if (!std::isfinite(value) || value < 0) bad_size(text, option, "is not a size");
  const double bytes = std::floor(value * unit);
  if (bytes != value * unit) bad_size(text, option, "is not a whole number of bytes");
  if (bytes > static_cast<double>(kMaxBytes)) bad_size(text, option, "is larger than 2^40 bytes (1 TiB)");
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::uint64_t> sweep_sizes(const Sweep& s) {
  auto fail = [](const std::string& where, const std::string& why) { throw InputError("", where, why); };
  if (s.max_bytes > kMaxBytes || s.min_bytes > kMaxBytes)
    fail("-e", "sizes above 2^40 bytes are not supported");
  if (s.min_bytes > s.max_bytes)
    fail("-b", "minimum size " + std::to_string(s.min_bytes) + " is larger than the maximum " +
                   std::to_string(s.max_bytes));
  if (s.step_factor <= 1 && s.step_bytes == 0)
    fail("-i", "the step (-i) must be positive when the factor (-f) is 1");
  if (s.step_factor > 1 && s.min_bytes == 0 && s.max_bytes > 0)
    fail("-b", "a sweep by factor (-f) cannot start at 0 bytes");
  std::vector<std::uint64_t> out;
  for (std::uint64_t size = s.min_bytes; size <= s.max_bytes;) {
    out.push_back(size);
    if (out.size() > kMaxSizes) fail("-i", "the sweep has more than " + std::to_string(kMaxSizes) + " sizes");
    const std::uint64_t next = s.step_factor > 1 ? size * s.step_factor : size + s.step_bytes;
    if (next <= size) break;  // 0 x factor, or overflow
    size = next;
  }
  return out;
}

Sizes sizes_for(CollectiveOp op, std::uint64_t requested, std::size_t ranks) {
  const std::uint64_t count = requested / kTypeSize;
  if (!is_sharded(op)) return {count * kTypeSize, count};
  const std::uint64_t per_rank = (count / ranks) & ~(16 / kTypeSize - 1);  // 16-byte multiple
  return {per_rank * ranks * kTypeSize, per_rank};
}

double busbw_factor(CollectiveOp op, std::size_t ranks) {
  const auto n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::AllReduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::AllGather:
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllToAll:
      return (n - 1) / n;
    default:
      return 1;
  }
}

std::string_view redop(CollectiveOp op) {
  const bool reduces =
      op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::Reduce;
  return reduces ? "sum" : "none";
}

std::string binary_name(CollectiveOp op) {
  return std::string(to_string(op)) + "_perf";
}

Row make_row(CollectiveOp op, std::size_t ranks, const Sizes& sizes, Seconds time, std::size_t root) {
  Row r;
  r.size = sizes.size;
  r.count = sizes.count;
  const bool rooted = op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce;
  r.root = rooted ? static_cast<int>(root) : -1;
  // Snapped to 1e-6 us: a size simulated as a later phase of a shared simulation differs from its own
  // simulation in the last bits of a double, which must not reach the report (a time of exactly
  // x.x5 us would print either way).
  r.time_us = std::round(time.us() * 1e6) / 1e6;
  r.algbw = r.time_us > 0 ? static_cast<double>(sizes.size) / (r.time_us * 1e-6) / 1e9 : 0.0;
  r.busbw = r.algbw * busbw_factor(op, ranks);
  return r;
}

double average_busbw(const std::vector<Row>& rows) {
  double sum = 0;
  for (const Row& r : rows) sum += r.busbw;
  return rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
}

std::string float_str(double value, int width) {
  int power = 0;
  for (double v = 1; value >= v && power < 40; v *= 10) ++power;
  if (power < width - 2) return format("%*.2f", width, value);
  if (power < width - 1) return format("%*.1f", width, value);
  if (power < width + 1) return format("%*.0f", width, value);
  return width >= 7 ? format("%*.1e", width, value) : format("%*.0e", width, value);
}

std::string header() {
  std::string out = "#\n";
  out +=
      format("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
             "", "", "", "", "");
  out += format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count",
                "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                "#wrong", 0, "");
  out +=
      format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)",
             "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "");
  return out;
}

std::string row_line(CollectiveOp op, const Row& r) {
  std::string out =
      format("%12llu  %12llu  %8s  %6s  %6i", static_cast<unsigned long long>(r.size),
             static_cast<unsigned long long>(r.count), "float", std::string(redop(op)).c_str(), r.root);
  const std::string body = format("  %7s  %6s  %6s    N/A", float_str(r.time_us, 7).c_str(),
                                  float_str(r.algbw, 6).c_str(), float_str(r.busbw, 6).c_str());
  return out + body + body + "\n";
}

std::string footer(CollectiveOp op, double avg_busbw) {
  std::string out = format("# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
  out += format("# %-20s : %g %s\n", "Avg bus bandwidth", avg_busbw, "");
  out += "#\n";
  out += "# Collective test concluded: " + binary_name(op) + "\n";
  return out;
}

std::string rank_line(std::size_t rank, const std::string& host, std::size_t device, const std::string& id,
                      const std::string& gpu_name) {
  return format("#  Rank %2zu Group %2d Pid %6d on %10s device %2zu [%s] %s\n", rank, 0, 0, host.c_str(),
                device, id.c_str(), gpu_name.c_str());
}

std::string preamble(CollectiveOp op, const Sweep& s, std::size_t gpus_per_thread,
                     const std::vector<std::string>& rank_lines) {
  std::string out = "# Collective test starting: " + binary_name(op) + " (simulated by rigsim)\n";
  const bool factor = s.step_factor > 1;
  out += format(
      "# nThread %d nGpus %zu minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg "
      "iters: %d validation: %d graph: %d unalign: %d\n",
      1, gpus_per_thread, static_cast<unsigned long long>(s.min_bytes),
      static_cast<unsigned long long>(s.max_bytes),
      static_cast<unsigned long long>(factor ? s.step_factor : s.step_bytes), factor ? "factor" : "bytes", 0,
      1, 1, 0, 0, 0);
  out += "#\n# Using devices\n";
  for (const auto& l : rank_lines) out += l;
  return out;
}

std::string table(CollectiveOp op, const std::vector<Row>& rows) {
  std::string out = header();
  for (const Row& r : rows) out += row_line(op, r);
  return out + footer(op, average_busbw(rows));
}

}  // namespace rigsim::model::nccl_tests
