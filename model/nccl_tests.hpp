// nccl-tests arithmetic and output, re-implemented from its documented behaviour (reference nccl.md
// §e; NVIDIA/nccl-tests src/common.cu, src/util.cu, src/*.cu): size parsing and sweeps (-b/-e/-f/-i),
// the size and count columns per op, algbw and busbw, number formatting, the result table and its
// footer. No SimGrid here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.hpp"
#include "model/collectives.hpp"

namespace rigsim::model::nccl_tests {

/// Largest size rigsim accepts for -b/-e/-i: 2^40 bytes (1 TiB).
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;
/// Bytes per element: nccl-tests' default data type (-d float).
constexpr std::uint64_t kTypeSize = 4;

/// Parses a size as nccl-tests' parsesize(): a number with an optional K, M or G suffix, which are
/// powers of 1024 ("NOTE: We use the binary system, so M=Mebibytes", common.cu); "8", "64K",
/// "128M", "1G", "1.5M"; a trailing "B" or "iB" after the suffix is tolerated. Fractions of a byte
/// are dropped. Throws rigsim::InputError naming `option` for anything else, negatives, and sizes
/// above kMaxBytes.
std::uint64_t parse_size(std::string_view text, const std::string& option);

/// The sizes nccl-tests visits: from min_bytes, times step_factor (-f) while <= max_bytes, or plus
/// step_bytes (-i) when step_factor is 1.
struct Sweep {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 128ull << 20;
  std::uint64_t step_factor = 2;
  std::uint64_t step_bytes = 0;
};
/// Throws rigsim::InputError for an empty or endless sweep or more than 10000 sizes.
std::vector<std::uint64_t> sweep_sizes(const Sweep& sweep);

/// The "size" (bytes) and "count" (elements) columns for a requested size, as nccl-tests' setupArgs
/// and *GetCollByteCount compute them: count = size / 4; all_gather, reduce_scatter and alltoall
/// round the per-rank (per-peer) count down to a multiple of 16 bytes and print size = that x n.
struct Sizes {
  std::uint64_t size = 0;   // bytes: the collective's S (plan_collective's `size`)
  std::uint64_t count = 0;  // elements per rank passed to NCCL
};
Sizes sizes_for(CollectiveOp op, std::uint64_t requested, std::size_t ranks);

/// busbw = algbw x factor: 2(n-1)/n all_reduce; (n-1)/n all_gather, reduce_scatter, alltoall;
/// 1 broadcast, reduce, sendrecv (nccl.md §e.1).
double busbw_factor(CollectiveOp op, std::size_t ranks);
/// "sum" for reducing ops, "none" otherwise.
std::string_view redop(CollectiveOp op);
/// "all_reduce_perf", ...
std::string binary_name(CollectiveOp op);

struct Row {
  std::uint64_t size = 0;
  std::uint64_t count = 0;
  int root = -1;       // -1 unless broadcast / reduce
  double time_us = 0;  // microseconds
  double algbw = 0;    // GB/s (1e9 B/s) = size / time
  double busbw = 0;    // GB/s
};
/// A row from the simulated time of one size.
Row make_row(CollectiveOp op, std::size_t ranks, const Sizes& sizes, Seconds time, std::size_t root);
/// Mean busbw over the rows (nccl-tests averages every printed placement; ours are identical).
double average_busbw(const std::vector<Row>& rows);

/// nccl-tests' getFloatStr: 2, then 1, then 0 decimals, then exponent form, to fit `width`.
std::string float_str(double value, int width);

/// "#" then the three header lines (no -I, no timestamps), exactly as nccl-tests prints them.
std::string header();
/// One data row: out-of-place and in-place columns (identical in a simulation); "#wrong" is N/A
/// because no data is checked (as nccl-tests -c 0).
std::string row_line(CollectiveOp op, const Row& row);
/// "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : X ", "#", "# Collective test concluded: ...".
std::string footer(CollectiveOp op, double avg_busbw);
/// The preamble: test name, parameters (nGpus: `gpus_per_thread`, the GPUs each thread drives), and one
/// "#  Rank" line per GPU (`devices`: "name" strings).
std::string preamble(CollectiveOp op, const Sweep& sweep, std::size_t gpus_per_thread,
                     const std::vector<std::string>& rank_lines);
/// One "#  Rank" line: rank, host label, local device index, bus id stand-in and GPU name.
std::string rank_line(std::size_t rank, const std::string& host, std::size_t device, const std::string& id,
                      const std::string& gpu_name);
/// header() + every row + footer().
std::string table(CollectiveOp op, const std::vector<Row>& rows);

}  // namespace rigsim::model::nccl_tests
