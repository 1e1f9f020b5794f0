// rigsim-probe's program logic, without CUDA: options, the no-device answer, discovery, the run, the
// layout sketch and the files. kernels/probe_main.cpp gives it the CUDA backend and the real system;
// tests give it fakes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "kernels/probe/backend.hpp"
#include "kernels/probe/discover.hpp"
#include "kernels/probe/runner.hpp"

namespace rigsim::probe {

inline constexpr int kExitUsage = 1;        // bad options, or an output file exists without --force
inline constexpr int kExitNoDevice = 2;     // no GPU or no working driver: nothing was measured
inline constexpr int kExitDeviceError = 3;  // a CUDA / cuBLAS / NCCL call failed while measuring

/// The backend, or nullptr with `why` set (no driver, no device).
using BackendFactory = std::function<std::unique_ptr<Backend>(std::string& why)>;

struct Environment {
  std::string root;  // prefix of /sys and /proc ("" for the real ones)
  std::string host;  // host name
  /// The text of `nvidia-smi topo -m`, or nullopt when it cannot be run.
  std::function<std::optional<std::string>()> topo_matrix;
};

/// Parses rigsim-probe's command line into `o`. Returns an exit status when the program should stop
/// (help printed: 0; a usage error, printed: kExitUsage), nullopt to go on.
std::optional<int> parse_options(int argc, const char* const* argv, ProbeOptions& o, std::ostream& out,
                                 std::ostream& err);

/// The whole program. Returns its exit status.
int probe_main(int argc, const char* const* argv, const BackendFactory& backend, const Environment& env,
               std::ostream& out, std::ostream& err);

/// The layout sketch of the measured rig from `nvidia-smi topo -m` (topology/importers.hpp), with GPU
/// and CPU catalog keys from their names (or the options); nullopt with `why` when a name matches no
/// catalog entry or the matrix cannot be read.
/// Where the CPU's name matches no catalog entry, its CPUID family and model (`cpuid`) pick the one
/// catalog CPU that has them, and the sketch's notes say so.
std::optional<std::string> sketch_layout(const std::string& matrix, const calibration::Rig& rig,
                                         const ProbeOptions& o, std::string& why, const CpuId& cpuid = {});

}  // namespace rigsim::probe
