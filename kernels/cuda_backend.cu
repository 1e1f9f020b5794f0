// The probe's Backend on real hardware: CUDA runtime copies timed with events, cuBLAS GEMMs
// (cublasGemmEx for BF16/FP16, cublasLt for FP8; FP32 accumulate), and NCCL collectives on one
// in-process communicator over the chosen GPUs (ncclCommInitAll, one group call driving every rank). Every call is checked; a failure
// names the call and the device (DeviceError). No NVML: link state comes from sysfs (discover.cpp).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cuda_backend.hpp"

namespace rigsim::probe {
namespace {

[[noreturn]] void fail(const char* call, int device, const std::string& what) {
  std::ostringstream s;
  s << call << " on GPU " << device << " failed: " << what;
  throw DeviceError(s.str());
}

void check(cudaError_t e, const char* call, int device) {
  if (e != cudaSuccess) fail(call, device, cudaGetErrorString(e));
}

void check(cublasStatus_t e, const char* call, int device) {
  if (e != CUBLAS_STATUS_SUCCESS) fail(call, device, "cuBLAS status " + std::to_string(static_cast<int>(e)));
}

void check(ncclResult_t e, const char* call, int device) {
  if (e != ncclSuccess) fail(call, device, ncclGetErrorString(e));
}

#define CK(call, dev) check((call), #call, (dev))

/// Fills a buffer with a non-zero pattern, so no copy or GEMM runs on pages the driver has never
/// backed (and the device code path is built by nvcc for every target architecture).
__global__ void fill(float* p, std::size_t n, float v) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

/// Device memory owned per GPU, freed on destruction.
struct DeviceBuffer {
  int device = 0;
  void* ptr = nullptr;
  std::size_t bytes = 0;
  DeviceBuffer(int d, std::size_t b) : device(d), bytes(b) {
    CK(cudaSetDevice(d), d);
    CK(cudaMalloc(&ptr, b), d);
    fill<<<256, 256>>>(static_cast<float*>(ptr), b / sizeof(float), 1.0f);
    CK(cudaGetLastError(), d);
    CK(cudaDeviceSynchronize(), d);
  }
  ~DeviceBuffer() {
    cudaSetDevice(device);
    cudaFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct HostBuffer {
  void* ptr = nullptr;
  explicit HostBuffer(std::size_t b, int device) { CK(cudaMallocHost(&ptr, b), device); }
  ~HostBuffer() { cudaFreeHost(ptr); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
};

/// Pinned host memory whose pages live on NUMA node `node`: anonymous pages bound with mbind(2)
/// (MPOL_BIND, no libnuma needed), touched so they are placed, then registered with CUDA.
struct NodeHostBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  NodeHostBuffer(std::size_t b, int node, int device) : bytes(b) {
    ptr = mmap(nullptr, b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ptr == MAP_FAILED) {
      ptr = nullptr;
      throw DeviceError("mmap of " + std::to_string(b) + " bytes of host memory failed: " + std::strerror(errno));
    }
    constexpr int kMpolBind = 2;                   // MPOL_BIND, <linux/mempolicy.h>
    constexpr unsigned kMpolMfStrict = 1u << 0;    // MPOL_MF_STRICT
    std::vector<unsigned long> mask(static_cast<std::size_t>(node) / (8 * sizeof(unsigned long)) + 1, 0);
    mask[static_cast<std::size_t>(node) / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
    if (syscall(SYS_mbind, ptr, b, kMpolBind, mask.data(), mask.size() * 8 * sizeof(unsigned long) + 1,
                kMpolMfStrict) != 0) {
      const std::string why = std::strerror(errno);
      munmap(ptr, b);
      ptr = nullptr;
      throw DeviceError("mbind of host memory to NUMA node " + std::to_string(node) + " failed: " + why);
    }
    std::memset(ptr, 0, b);  // place every page on the node now, not during the timed copies
    const cudaError_t e = cudaHostRegister(ptr, b, cudaHostRegisterDefault);
    if (e != cudaSuccess) {
      munmap(ptr, b);
      ptr = nullptr;
      throw DeviceError(std::string("cudaHostRegister of memory on NUMA node ") + std::to_string(node) +
                        " (device " + std::to_string(device) + "): " + cudaGetErrorString(e));
    }
  }
  ~NodeHostBuffer() {
    if (ptr == nullptr) return;
    cudaHostUnregister(ptr);
    munmap(ptr, bytes);
  }
  NodeHostBuffer(const NodeHostBuffer&) = delete;
  NodeHostBuffer& operator=(const NodeHostBuffer&) = delete;
};

/// Times `iters` runs of `issue` (which enqueues on `stream` of `device`) with events: seconds per run.
template <typename F>
double time_on(int device, cudaStream_t stream, int iters, F&& issue) {
  cudaEvent_t start, stop;
  CK(cudaSetDevice(device), device);
  CK(cudaEventCreate(&start), device);
  CK(cudaEventCreate(&stop), device);
  CK(cudaEventRecord(start, stream), device);
  for (int i = 0; i < iters; ++i) issue();
  CK(cudaEventRecord(stop, stream), device);
  CK(cudaEventSynchronize(stop), device);
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, start, stop), device);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 1e3 / iters;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int count) : count_(count), streams_(static_cast<std::size_t>(count)) {
    for (int d = 0; d < count_; ++d) {
      CK(cudaSetDevice(d), d);
      CK(cudaStreamCreateWithFlags(&streams_[static_cast<std::size_t>(d)], cudaStreamNonBlocking), d);
    }
  }
  ~CudaBackend() override {
    for (auto& [key, comms] : comms_)
      for (ncclComm_t c : comms) ncclCommDestroy(c);
    for (auto& [d, h] : blas_) cublasDestroy(h);
    for (auto& [d, h] : blas_lt_) cublasLtDestroy(h);
    for (int d = 0; d < count_; ++d) {
      cudaSetDevice(d);
      cudaStreamDestroy(streams_[static_cast<std::size_t>(d)]);
    }
  }

  std::vector<GpuInfo> gpus() override {
    std::vector<GpuInfo> out;
    for (int d = 0; d < count_; ++d) {
      cudaDeviceProp p{};
      CK(cudaGetDeviceProperties(&p, d), d);
      char bus[32] = {};
      CK(cudaDeviceGetPCIBusId(bus, sizeof bus, d), d);
      out.push_back({p.name, bus, p.major * 10 + p.minor, static_cast<double>(p.totalGlobalMem) / 1e9});
    }
    return out;
  }

  Versions versions() override {
    int driver = 0, runtime = 0, nccl = 0;
    CK(cudaDriverGetVersion(&driver), 0);
    CK(cudaRuntimeGetVersion(&runtime), 0);
    CK(ncclGetVersion(&nccl), 0);
    const auto cuda = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    const std::string n = std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." +
                          std::to_string(nccl % 100);
    return {"CUDA driver API " + cuda(driver), cuda(runtime), n};
  }

  bool can_access_peer(int a, int b) override {
    int yes = 0;
    CK(cudaDeviceCanAccessPeer(&yes, a, b), a);
    return yes != 0;
  }

  double device_copy(int gpu, std::size_t bytes, int iters) override {
    DeviceBuffer src(gpu, bytes), dst(gpu, bytes);
    cudaStream_t s = stream(gpu);
    return time_on(gpu, s, iters, [&] { CK(cudaMemcpyAsync(dst.ptr, src.ptr, bytes, cudaMemcpyDeviceToDevice, s), gpu); });
  }

  double host_copy(int gpu, std::size_t bytes, bool h2d, int iters) override {
    DeviceBuffer dev(gpu, bytes);
    HostBuffer host(bytes, gpu);
    cudaStream_t s = stream(gpu);
    return time_on(gpu, s, iters, [&] {
      CK(h2d ? cudaMemcpyAsync(dev.ptr, host.ptr, bytes, cudaMemcpyHostToDevice, s)
             : cudaMemcpyAsync(host.ptr, dev.ptr, bytes, cudaMemcpyDeviceToHost, s),
         gpu);
    });
  }

  double host_copy_synced(int gpu, std::size_t bytes, bool h2d, int iters) override {
    DeviceBuffer dev(gpu, bytes);
    HostBuffer host(bytes, gpu);
    cudaStream_t s = stream(gpu);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      CK(h2d ? cudaMemcpyAsync(dev.ptr, host.ptr, bytes, cudaMemcpyHostToDevice, s)
             : cudaMemcpyAsync(host.ptr, dev.ptr, bytes, cudaMemcpyDeviceToHost, s),
         gpu);
      CK(cudaStreamSynchronize(s), gpu);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
  }

  double host_copy_on_node(int gpu, std::size_t bytes, bool h2d, int iters, int numa_node) override {
    DeviceBuffer dev(gpu, bytes);
    NodeHostBuffer host(bytes, numa_node, gpu);
    cudaStream_t s = stream(gpu);
    return time_on(gpu, s, iters, [&] {
      CK(h2d ? cudaMemcpyAsync(dev.ptr, host.ptr, bytes, cudaMemcpyHostToDevice, s)
             : cudaMemcpyAsync(host.ptr, dev.ptr, bytes, cudaMemcpyDeviceToHost, s),
         gpu);
    });
  }

  std::vector<double> host_copy_all(std::size_t bytes, bool h2d, int iters) override {
    std::vector<std::unique_ptr<DeviceBuffer>> dev;
    std::vector<std::unique_ptr<HostBuffer>> host;
    std::vector<cudaEvent_t> start(static_cast<std::size_t>(count_)), stop(start.size());
    for (int d = 0; d < count_; ++d) {
      dev.push_back(std::make_unique<DeviceBuffer>(d, bytes));
      host.push_back(std::make_unique<HostBuffer>(bytes, d));
      CK(cudaEventCreate(&start[static_cast<std::size_t>(d)]), d);
      CK(cudaEventCreate(&stop[static_cast<std::size_t>(d)]), d);
    }
    for (int d = 0; d < count_; ++d) {
      const auto i = static_cast<std::size_t>(d);
      CK(cudaSetDevice(d), d);
      CK(cudaEventRecord(start[i], stream(d)), d);
      for (int k = 0; k < iters; ++k)
        CK(h2d ? cudaMemcpyAsync(dev[i]->ptr, host[i]->ptr, bytes, cudaMemcpyHostToDevice, stream(d))
               : cudaMemcpyAsync(host[i]->ptr, dev[i]->ptr, bytes, cudaMemcpyDeviceToHost, stream(d)),
           d);
      CK(cudaEventRecord(stop[i], stream(d)), d);
    }
    std::vector<double> out;
    for (int d = 0; d < count_; ++d) {
      const auto i = static_cast<std::size_t>(d);
      CK(cudaEventSynchronize(stop[i]), d);
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, start[i], stop[i]), d);
      out.push_back(ms / 1e3 / iters);
      cudaEventDestroy(start[i]);
      cudaEventDestroy(stop[i]);
    }
    return out;
  }

  double host_copy_bidir(int gpu, std::size_t bytes, bool h2d, int iters) override {
    DeviceBuffer dev(gpu, bytes), other_dev(gpu, 2 * bytes);
    HostBuffer host(bytes, gpu), other_host(2 * bytes, gpu);
    CK(cudaSetDevice(gpu), gpu);
    cudaStream_t other = nullptr;
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), gpu);
    cudaStream_t s = stream(gpu);
    // The interfering copy goes the other way with twice the bytes, so it runs for the whole measured copy.
    for (int i = 0; i < iters; ++i) {
      const cudaError_t e =
          h2d ? cudaMemcpyAsync(other_host.ptr, other_dev.ptr, 2 * bytes, cudaMemcpyDeviceToHost, other)
              : cudaMemcpyAsync(other_dev.ptr, other_host.ptr, 2 * bytes, cudaMemcpyHostToDevice, other);
      if (e != cudaSuccess) {
        cudaStreamDestroy(other);
        CK(e, gpu);
      }
    }
    const double t = time_on(gpu, s, iters, [&] {
      CK(h2d ? cudaMemcpyAsync(dev.ptr, host.ptr, bytes, cudaMemcpyHostToDevice, s)
             : cudaMemcpyAsync(host.ptr, dev.ptr, bytes, cudaMemcpyDeviceToHost, s),
         gpu);
    });
    const cudaError_t done = cudaStreamSynchronize(other);
    cudaStreamDestroy(other);
    CK(done, gpu);
    return t;
  }

  double peer_copy(int src, int dst, std::size_t bytes, bool peer_access, int iters) override {
    set_peer(src, dst, peer_access);
    DeviceBuffer a(src, bytes), b(dst, bytes);
    cudaStream_t s = stream(src);
    return time_on(src, s, iters, [&] { CK(cudaMemcpyPeerAsync(b.ptr, dst, a.ptr, src, bytes, s), src); });
  }

  double peer_copy_both(int a, int b, std::size_t bytes, bool peer_access, int iters) override {
    set_peer(a, b, peer_access);
    set_peer(b, a, peer_access);
    DeviceBuffer a0(a, bytes), a1(a, bytes), b0(b, bytes), b1(b, bytes);
    // Both directions start together: b's stream waits for a's start event, a's stop waits for b's.
    cudaEvent_t start, stop, b_done;
    CK(cudaSetDevice(a), a);
    CK(cudaEventCreate(&start), a);
    CK(cudaEventCreate(&stop), a);
    CK(cudaSetDevice(b), b);
    CK(cudaEventCreate(&b_done), b);
    CK(cudaSetDevice(a), a);
    CK(cudaEventRecord(start, stream(a)), a);
    CK(cudaSetDevice(b), b);
    CK(cudaStreamWaitEvent(stream(b), start, 0), b);
    for (int i = 0; i < iters; ++i) {
      CK(cudaMemcpyPeerAsync(b0.ptr, b, a0.ptr, a, bytes, stream(a)), a);
      CK(cudaMemcpyPeerAsync(a1.ptr, a, b1.ptr, b, bytes, stream(b)), b);
    }
    CK(cudaEventRecord(b_done, stream(b)), b);
    CK(cudaSetDevice(a), a);
    CK(cudaStreamWaitEvent(stream(a), b_done, 0), a);
    CK(cudaEventRecord(stop, stream(a)), a);
    CK(cudaEventSynchronize(stop), a);
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop), a);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaEventDestroy(b_done);
    return ms / 1e3 / iters;
  }

  double gemm(int gpu, const std::string& dtype, int m, int n, int k, int iters) override {
    cudaDeviceProp p{};
    CK(cudaGetDeviceProperties(&p, gpu), gpu);
    const int sm = p.major * 10 + p.minor;
    if (dtype == "fp8") {
      if (sm < 89)
        throw Unsupported("FP8 GEMM needs Ada or Hopper (SM 8.9+); GPU " + std::to_string(gpu) + " is SM " +
                          std::to_string(sm));
      return gemm_fp8(gpu, m, n, k, iters);
    }
    const cudaDataType_t in = dtype == "fp16" ? CUDA_R_16F : CUDA_R_16BF;
    const std::size_t el = 2;
    DeviceBuffer A(gpu, el * static_cast<std::size_t>(m) * k), B(gpu, el * static_cast<std::size_t>(k) * n),
        C(gpu, sizeof(float) * static_cast<std::size_t>(m) * n);
    cublasHandle_t h = blas(gpu);
    const float alpha = 1, beta = 0;
    return time_on(gpu, stream(gpu), iters, [&] {
      CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A.ptr, in, m, B.ptr, in, k, &beta, C.ptr,
                      CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
         gpu);
    });
  }

  /// FP8 (E4M3) inputs, BF16 output, FP32 accumulate, through cublasLt: FP8 needs the "TN" layout (A
  /// transposed) and takes per-tensor scales, here 1, each in its own allocation (cudaMalloc's
  /// alignment). The heuristic's candidates are tried in its order, untimed, and the first that runs is
  /// timed: on an H200 with cuBLAS 13.0 its first candidate for 1024^3 returned NOT_SUPPORTED at
  /// cublasLtMatmul. None running is Unsupported (FP8 skipped, the rest of the probe goes on).
  double gemm_fp8(int gpu, int m, int n, int k, int iters) {
    DeviceBuffer A(gpu, static_cast<std::size_t>(k) * m), B(gpu, static_cast<std::size_t>(k) * n),
        D(gpu, 2 * static_cast<std::size_t>(m) * n), a_scale_buf(gpu, sizeof(float)),
        b_scale_buf(gpu, sizeof(float)), workspace(gpu, kWorkspace);
    const float one = 1.0f;
    CK(cudaMemcpy(a_scale_buf.ptr, &one, sizeof one, cudaMemcpyHostToDevice), gpu);
    CK(cudaMemcpy(b_scale_buf.ptr, &one, sizeof one, cudaMemcpyHostToDevice), gpu);
    cublasLtHandle_t lt = blas_lt(gpu);
    cublasLtMatmulDesc_t op = nullptr;
    CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), gpu);
    const cublasOperation_t t = CUBLAS_OP_T, nt = CUBLAS_OP_N;
    const void* a_scale = a_scale_buf.ptr;
    const void* b_scale = b_scale_buf.ptr;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), gpu);
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt), gpu);
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale), gpu);
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale), gpu);
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, m, k), gpu);
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, n, k), gpu);
    CK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, m, n, m), gpu);
    cublasLtMatmulPreference_t pref = nullptr;
    CK(cublasLtMatmulPreferenceCreate(&pref), gpu);
    const std::size_t ws = kWorkspace;
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), gpu);
    cublasLtMatmulHeuristicResult_t candidates[8] = {};
    int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 8, candidates, &found), gpu);
    const auto release = [&] {
      cublasLtMatmulPreferenceDestroy(pref);
      cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb);
      cublasLtMatrixLayoutDestroy(ld);
      cublasLtMatmulDescDestroy(op);
    };
    const float alpha = 1, beta = 0;
    const auto run = [&](const cublasLtMatmulAlgo_t& algo) {
      return cublasLtMatmul(lt, op, &alpha, A.ptr, la, B.ptr, lb, &beta, D.ptr, ld, D.ptr, ld, &algo,
                            workspace.ptr, kWorkspace, stream(gpu));
    };
    const cublasLtMatmulAlgo_t* chosen = nullptr;
    cublasStatus_t last = CUBLAS_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < found && chosen == nullptr; ++i) {
      last = run(candidates[i].algo);
      if (last == CUBLAS_STATUS_SUCCESS) chosen = &candidates[i].algo;
    }
    if (chosen == nullptr) {
      release();
      throw Unsupported("cublasLt ran none of its " + std::to_string(found) + " FP8 candidate(s) for " +
                        std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " on GPU " +
                        std::to_string(gpu) + " (last status " + std::to_string(static_cast<int>(last)) +
                        ")");
    }
    CK(cudaStreamSynchronize(stream(gpu)), gpu);
    const double seconds = time_on(gpu, stream(gpu), iters, [&] { CK(run(*chosen), gpu); });
    release();
    return seconds;
  }

  double collective(const std::string& op, const std::vector<int>& gpus, std::size_t size, int iters) override {
    const std::vector<ncclComm_t>& comms = communicator(gpus);
    const std::size_t n = gpus.size();
    // Buffers sized as nccl-tests sizes them: `size` bytes of floats; all_gather and reduce_scatter use
    // size / n per rank on their small side, alltoall size / n per peer.
    const std::size_t count = size / sizeof(float);
    std::vector<std::unique_ptr<DeviceBuffer>> send, recv;
    for (int g : gpus) {
      send.push_back(std::make_unique<DeviceBuffer>(g, size));
      recv.push_back(std::make_unique<DeviceBuffer>(g, size));
    }
    const auto run_once = [&] {
      CK(ncclGroupStart(), gpus.front());
      for (std::size_t r = 0; r < n; ++r) {
        const int g = gpus[r];
        void* s = send[r]->ptr;
        void* d = recv[r]->ptr;
        cudaStream_t st = stream(g);
        if (op == "all_reduce") {
          CK(ncclAllReduce(s, d, count, ncclFloat, ncclSum, comms[r], st), g);
        } else if (op == "all_gather") {
          CK(ncclAllGather(s, d, count / n, ncclFloat, comms[r], st), g);
        } else if (op == "reduce_scatter") {
          CK(ncclReduceScatter(s, d, count / n, ncclFloat, ncclSum, comms[r], st), g);
        } else if (op == "alltoall") {
          const std::size_t per = count / n;
          for (std::size_t peer = 0; peer < n; ++peer) {
            CK(ncclSend(static_cast<float*>(s) + peer * per, per, ncclFloat, static_cast<int>(peer), comms[r], st), g);
            CK(ncclRecv(static_cast<float*>(d) + peer * per, per, ncclFloat, static_cast<int>(peer), comms[r], st), g);
          }
        } else if (op == "sendrecv") {
          CK(ncclSend(s, count, ncclFloat, static_cast<int>((r + 1) % n), comms[r], st), g);
          CK(ncclRecv(d, count, ncclFloat, static_cast<int>((r + n - 1) % n), comms[r], st), g);
        } else {
          throw DeviceError("collective \"" + op + "\" is not one the probe runs");
        }
      }
      CK(ncclGroupEnd(), gpus.front());
    };
    // Every rank's stream is timed by rank 0's events after the others are joined to it.
    std::vector<cudaEvent_t> done(n);
    for (std::size_t r = 0; r < n; ++r) {
      CK(cudaSetDevice(gpus[r]), gpus[r]);
      CK(cudaEventCreateWithFlags(&done[r], cudaEventDisableTiming), gpus[r]);
    }
    const int lead = gpus.front();
    const double seconds = time_on(lead, stream(lead), 1, [&] {
      for (int i = 0; i < iters; ++i) run_once();
      for (std::size_t r = 1; r < n; ++r) {
        CK(cudaSetDevice(gpus[r]), gpus[r]);
        CK(cudaEventRecord(done[r], stream(gpus[r])), gpus[r]);
        CK(cudaSetDevice(lead), lead);
        CK(cudaStreamWaitEvent(stream(lead), done[r], 0), lead);
      }
    });
    for (cudaEvent_t e : done) cudaEventDestroy(e);
    return seconds / iters;
  }

 private:
  cudaStream_t stream(int d) { return streams_[static_cast<std::size_t>(d)]; }

  void set_peer(int a, int b, bool on) {
    int can = 0;
    CK(cudaDeviceCanAccessPeer(&can, a, b), a);
    CK(cudaSetDevice(a), a);
    if (on && can) {
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e != cudaErrorPeerAccessAlreadyEnabled) check(e, "cudaDeviceEnablePeerAccess", a);
    } else if (can) {
      const cudaError_t e = cudaDeviceDisablePeerAccess(b);
      if (e != cudaErrorPeerAccessNotEnabled) check(e, "cudaDeviceDisablePeerAccess", a);
    }
    cudaGetLastError();  // the tolerated "already" errors are sticky until read
  }

  cublasLtHandle_t blas_lt(int d) {
    auto it = blas_lt_.find(d);
    if (it != blas_lt_.end()) return it->second;
    CK(cudaSetDevice(d), d);
    cublasLtHandle_t h = nullptr;
    CK(cublasLtCreate(&h), d);
    return blas_lt_[d] = h;
  }

  cublasHandle_t blas(int d) {
    auto it = blas_.find(d);
    if (it != blas_.end()) return it->second;
    CK(cudaSetDevice(d), d);
    cublasHandle_t h = nullptr;
    CK(cublasCreate(&h), d);
    CK(cublasSetStream(h, stream(d)), d);
    return blas_[d] = h;
  }

  const std::vector<ncclComm_t>& communicator(const std::vector<int>& gpus) {
    auto it = comms_.find(gpus);
    if (it != comms_.end()) return it->second;
    std::vector<ncclComm_t> comms(gpus.size());
    CK(ncclCommInitAll(comms.data(), static_cast<int>(gpus.size()), gpus.data()), gpus.front());
    return comms_[gpus] = std::move(comms);
  }

  int count_;
  std::vector<cudaStream_t> streams_;
  std::map<int, cublasHandle_t> blas_;
  std::map<int, cublasLtHandle_t> blas_lt_;
  static constexpr std::size_t kWorkspace = 32u << 20;  // cublasLt workspace (NVIDIA's FP8 samples use 32 MiB)
  std::map<std::vector<int>, std::vector<ncclComm_t>> comms_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    return nullptr;
  }
  if (count == 0) {
    why = "cudaGetDeviceCount found no device";
    return nullptr;
  }
  return std::make_unique<CudaBackend>(count);
}

}  // namespace rigsim::probe
