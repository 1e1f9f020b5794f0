// The compute cost model: closed forms stated in each message, the roofline's two sides, the GeForce
// FP32-accumulate half rate, monotonicity in k and in bytes, formats a card lacks, and the CostModel
// keys and catalog fields the model reads.
#include "calibration/compute.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/input.hpp"

namespace rigsim::calibration {
namespace {

const topology::GpuSpec& gpu(const char* key) {
  const topology::GpuSpec* g = topology::find_gpu(key);
  if (g == nullptr) throw std::runtime_error(std::string("no GPU ") + key);
  return *g;
}

/// A GEMM (m x k) · (k x n) reading A and B once and writing C once.
KernelWork gemm(double m, double n, double k, Dtype dtype = Dtype::Bf16) {
  const double e = bytes_per_element(dtype);
  return {KernelClass::Gemm, dtype, 2 * m * n * k, (m * k + k * n + m * n) * e, m, n, k};
}

double achieved_tflops(const topology::GpuSpec& g, const CostModel& cost, const KernelWork& k) {
  return k.flops / kernel_time(g, cost, k).time.value / 1e12;
}

// ---- closed forms -------------------------------------------------------------------------------

TEST(Compute, LargeGemmOnA100IsTheProductOfItsMechanisms) {
  const CostModel cost = default_cost_model();
  const double n = 8192;
  const KernelTime t = kernel_time(gpu("a100-sxm4-80gb"), cost, gemm(n, n, n));
  // 256x128 tiles: 32 x 64 = 2048 over 108 SMs = 19 waves; fill = n^2 / (19 x 108 x 256 x 128);
  // k ramp = n / (n + 128); kernel 0.96; power-limited clock 0.87.
  const double fill = n * n / (19 * 108 * 256.0 * 128);
  const double eff = 0.96 * 0.87 * fill * (n / (n + 128));
  const double expected = 2 * n * n * n / (312e12 * eff);
  EXPECT_NEAR(t.time.value, expected, 1e-9 * expected)
      << "expected 2*m*n*k / (312 TFLOP/s x " << eff << ") = " << expected << " s, got " << t.time.value;
  EXPECT_TRUE(t.compute_bound);
  EXPECT_DOUBLE_EQ(t.peak_tflops, 312.0);
  EXPECT_NEAR(t.efficiency, eff, 1e-12);
  // The source of the two A100 factors measured 257 TFLOP/s here with random inputs (thonking.ai).
  EXPECT_NEAR(2 * n * n * n / t.time.value / 1e12, 257, 3);
  EXPECT_NE(t.why.find("compute-bound"), std::string::npos) << t.why;
}

TEST(Compute, GemmFactorsAreReported) {
  const CostModel cost = default_cost_model();
  const GemmEfficiency e = gemm_efficiency(gpu("h100-sxm5"), cost, gemm(8192, 8192, 8192));
  EXPECT_DOUBLE_EQ(e.kernel, cost.gemm_efficiency);
  EXPECT_DOUBLE_EQ(e.clock, cost.tensor_clock_ratio);
  EXPECT_EQ(e.split_k, 1);
  EXPECT_NEAR(e.total, e.kernel * e.clock * e.fill * e.feed * e.k_ramp, 1e-12);
  // 2048 tiles of 256x128 over 132 SMs: 15.5 waves -> 16, fill 15.52 / 16.
  EXPECT_NEAR(e.fill, 2048.0 / (16 * 132), 1e-12) << "expected 2048 / (16 x 132)";
}

TEST(Compute, WaveQuantisationOneTileRowOverAFullWaveCostsASecondWave) {
  const CostModel cost = default_cost_model();
  const auto& a100 = gpu("a100-sxm4-80gb");
  // k = 64 leaves a single k-tile, so no split-k can rebalance the waves.
  // 3072 x 1152: 12 x 9 = 108 tiles of 256x128, exactly one wave on 108 SMs.
  const GemmEfficiency full = gemm_efficiency(a100, cost, gemm(3072, 1152, 64));
  EXPECT_NEAR(full.fill, 1.0, 1e-12) << "expected 108 tiles / 108 SMs = 1";
  // 3072 x 1280: whatever the tile, just over one wave: 2 waves, fill = m n / (2 x 108 x 256 x 128).
  const GemmEfficiency over = gemm_efficiency(a100, cost, gemm(3072, 1280, 64));
  EXPECT_NEAR(over.fill, 3072.0 * 1280 / (2 * 108 * 256.0 * 128), 1e-12)
      << "expected 3072 x 1280 / (2 x 108 x 32768) = 0.556";
  EXPECT_LT(achieved_tflops(a100, cost, gemm(3072, 1280, 64)),
            achieved_tflops(a100, cost, gemm(3072, 1152, 64)));
  // With a long k, splitting it into more, shorter CTAs fills the second wave: the loss shrinks.
  const GemmEfficiency split = gemm_efficiency(a100, cost, gemm(3072, 1280, 8192));
  EXPECT_GT(split.split_k, 1);
  EXPECT_GT(split.fill, over.fill);
}

TEST(Compute, GeForceBf16RunsAtHalfTheFp16AccumulateRate) {
  const CostModel cost = default_cost_model();
  const auto& g = gpu("rtx-4090");
  EXPECT_NEAR(peak_tflops(g, Dtype::Bf16), g.fp16_fp16acc_tflops / 2, 0.1)
      << "expected 330.3 / 2 = 165.2 TFLOP/s (Ada whitepaper)";
  EXPECT_DOUBLE_EQ(peak_tflops(g, Dtype::Fp16), peak_tflops(g, Dtype::Bf16));
  // Half rate keeps the card under its power limit: the half-rate clock ratio applies.
  EXPECT_DOUBLE_EQ(sustained_clock_ratio(g, cost), cost.tensor_clock_ratio_half_rate);
  const double n = 8192;  // 2048 tiles over 128 SMs: exactly 16 waves
  const KernelTime t = kernel_time(g, cost, gemm(n, n, n));
  const double eff = 0.96 * 1.0 * 1.0 * (n / (n + 128));
  const double expected = 2 * n * n * n / (165.2e12 * eff);
  EXPECT_NEAR(t.time.value, expected, 1e-9 * expected)
      << "expected 2*m*n*k / (165.2 TFLOP/s x " << eff << ") = " << expected << " s, got " << t.time.value;
  // A pro card on the same kind of die runs both accumulations at full rate, power-limited.
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("rtx-a6000"), Dtype::Bf16), 154.8);
  EXPECT_DOUBLE_EQ(sustained_clock_ratio(gpu("rtx-a6000"), cost), cost.tensor_clock_ratio);
}

TEST(Compute, MemoryBoundKernelsRunAtBandwidthTimesEfficiency) {
  const CostModel cost = default_cost_model();
  const auto& g = gpu("rtx-3090");
  const KernelWork add{KernelClass::Elementwise, Dtype::Bf16, 1e8, 1.2e9, 0, 0, 0};
  const KernelTime t = kernel_time(g, cost, add);
  const double expected = 1.2e9 / (936e9 * 0.83);
  EXPECT_NEAR(t.time.value, expected, 1e-12)
      << "expected bytes / (936 GB/s x 0.83) = " << expected << " s, got " << t.time.value;
  EXPECT_FALSE(t.compute_bound);
  // Decode-style GEMV: one row through 8192 x 8192 weights is memory-bound too.
  const KernelWork gemv = gemm(1, 8192, 8192);
  const KernelTime v = kernel_time(g, cost, gemv);
  EXPECT_FALSE(v.compute_bound) << v.why;
  const double gemv_expected = gemv.bytes / (936e9 * 0.83);  // + split-k partials, < 1 %
  EXPECT_NEAR(v.time.value, gemv_expected, 0.01 * gemv_expected)
      << "expected bytes / (936 GB/s x 0.83) = " << gemv_expected << " s, got " << v.time.value;
  EXPECT_NE(v.why.find("memory-bound"), std::string::npos) << v.why;
}

TEST(Compute, AttentionRunsAtTheFlashAttentionShareOfPeak) {
  const CostModel cost = default_cost_model();
  const KernelWork att{KernelClass::Attention, Dtype::Bf16, 1e13, 1e8, 0, 0, 0};
  const KernelTime t = kernel_time(gpu("a100-sxm4-80gb"), cost, att);
  const double expected = 1e13 / (312e12 * 0.5);
  EXPECT_NEAR(t.time.value, expected, 1e-12) << "expected flops / (312 TFLOP/s x 0.5) = " << expected;
  EXPECT_TRUE(t.compute_bound);
}

TEST(Compute, HostOptimizerStepIsBoundByTheSocketsMemory) {
  const CostModel cost = default_cost_model();
  const KernelWork adam{KernelClass::Optimizer, Dtype::Fp32, 12e9, 28e9, 0, 0, 0};  // 1e9 parameters
  const KernelTime t = host_kernel_time(*topology::find_cpu("epyc-7002"), 2, cost, adam);
  const double expected = 28e9 / (2 * 204.8e9 * 0.84);
  EXPECT_NEAR(t.time.value, expected, 1e-12)
      << "expected 28 GB / (2 x 204.8 GB/s x 0.84) = " << expected << " s, got " << t.time.value;
  EXPECT_THROW(host_kernel_time(*topology::find_cpu("epyc-7002"), 0, cost, adam), std::invalid_argument);
}

// ---- formats ------------------------------------------------------------------------------------

TEST(Compute, Fp8IsRejectedOnCardsWithoutIt) {
  const CostModel cost = default_cost_model();
  for (const char* key : {"a100-sxm4-80gb", "rtx-3090", "v100-sxm2", "mi210"}) {
    try {
      peak_tflops(gpu(key), Dtype::Fp8);
      ADD_FAILURE() << key << ": FP8 accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(gpu(key).name), std::string::npos) << e.what();
    }
    EXPECT_THROW(kernel_time(gpu(key), cost, gemm(4096, 4096, 4096, Dtype::Fp8)), std::invalid_argument);
  }
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("h100-sxm5"), Dtype::Fp8), 1978.9);
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("rtx-4090"), Dtype::Fp8), 330.3);
  const GemmEfficiency e = gemm_efficiency(gpu("h100-sxm5"), cost, gemm(8192, 8192, 8192, Dtype::Fp8));
  EXPECT_DOUBLE_EQ(e.kernel, cost.gemm_efficiency * cost.gemm_fp8_efficiency);
}

TEST(Compute, FormatsWithoutTensorUnitsFallBackToFp32) {
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("v100-sxm2"), Dtype::Bf16), 15.7);  // BF16 tensor math is Ampere+
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("v100-sxm2"), Dtype::Fp16), 125.0);
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("v100-sxm2"), Dtype::Tf32), 15.7);
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("a100-sxm4-80gb"), Dtype::Tf32), 156.0);
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("a100-sxm4-80gb"), Dtype::Fp32), 19.5);
  // QLoRA's NF4 and 8-bit weights are dequantised and multiplied in BF16.
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("rtx-3090"), Dtype::Nf4), 71.0);
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("rtx-3090"), Dtype::Int8), 71.0);
}

// ---- monotonicity ---------------------------------------------------------------------------------

TEST(Compute, LargerKNeverLowersAchievedTflops) {
  const CostModel cost = default_cost_model();
  const std::vector<std::pair<double, double>> shapes = {{4096, 4096}, {8192, 16}, {1, 8192}, {3000, 5000}};
  for (const char* key : {"a100-sxm4-80gb", "h100-sxm5", "rtx-4090", "rtx-3060-12gb", "v100-sxm2", "mi210"}) {
    for (const auto& [m, n] : shapes) {
      double previous = 0;
      for (double k = 16; k <= 65536; k *= 1.5) {
        const double now = achieved_tflops(gpu(key), cost, gemm(m, n, std::round(k)));
        EXPECT_GE(now, previous * (1 - 1e-12)) << key << " " << m << "x" << n << " k=" << std::round(k);
        previous = now;
      }
    }
  }
}

TEST(Compute, MoreBytesAreNeverFaster) {
  const CostModel cost = default_cost_model();
  for (const KernelClass kind : {KernelClass::Gemm, KernelClass::Attention, KernelClass::Elementwise,
                                 KernelClass::Norm, KernelClass::Optimizer}) {
    double previous = 0;
    for (double bytes = 1e3; bytes <= 1e11; bytes *= 3) {
      KernelWork k = gemm(2048, 2048, 2048);
      k.kind = kind;
      k.bytes = bytes;
      const double now = kernel_time(gpu("rtx-3090"), cost, k).time.value;
      EXPECT_GE(now, previous) << to_string(kind) << " bytes=" << bytes;
      previous = now;
    }
  }
}

TEST(Compute, SkinnyGemmsAreNotPricedAsIfTheyFilledTheGpu) {
  // A LoRA adapter (4096 tokens x rank 16) cannot fill 108 SMs with 256x128 tiles; smaller tiles and
  // split-k keep it near its memory bound instead of at 2 % of peak.
  const CostModel cost = default_cost_model();
  const KernelWork lora = gemm(4096, 16, 4096);
  const KernelTime t = kernel_time(gpu("a100-sxm4-80gb"), cost, lora);
  const double memory = lora.bytes / (2039e9 * 0.83);
  EXPECT_LT(t.time.value, 3 * memory) << t.why;
}

TEST(Compute, BadWorkIsRejected) {
  const CostModel cost = default_cost_model();
  KernelWork k = gemm(128, 128, 128);
  k.flops = -1;
  EXPECT_THROW(kernel_time(gpu("rtx-3090"), cost, k), std::invalid_argument);
  k = gemm(128, 128, 128);
  k.bytes = NAN;
  EXPECT_THROW(kernel_time(gpu("rtx-3090"), cost, k), std::invalid_argument);
  EXPECT_DOUBLE_EQ(kernel_time(gpu("rtx-3090"), cost, KernelWork{}).time.value, 0.0);
}

// ---- the CostModel keys and catalog fields the model reads ----------------------------------------

TEST(ComputeCostModel, DefaultsAreFractionsWithTheirSourcedValues) {
  const CostModel m = default_cost_model();
  EXPECT_NEAR(m.gemm_efficiency, 0.946 / (0.998 * 0.985), 0.005);  // thonking.ai, zeros: 295 / 312
  EXPECT_NEAR(m.tensor_clock_ratio, 257.0 / 295, 0.005);           // thonking.ai, randn vs zeros
  EXPECT_NEAR(m.gemm_fp8_efficiency, (0.709 / 0.803 + 0.776 / 0.838) / 2, 0.005);  // MAMF table
  EXPECT_DOUBLE_EQ(m.attention_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(m.tensor_clock_ratio_half_rate, 1.0);
}

TEST(ComputeCostModel, KeysAreOverriddenAndWrittenLikeTheOthers) {
  const nlohmann::json doc =
      parse_json_text(R"({"gemm_efficiency": 0.9, "tensor_clock_ratio": 0.8})", "profile.json");
  const CostModel m = apply_overrides(default_cost_model(), doc, "profile.json");
  EXPECT_DOUBLE_EQ(m.gemm_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(m.tensor_clock_ratio, 0.8);
  const nlohmann::json out = to_json(m);
  for (const char* key : {"gemm_efficiency", "gemm_fp8_efficiency", "attention_efficiency",
                          "tensor_clock_ratio", "tensor_clock_ratio_half_rate"}) {
    ASSERT_TRUE(out.contains(key)) << key;
  }
  const CostModel back = apply_overrides(default_cost_model(), out, "round-trip.json");
  EXPECT_DOUBLE_EQ(back.gemm_efficiency, 0.9);
  EXPECT_THROW(apply_overrides(default_cost_model(), parse_json_text(R"({"gemm_efficency": 0.9})", "p.json"),
                               "p.json"),
               InputError);
  EXPECT_THROW(apply_overrides(default_cost_model(),
                               parse_json_text(R"({"tensor_clock_ratio": 1.2})", "p.json"), "p.json"),
               InputError);
}

TEST(ComputeCatalog, EveryGpuHasMultiprocessorsAndConsistentFormatPeaks) {
  for (const topology::GpuSpec& g : topology::gpu_catalog()) {
    SCOPED_TRACE(std::string(g.key));
    EXPECT_GT(g.sm_count, 0);
    EXPECT_GE(g.tf32_tflops, 0);
    EXPECT_LE(g.tf32_tflops, g.fp16_fp32acc_tflops);  // TF32 is at most the 16-bit rate
    if (g.fp8_tflops > 0) {
      // FP8 tensor math: NVIDIA Ada (8.9), Hopper (9.0), Blackwell; AMD CDNA3 (MI300X).
      if (g.vendor == topology::Vendor::Nvidia) {
        EXPECT_GE(g.sm, 89);
      }
      EXPECT_NEAR(g.fp8_tflops, 2 * g.fp16_fp32acc_tflops, 0.03 * g.fp8_tflops);
    }
    if (g.vendor == topology::Vendor::Nvidia && g.sm >= 80) {
      EXPECT_NEAR(g.tf32_tflops, g.fp16_fp32acc_tflops / 2, 0.02 * g.fp16_fp32acc_tflops);
    }
  }
}

}  // namespace
}  // namespace rigsim::calibration
