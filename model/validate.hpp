// Re-simulating measurements (`rigsim validate`, and every step of `rigsim calibrate`): each measured
// point of a rigsim-measurements/1 file is run on the rig's layout as the tool ran it (nccl-tests rows
// through run_bench, the CUDA samples' and nvbandwidth's copies through run_p2p_bench), and compared.
// Every point also says which mechanism the model thinks limits it: the transport class (category),
// and the CostModel key that scales its bottleneck link (what calibrate fits from it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "calibration/measurements.hpp"
#include "model/platform.hpp"

namespace rigsim::model {

/// The platform of the rig for a series spanning `nodes` servers (1 for copies).
using PlatformFor = std::function<const Platform&(int nodes)>;

/// The regime a point is in, which decides what it can teach the fit.
enum class Regime {
  Bandwidth,  // bytes large enough that the rate of the bottleneck link decides the time
  Latency,    // a latency measurement, or a collective small enough that fixed costs decide it
  Between,    // neither: used for validation only
};

struct PointCheck {
  std::size_t series = 0;
  std::size_t point = 0;
  std::string id;        // the point's id, or "<series tool> <what>"
  std::string what;      // "all_reduce 8 GPUs 128 MiB", "P2P=Disabled uni 0->1 160 MB"
  std::string category;  // transport class: p2p-nvlink, p2p-pcie-switch, p2p-root-complex,
                         // p2p-cross-socket, staged, host-copy, device-memory, nccl-nvlink,
                         // nccl-pcie, nccl-shm, nccl-net, nccl-nvls, gemm
  std::string metric;    // busbw, algbw, time, bandwidth, latency, throughput
  std::string unit;      // GB/s, us or TFLOP/s
  double measured = 0;
  double predicted = 0;
  Regime regime = Regime::Between;
  std::string key;         // CostModel key scaling the bottleneck link (bandwidth regime) or the fixed
                           // cost (latency regime); "" when none applies
  std::string bottleneck;  // the limiting link, for people ("gpu0->plx0"); "" when none
  double efficiency = 0;   // payload / wire of that link under the model (current_efficiency)
  /// Signed error: predicted / measured - 1 on the metric (time metrics: the same, so a positive error
  /// is always "predicted larger").
  double error() const { return predicted / measured - 1.0; }
};

/// Collectives at or above this size are in the bandwidth regime; at or below kLatencyBytes in the
/// latency regime. Copies of at least kCopyBandwidthBytes are in the bandwidth regime.
inline constexpr double kBandwidthBytes = 64.0 * 1024 * 1024;
inline constexpr double kLatencyBytes = 64.0 * 1024;
inline constexpr double kCopyBandwidthBytes = 16.0 * 1024 * 1024;
/// GEMMs with every dimension at least this large are in the regime CostModel::gemm_efficiency describes.
inline constexpr std::uint64_t kLargeGemm = 2048;

/// Re-simulates every point of `m` (or only the series in `only`, when not empty). Throws
/// rigsim::InputError (located in m.file) for a point the layout cannot run: a GPU index beyond the
/// layout, an NCCL setting rigsim does not model, a test rigsim does not simulate.
std::vector<PointCheck> validate(const PlatformFor& platform, const Executor& execute,
                                 const calibration::Measurements& m, const std::vector<std::size_t>& only = {});

/// The CostModel key that scales the bandwidth of platform link `link` ("pcie_efficiency",
/// "nvlink_efficiency", "inter_socket_efficiency", "chipset_efficiency", "network_efficiency",
/// "memory_efficiency" for a socket's DRAM, "pcie_duplex_efficiency" for a "both directions" link), or
/// "" for a link whose rate the layout declared.
std::string efficiency_key(const Platform& p, std::size_t link);

/// The current payload / wire factor of platform link `link` (its bandwidth over the Topology's wire
/// rate; for DRAM and "both directions" links the CostModel's factor).
double current_efficiency(const Platform& p, std::size_t link);

}  // namespace rigsim::model
