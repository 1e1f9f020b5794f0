// The compute cost model: peaks per format, the GEMM efficiency mechanisms and the roofline.
// Efficiencies that a profile may calibrate live in the CostModel (cost_model_defaults.cpp, with sources); the
// constants below describe how cuBLAS/CUTLASS kernels are built and are cited where they are declared.
#include "calibration/compute.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace rigsim::calibration {
namespace {

struct Tile {
  int m;
  int n;
};

// Thread-block tiles cuBLAS picks among (cublasLtMatmulTile_t lists tiles from 8x8 up to 512x64).
// NVIDIA's "Matrix Multiplication Background" user's guide, §2.3: larger tiles reuse operands more and
// run more efficiently; smaller ones are used when large ones would leave SMs idle. Largest first, so
// that the larger tile wins a tie.
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}, {128, 64},
                           {64, 128},  {64, 64},   {64, 32},   {32, 64}};

// One SM runs one 256x128 tile at a time (the same guide, §3.2: on A100 "256x128 thread block tiles
// ... one thread block per SM, leading to a wave size of 108 tiles"); smaller tiles share an SM in
// proportion to their area (registers and shared memory scale with it) [D].
constexpr double kSmTileArea = 256.0 * 128.0;

// CUTLASS DefaultGemmConfiguration<OpClassTensorOp, Sm80>: 128x256x64 tiles, kStages = 3. The mainloop
// fetches kStages - 1 k-tiles before its first MMA and the epilogue writes the tile after its last; with
// one CTA filling an SM neither overlaps other work, so each output tile costs (3 - 1) x 64 = 128 k of
// extra time: k_ramp = k / (k + 128).
constexpr double kPipelineFillK = 128;
constexpr double kTileK = 64;  // the same configuration's k-tile: a split of k keeps at least one

// A100 whitepaper p.35: "The A100 L2 read bandwidth is 5120 Bytes/clk", over 108 SMs that each do 2048
// dense FP16 FLOP/clk (312 TFLOP/s at 1.41 GHz): 0.0231 B of L2 reads per FLOP at the full FP16 tensor
// rate. V100 has the same balance (2048 B/clk over 80 SMs x 1024 FLOP/clk = 0.025), so it is taken for
// every GPU, scaled by how much slower the kernel's format runs than full-rate FP16.
constexpr double kL2BytesPerFullRateFlop = 5120.0 / (108 * 2048);

// Split-k factors tried when the tiles cannot fill the SMs (cuBLAS split-K). The splits' FP32 partials
// of the output are written and then read back by a reduction that runs after the GEMM, so their
// traffic, 2 x 4 bytes per output element per split, adds to the kernel's time.
constexpr int kSplits[] = {1, 2, 4, 8, 16};
constexpr double kSplitPartialBytes = 2 * 4;

void check_work(const KernelWork& k) {
  for (double v : {k.flops, k.bytes, k.m, k.n, k.k}) {
    if (!(v >= 0) || !std::isfinite(v))
      throw std::invalid_argument("kernel work must be finite and non-negative (flops, bytes, m, n, k)");
  }
}

/// The format the math runs in: INT8 and NF4 weights are dequantised to BF16 first.
Dtype math_dtype(Dtype d) {
  return (d == Dtype::Int8 || d == Dtype::Nf4) ? Dtype::Bf16 : d;
}

bool has_shape(const KernelWork& k) {
  return k.m > 0 && k.n > 0 && k.k > 0;
}

/// How many m x n x k products the kernel does (a batched GEMM's batch), at least 1.
double batch_of(const KernelWork& k) {
  return std::max(1.0, std::round(k.flops / (2 * k.m * k.n * k.k)));
}

BytesPerSecond memory_rate(const topology::GpuSpec& gpu, const CostModel& cost) {
  return gb_per_s(gpu.memory_bw_gbs) * cost.gpu_memory_efficiency;
}

Seconds at_rate(double flops, double tflops) {
  return {flops / (tflops * 1e12)};
}

/// One way cuBLAS could run the GEMM: a tile and a split of k, with the factors it costs.
struct Candidate {
  Tile tile;
  int split;
  double fill;
  double feed;
  double k_ramp;
  double factor() const { return fill * feed * k_ramp; }
};

/// Useful share of the SM time slots: tile quantisation (partial tiles at the edges) and wave
/// quantisation (the last wave only partly full), as in the guide's §3.
double fill_of(const KernelWork& k, Tile t, int split, int sms) {
  const double tiles = std::ceil(k.m / t.m) * std::ceil(k.n / t.n) * batch_of(k) * split;
  const double slots = sms * std::max(1.0, kSmTileArea / (t.m * t.n));
  const double waves = std::ceil(tiles / slots);
  return k.m * k.n * batch_of(k) * split / (waves * slots * t.m * t.n);
}

/// Operand feed: a tile needs (Tm + Tn) x bytes per element from L2 for every 2 x Tm x Tn FLOPs; the
/// L2 supplies kL2BytesPerFullRateFlop per FLOP at full FP16 rate, more per FLOP for slower formats.
double feed_of(const topology::GpuSpec& gpu, Dtype dtype, Tile t) {
  // The L2 is sized for the card's fastest math. On Pascal (P40, GTX 10) FP16 runs at 1/64 rate and
  // is not that: its FP32 CUDA-core rate is, so the ratio is taken against the larger of the two.
  const double fastest = std::max(gpu.fp16_fp16acc_tflops, gpu.fp32_tflops);
  const double supply = kL2BytesPerFullRateFlop * fastest / peak_tflops(gpu, dtype);
  const double demand = bytes_per_element(dtype) * (t.m + t.n) / (2.0 * t.m * t.n);
  return std::min(1.0, supply / demand);
}

double k_ramp_of(double k, int split) {
  const double per_split = k / split;
  return per_split / (per_split + kPipelineFillK);
}

/// The split-k reduction: FP32 partials of the output written by each split and read back.
Bytes split_partials(const KernelWork& k, int split) {
  return {split > 1 ? kSplitPartialBytes * k.m * k.n * batch_of(k) * split : 0};
}

/// Time of the GEMM run as candidate `c`: the roofline of its compute and its memory traffic, then the
/// split-k reduction.
Seconds candidate_time(const KernelWork& k, const Candidate& c, double rate_tflops, BytesPerSecond mem) {
  return std::max(at_rate(k.flops, rate_tflops * c.factor()), Bytes{k.bytes} / mem) +
         split_partials(k, c.split) / mem;
}

/// The fastest tile and split for `k`; `rate_tflops` is peak x kernel x clock.
Candidate best_candidate(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k,
                         double rate_tflops) {
  const Dtype dtype = math_dtype(k.dtype);
  Candidate best{kTiles[0], 1, 0, 0, 0};
  Seconds best_time{INFINITY};
  for (const Tile t : kTiles) {
    for (const int split : kSplits) {
      if (split > 1 && k.k / split < kTileK) break;
      const Candidate c{t, split, fill_of(k, t, split, gpu.sm_count), feed_of(gpu, dtype, t),
                        k_ramp_of(k.k, split)};
      const Seconds time = candidate_time(k, c, rate_tflops, memory_rate(gpu, cost));
      if (time < best_time) {
        best = c;
        best_time = time;
      }
    }
  }
  return best;
}

double kernel_factor(const CostModel& cost, Dtype dtype) {
  return cost.gemm_efficiency * (dtype == Dtype::Fp8 ? cost.gemm_fp8_efficiency : 1.0);
}

std::string format(const char* fmt, auto... args) {
  std::string out(static_cast<std::size_t>(std::snprintf(nullptr, 0, fmt, args...)), '\0');
  std::snprintf(out.data(), out.size() + 1, fmt, args...);
  return out;
}

std::string memory_clause(const topology::GpuSpec& gpu, const CostModel& cost, double bytes) {
  return format("%.3g GB at %.0f GB/s (%.2f of %.0f GB/s)", bytes / 1e9, memory_rate(gpu, cost).gb_per_s(),
                cost.gpu_memory_efficiency, gpu.memory_bw_gbs);
}

std::string bound_word(bool compute_bound) {
  return compute_bound ? "compute-bound" : "memory-bound";
}

KernelTime roofline(Seconds compute, Seconds memory, double peak, double efficiency, std::string why) {
  return {std::max(compute, memory), compute >= memory, peak, efficiency, std::move(why)};
}

KernelTime gemm_time(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k) {
  const double peak = peak_tflops(gpu, k.dtype);
  const GemmEfficiency e = gemm_efficiency(gpu, cost, k);
  const Seconds compute = at_rate(k.flops, peak * e.total);
  const Seconds memory = Bytes{k.bytes} / memory_rate(gpu, cost);
  const Seconds reduction = split_partials(k, e.split_k) / memory_rate(gpu, cost);
  const std::string shape =
      has_shape(k) ? format("%.0fx%.0fx%.0f", k.m, k.n, k.k) : std::string("(shape unknown)");
  const std::string why = format(
      "gemm %s %s on %s: %s; %.0f TFLOP/s peak x %.2f = %.0f TFLOP/s (kernel %.2f, clock %.2f, tile "
      "%dx%d split-k %d fill %.2f, feed %.2f, k ramp %.2f); memory %s%s",
      shape.c_str(), std::string(to_string(k.dtype)).c_str(), std::string(gpu.key).c_str(),
      bound_word(compute >= memory).c_str(), peak, e.total, peak * e.total, e.kernel, e.clock, e.tile_m,
      e.tile_n, e.split_k, e.fill, e.feed, e.k_ramp, memory_clause(gpu, cost, k.bytes).c_str(),
      e.split_k > 1 ? format("; then the split-k reduction, %.3g us", reduction.us()).c_str() : "");
  KernelTime t = roofline(compute, memory, peak, e.total, why);
  t.time = t.time + reduction;
  return t;
}

KernelTime attention_time(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k) {
  const double peak = peak_tflops(gpu, k.dtype);
  const Seconds compute = at_rate(k.flops, peak * cost.attention_efficiency);
  const Seconds memory = Bytes{k.bytes} / memory_rate(gpu, cost);
  const std::string why =
      format("attention %s on %s: %s; %.0f TFLOP/s peak x %.2f (flash-attention); memory %s",
             std::string(to_string(k.dtype)).c_str(), std::string(gpu.key).c_str(),
             bound_word(compute >= memory).c_str(), peak, cost.attention_efficiency,
             memory_clause(gpu, cost, k.bytes).c_str());
  return roofline(compute, memory, peak, cost.attention_efficiency, why);
}

/// Element-wise, norm, embedding and optimizer kernels: FP32 vector math (PyTorch computes these in
/// FP32 whatever the storage format) at the sustained clock, and memory traffic.
KernelTime streaming_time(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k) {
  const double clock = sustained_clock_ratio(gpu, cost);
  const Seconds compute = at_rate(k.flops, gpu.fp32_tflops * clock);
  const Seconds memory = Bytes{k.bytes} / memory_rate(gpu, cost);
  const std::string why = format("%s on %s: %s; memory %s; vector math %.1f TFLOP/s x clock %.2f",
                                 std::string(to_string(k.kind)).c_str(), std::string(gpu.key).c_str(),
                                 bound_word(compute >= memory).c_str(),
                                 memory_clause(gpu, cost, k.bytes).c_str(), gpu.fp32_tflops, clock);
  return roofline(compute, memory, gpu.fp32_tflops, clock, why);
}

}  // namespace

double peak_tflops(const topology::GpuSpec& gpu, Dtype dtype) {
  // NVIDIA BF16 tensor math arrived with Ampere (compute capability 8.0); before it BF16 runs at FP32.
  const bool bf16_tensor = gpu.vendor != topology::Vendor::Nvidia || gpu.sm >= 80;
  switch (math_dtype(dtype)) {
    case Dtype::Fp32:
      return gpu.fp32_tflops;
    case Dtype::Tf32:
      return gpu.tf32_tflops > 0 ? gpu.tf32_tflops : gpu.fp32_tflops;
    case Dtype::Fp16:
      return gpu.fp16_fp32acc_tflops;
    case Dtype::Bf16:
      return bf16_tensor ? gpu.fp16_fp32acc_tflops : gpu.fp32_tflops;
    case Dtype::Fp8:
      if (gpu.fp8_tflops > 0) return gpu.fp8_tflops;
      throw std::invalid_argument(std::string(gpu.name) +
                                  " has no FP8 tensor math (FP8 arrived with Ada and Hopper); use bf16");
    case Dtype::Int8:
    case Dtype::Nf4:
      break;
  }
  throw std::logic_error("peak_tflops: unhandled dtype");
}

double sustained_clock_ratio(const topology::GpuSpec& gpu, const CostModel& cost) {
  const bool half_rate = gpu.fp16_fp32acc_tflops < gpu.fp16_fp16acc_tflops;
  return half_rate ? cost.tensor_clock_ratio_half_rate : cost.tensor_clock_ratio;
}

GemmEfficiency gemm_efficiency(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k) {
  check_work(k);
  GemmEfficiency e;
  e.kernel = kernel_factor(cost, math_dtype(k.dtype));
  e.clock = sustained_clock_ratio(gpu, cost);
  e.total = e.kernel * e.clock;
  if (!has_shape(k) || gpu.sm_count <= 0) return e;
  const Candidate c = best_candidate(gpu, cost, k, peak_tflops(gpu, k.dtype) * e.total);
  e.fill = c.fill;
  e.feed = c.feed;
  e.k_ramp = c.k_ramp;
  e.tile_m = c.tile.m;
  e.tile_n = c.tile.n;
  e.split_k = c.split;
  e.total *= c.factor();
  return e;
}

KernelTime kernel_time(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k) {
  check_work(k);
  switch (k.kind) {
    case KernelClass::Gemm:
      return gemm_time(gpu, cost, k);
    case KernelClass::Attention:
      return attention_time(gpu, cost, k);
    case KernelClass::Elementwise:
    case KernelClass::Norm:
    case KernelClass::Embedding:
    case KernelClass::Optimizer:
      return streaming_time(gpu, cost, k);
  }
  throw std::logic_error("kernel_time: unhandled kernel class");
}

KernelTime host_kernel_time(const topology::CpuSpec& cpu, int sockets, const CostModel& cost,
                            const KernelWork& k) {
  check_work(k);
  if (sockets < 1) throw std::invalid_argument("host work needs at least one CPU socket");
  const BytesPerSecond rate = gb_per_s(cpu.memory_bw_gbs * sockets) * cost.memory_efficiency;
  const std::string why =
      format("%s on the host (%d x %s): memory-bound, %.3g GB at %.0f GB/s (%.2f of %.0f GB/s)",
             std::string(to_string(k.kind)).c_str(), sockets, std::string(cpu.key).c_str(), k.bytes / 1e9,
             rate.gb_per_s(), cost.memory_efficiency, cpu.memory_bw_gbs * sockets);
  return {Bytes{k.bytes} / rate, false, 0.0, cost.memory_efficiency, why};
}

}  // namespace rigsim::calibration
