// What rigsim-probe asks of the hardware. The CUDA / cuBLAS / NCCL implementation is
// kernels/cuda_backend.cu; everything above this interface (what to measure, repetitions, medians,
// the measurements JSON, the layout sketch) is plain C++ tested with fakes (tests/probe/).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rigsim::probe {

struct GpuInfo {
  std::string name;    // cudaDeviceProp::name
  std::string bus_id;  // "0000:1a:00.0"
  int sm = 0;          // compute capability x 10 + minor (89 for 8.9)
  double memory_gb = 0;
};

struct Versions {
  std::string driver, cuda, nccl;
};

/// A CUDA, cuBLAS or NCCL call that failed: names the call and the device.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An operation this GPU cannot do (FP8 GEMM before Ada); the probe skips it and says so.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Every timing is one timed window of `iters` back-to-back runs; the result is seconds per run.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::vector<GpuInfo> gpus() = 0;
  virtual Versions versions() = 0;
  /// cudaDeviceCanAccessPeer(a, b).
  virtual bool can_access_peer(int a, int b) = 0;
  /// cudaMemcpy device to device within one GPU.
  virtual double device_copy(int gpu, std::size_t bytes, int iters) = 0;
  /// Pinned host memory <-> one GPU (host memory allocated on the GPU's NUMA node when the OS allows).
  virtual double host_copy(int gpu, std::size_t bytes, bool h2d, int iters) = 0;
  /// One pinned copy at a time, each waited for by the host (cudaMemcpyAsync + cudaStreamSynchronize),
  /// wall-clock seconds per copy: what a host-synchronised copy costs (the driver's staging of a peer
  /// copy runs its two legs so), as CostModel::host_copy_latency means it.
  virtual double host_copy_synced(int gpu, std::size_t bytes, bool h2d, int iters) = 0;
  /// The same with the host memory bound to NUMA node `numa_node` (the remote-node measurement).
  virtual double host_copy_on_node(int gpu, std::size_t bytes, bool h2d, int iters, int numa_node) = 0;
  /// The same on every GPU at once; seconds per run of each GPU's copy, by GPU.
  virtual std::vector<double> host_copy_all(std::size_t bytes, bool h2d, int iters) = 0;
  /// One GPU's pinned copy in direction `h2d` while the same GPU copies twice the bytes the other way
  /// on a second stream (nvbandwidth's *_bidirectional_memcpy_ce); seconds per run of the measured copy.
  virtual double host_copy_bidir(int gpu, std::size_t bytes, bool h2d, int iters) = 0;
  /// cudaMemcpyPeer src -> dst with peer access enabled (when `peer_access` and possible) or disabled.
  virtual double peer_copy(int src, int dst, std::size_t bytes, bool peer_access, int iters) = 0;
  /// Both directions at once (a -> b and b -> a on two streams); seconds per run of the pair.
  virtual double peer_copy_both(int a, int b, std::size_t bytes, bool peer_access, int iters) = 0;
  /// cuBLAS GEMM m x n x k with `dtype` inputs ("bf16", "fp16", "fp8") and FP32 accumulate.
  virtual double gemm(int gpu, const std::string& dtype, int m, int n, int k, int iters) = 0;
  /// An NCCL collective over `gpus` (one communicator, in-process); `size` is nccl-tests' size column
  /// (bytes of the op's buffer, see model/nccl_tests.hpp); ops as nccl-tests names them.
  virtual double collective(const std::string& op, const std::vector<int>& gpus, std::size_t size,
                            int iters) = 0;
};

}  // namespace rigsim::probe
