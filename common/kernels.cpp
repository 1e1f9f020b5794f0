#include "common/kernels.hpp"

#include <array>
#include <utility>

namespace rigsim {
namespace {

constexpr std::array<std::pair<Dtype, std::string_view>, 7> kDtypeNames{{
    {Dtype::Fp32, "fp32"},
    {Dtype::Tf32, "tf32"},
    {Dtype::Fp16, "fp16"},
    {Dtype::Bf16, "bf16"},
    {Dtype::Fp8, "fp8"},
    {Dtype::Int8, "int8"},
    {Dtype::Nf4, "nf4"},
}};

}  // namespace

double bytes_per_element(Dtype d) {
  switch (d) {
    case Dtype::Fp32:
    case Dtype::Tf32:
      return 4;
    case Dtype::Fp16:
    case Dtype::Bf16:
      return 2;
    case Dtype::Fp8:
    case Dtype::Int8:
      return 1;
    case Dtype::Nf4:
      return 0.5;
  }
  return 4;
}

std::string_view to_string(Dtype d) {
  for (const auto& [v, name] : kDtypeNames)
    if (v == d) return name;
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& [v, n] : kDtypeNames)
    if (n == name) return v;
  return std::nullopt;
}

std::string_view to_string(KernelClass k) {
  switch (k) {
    case KernelClass::Gemm:
      return "gemm";
    case KernelClass::Attention:
      return "attention";
    case KernelClass::Elementwise:
      return "elementwise";
    case KernelClass::Norm:
      return "norm";
    case KernelClass::Embedding:
      return "embedding";
    case KernelClass::Optimizer:
      return "optimizer";
  }
  return "?";
}

}  // namespace rigsim
