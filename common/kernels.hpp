// The vocabulary shared by workload programs (workloads/) and the compute cost model (calibration/):
// number formats and kernel classes. Neither library depends on the other, so the words live here.
#pragma once

#include <optional>
#include <string_view>

namespace rigsim {

/// Number formats of tensors and tensor math. Nf4 is QLoRA's 4-bit NormalFloat storage (computed in
/// bf16 after dequantisation); Int8 covers 8-bit optimizer states.
enum class Dtype { Fp32, Tf32, Fp16, Bf16, Fp8, Int8, Nf4 };

/// Bytes one element occupies in memory (Nf4: 0.5).
double bytes_per_element(Dtype d);
/// "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "nf4".
std::string_view to_string(Dtype d);
std::optional<Dtype> parse_dtype(std::string_view name);

/// What a GPU kernel is, for the roofline: GEMMs run on tensor cores at a shape-dependent share of
/// peak; the others are bounded by memory traffic (or by their own FLOP rate on CUDA cores).
enum class KernelClass {
  Gemm,         // matrix multiply (QKV, attention output, MLP, experts, logits)
  Attention,    // fused (flash-style) attention: FLOPs ∝ s², memory traffic ∝ s
  Elementwise,  // activations, residual adds, dropout, rotary, casts
  Norm,         // LayerNorm / RMSNorm
  Embedding,    // embedding gather / its gradient scatter
  Optimizer     // the optimizer step over parameters (memory-bound)
};
std::string_view to_string(KernelClass k);

/// One kernel's work: FLOPs it performs and bytes it moves to and from device memory. For a GEMM
/// (m x k) · (k x n), m, n and k are set (0 otherwise) so the cost model can judge its shape.
struct KernelWork {
  KernelClass kind = KernelClass::Gemm;
  Dtype dtype = Dtype::Bf16;
  double flops = 0;  // floating-point operations (a multiply-add counts 2)
  double bytes = 0;  // bytes read + written in device memory
  double m = 0, n = 0, k = 0;
};

}  // namespace rigsim
