// The compute cost model (DESIGN.md rule 9): how long one kernel takes on one GPU, as a roofline,
//   time = max(FLOPs / (peak(dtype) x efficiency(kind, shape)), bytes / (memory bandwidth x efficiency)),
// with the peaks from the GPU catalog and the efficiencies from the CostModel. A GEMM's efficiency is a
// product of mechanisms, each with its source (compute.cpp): cuBLAS on a large GEMM, the clock the card
// sustains under tensor load (power-limited boards run below the rated clock the catalog's peak is
// quoted at), tile and wave quantisation over the SMs, the operand feed of small tiles, and the
// pipeline fill that makes a short k slow.
#pragma once

#include <string>

#include "calibration/cost_model.hpp"
#include "common/kernels.hpp"
#include "common/units.hpp"
#include "topology/catalog.hpp"

namespace rigsim::calibration {

/// How long one kernel takes and why.
struct KernelTime {
  Seconds time;        // duration of the kernel
  bool compute_bound;  // the FLOP side of the roofline is the longer one
  double peak_tflops;  // catalog peak of the math used, dense TFLOP/s (0 for host work)
  double efficiency;   // achieved / peak on the compute side, (0, 1]; host work: memory efficiency
  std::string why;     // one sentence for reports: the bound, the rate and the factors behind it
};

/// The factors of a GEMM's compute efficiency (their product is `total`), for reports and tests.
struct GemmEfficiency {
  double kernel = 1;  // CostModel::gemm_efficiency (x gemm_fp8_efficiency for FP8)
  double clock = 1;   // sustained / rated clock (sustained_clock_ratio)
  double fill = 1;    // useful share of the tile slots: tile and wave quantisation
  double feed = 1;    // operand feed of the chosen tile from L2
  double k_ramp = 1;  // k / (k + pipeline fill) of each split
  int tile_m = 0;     // chosen thread-block tile (0 when the shape is unknown)
  int tile_n = 0;
  int split_k = 1;  // k split across CTAs to fill the SMs
  double total = 1;
};

/// Peak dense TFLOP/s of a GPU's matrix math in `dtype`. BF16/FP16 use the FP32-accumulate rate
/// (what training uses: half the FP16-accumulate rate on GeForce Ampere/Ada/Blackwell); NVIDIA cards
/// before Ampere have no BF16 tensor math and run it at the FP32 rate; TF32 falls back to FP32 on cards
/// without it; INT8 and NF4 are storage formats computed in BF16 after dequantisation. Throws
/// std::invalid_argument for FP8 on a card without FP8 tensor math (before Ada/Hopper).
double peak_tflops(const topology::GpuSpec& gpu, Dtype dtype);

/// Sustained / rated clock under dense tensor math: CostModel::tensor_clock_ratio_half_rate for cards
/// whose FP32-accumulate rate is half their FP16-accumulate rate (GeForce), else tensor_clock_ratio.
double sustained_clock_ratio(const topology::GpuSpec& gpu, const CostModel& cost);

/// The GEMM efficiency of `k` (kind Gemm) on `gpu`: the tile and split-k that make it fastest, as
/// cuBLAS's heuristics try to. With m, n or k unknown (0) only the kernel and clock factors apply.
/// A batched GEMM is told by flops > 2·m·n·k: its batch count multiplies the tiles.
GemmEfficiency gemm_efficiency(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k);

/// Roofline time of one kernel on one GPU. GEMMs run at peak(dtype) x gemm_efficiency; attention at
/// peak(dtype) x attention_efficiency; element-wise, norm, embedding and optimizer kernels on the
/// vector units (FP32 rate x sustained clock) and, in practice, at memory bandwidth x
/// gpu_memory_efficiency. Throws std::invalid_argument for negative or non-finite work.
KernelTime kernel_time(const topology::GpuSpec& gpu, const CostModel& cost, const KernelWork& k);

/// CPU-side work (the optimizer step on the host under offload), memory-bound: bytes / (DRAM bandwidth
/// of `sockets` sockets x memory_efficiency). FLOPs are not timed: the CPU catalog has no FLOP rates,
/// and an FP32 Adam step streams 28 bytes per parameter (parameter, gradient and two moments read;
/// parameter and moments written) for about a dozen FLOPs [D], below any server CPU's ridge point.
KernelTime host_kernel_time(const topology::CpuSpec& cpu, int sockets, const CostModel& cost,
                            const KernelWork& k);

}  // namespace rigsim::calibration
