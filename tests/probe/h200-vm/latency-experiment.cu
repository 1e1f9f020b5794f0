// One-off experiment run on the lent H200 (2026-11-27), kept as the record of how the host-copy
// latency figures in docs/DECISIONS.md ("Host-copy latency measured") were taken; not built by CMake.
// nvcc -O2 -arch=sm_90 -o latency-experiment latency-experiment.cu
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x)                                           \
  do {                                                  \
    cudaError_t err_ = (x);                             \
    if (err_ != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(err_)); \
      exit(1);                                          \
    }                                                   \
  } while (0)
using clk = std::chrono::steady_clock;
static double us_since(clk::time_point t) {
  return std::chrono::duration<double, std::micro>(clk::now() - t).count();
}
int main() {
  void *d, *h, *hp;
  CK(cudaMalloc(&d, 64 << 20));
  CK(cudaMallocHost(&h, 64 << 20));
  hp = malloc(64 << 20);
  memset(hp, 1, 64 << 20);
  cudaStream_t s, s2;
  CK(cudaStreamCreate(&s));
  CK(cudaStreamCreate(&s2));
  cudaEvent_t a, b, e;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const int N = 1000;
  auto ev = [&](auto body) {
    for (int w = 0; w < 50; ++w) body();
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < N; ++i) body();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e3 / N;
  };
  auto wall = [&](auto body) {
    for (int w = 0; w < 50; ++w) body();
    auto t = clk::now();
    for (int i = 0; i < N; ++i) body();
    return us_since(t) / N;
  };
  printf("h2d_4B_async_us %.3f\n", ev([&] { CK(cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, s)); }));
  printf("d2h_4B_async_us %.3f\n", ev([&] { CK(cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s)); }));
  printf("h2d_4B_sync_wall_us %.3f\n", wall([&] {
           CK(cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, s));
           CK(cudaStreamSynchronize(s));
         }));
  printf("d2h_4B_sync_wall_us %.3f\n", wall([&] {
           CK(cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s));
           CK(cudaStreamSynchronize(s));
         }));
  printf("d2h_sync_h2d_sync_wall_us %.3f\n", wall([&] {
           CK(cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s));
           CK(cudaStreamSynchronize(s));
           CK(cudaMemcpyAsync((char*)d + 64, h, 4, cudaMemcpyHostToDevice, s));
           CK(cudaStreamSynchronize(s));
         }));
  printf("d2h_h2d_same_stream_async_us %.3f\n", ev([&] {
           CK(cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s));
           CK(cudaMemcpyAsync((char*)d + 64, h, 4, cudaMemcpyHostToDevice, s));
         }));
  printf("d2h_event_h2d_other_stream_async_us %.3f\n", ev([&] {
           CK(cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s));
           CK(cudaEventRecord(e, s));
           CK(cudaStreamWaitEvent(s2, e, 0));
           CK(cudaMemcpyAsync((char*)d + 64, h, 4, cudaMemcpyHostToDevice, s2));
           CK(cudaEventRecord(e, s2));
           CK(cudaStreamWaitEvent(s, e, 0));
         }));
  printf("memcpy_d2d_4B_async_us %.3f\n",
         ev([&] { CK(cudaMemcpyAsync((char*)d + 4096, d, 4, cudaMemcpyDeviceToDevice, s)); }));
  printf("peer_self_4B_async_us %.3f\n",
         ev([&] { CK(cudaMemcpyPeerAsync((char*)d + 4096, 0, d, 0, 4, s)); }));
  for (size_t sz :
       {4096ul, 65536ul, 262144ul, 1ul << 20, 2ul << 20, 4ul << 20, 8ul << 20, 16ul << 20, 64ul << 20}) {
    const int n = sz >= (16ul << 20) ? 20 : 200;
    for (int w = 0; w < 5; ++w) CK(cudaMemcpy(d, hp, sz, cudaMemcpyHostToDevice));
    auto t = clk::now();
    for (int i = 0; i < n; ++i) CK(cudaMemcpy(d, hp, sz, cudaMemcpyHostToDevice));
    double u = us_since(t) / n;
    for (int w = 0; w < 5; ++w) CK(cudaMemcpy(hp, d, sz, cudaMemcpyDeviceToHost));
    auto t2 = clk::now();
    for (int i = 0; i < n; ++i) CK(cudaMemcpy(hp, d, sz, cudaMemcpyDeviceToHost));
    double u2 = us_since(t2) / n;
    auto t3 = clk::now();
    for (int i = 0; i < n; ++i) CK(cudaMemcpy(d, h, sz, cudaMemcpyHostToDevice));
    double u3 = us_since(t3) / n;
    printf(
        "pageable_h2d %zu us %.2f GB/s %.2f | pageable_d2h us %.2f GB/s %.2f | pinned_h2d_sync us %.2f GB/s "
        "%.2f\n",
        sz, u, sz / u / 1e3, u2, sz / u2 / 1e3, u3, sz / u3 / 1e3);
  }
  return 0;
}
