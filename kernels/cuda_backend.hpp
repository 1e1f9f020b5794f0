// The CUDA / cuBLAS / NCCL Backend of rigsim-probe (cuda_backend.cu; built only with the toolkit).
#pragma once

#include <memory>
#include <string>

#include "kernels/probe/backend.hpp"

namespace rigsim::probe {

/// A backend over every visible GPU, or nullptr with `why` (no driver, no device).
std::unique_ptr<Backend> make_cuda_backend(std::string& why);

}  // namespace rigsim::probe
