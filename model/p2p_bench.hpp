// p2pBandwidthLatencyTest and bandwidthTest on a simulated server (`rigsim p2p`).
//
// What each figure means, as in the CUDA samples:
// - P2P=Disabled: cudaMemcpyPeer stages the copy through pinned memory of the sender's socket in
//   chunks c (CostModel::staging_chunk_of). The D2H of one chunk overlaps the H2D of the one before:
//   a lone copy of S bytes takes about (n + 1) c / B + n t_sync with n = S / c. GeForce Turing and
//   Ampere cards take turns through one buffer: 2 S / B + (2n - 1) t_sync. Both directions at once
//   share the links' duplex budget and, since one process's pinned buffers all sit in one NUMA node
//   (Linux's local allocation, set_mempolicy(2); rigsim: the pair's first GPU's), that node's memory.
// - P2P=Enabled: what the driver would actually do: a direct copy (NVLink when present) when
//   cudaDeviceCanAccessPeer would say yes (topology::driver_peer_access), else still staged.
// - Unidirectional: one copy alone, bytes / time. Bidirectional: both directions at once, the sum.
// - Diagonal: a device-local copy. It reads and writes device memory, and the sample counts both, so
//   it shows memory bandwidth x gpu_memory_efficiency (time of S bytes = 2S / that).
// - Latency: a zero-byte copy (the route's latency); diagonal: the P2P setup latency alone.
// - H2D / D2H: pinned memory on the GPU's own socket, each GPU alone (bandwidthTest); and nvbandwidth's
//   host tests (testcases_ce.cpp): the measured copy of one GPU while the other direction runs on the
//   same GPU (*_bidirectional_memcpy_ce), while every other GPU copies the same way (host_to_all,
//   all_to_host), or both (*_bidirectional_memcpy_ce of all). Each interfering copy is twice the size so
//   it lasts the whole measurement, and the figure is the measured copy's own rate. Its SM write copies
//   (GPU to peer, GPU to host) move 128-byte payloads; its SM reads (bound by the requests in flight
//   and their round trip) are not simulated.
// Every measurement is simulated in one run, one after the other, so they never overlap.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/platform.hpp"

namespace rigsim::model {

struct P2pBenchOptions {
  Bytes size{256.0 * 1024 * 1024};  // bytes per copy (the CUDA sample uses 40 M ints = 160 MB)
};

using Matrix = std::vector<std::vector<double>>;

/// Why one kind of GPU pair gets its one-way figure (one copy alone), shown on the kind's first pair:
/// pairs are of one kind when their way (direct or staged), their path class and their figures agree.
struct P2pWhy {
  bool enabled = false;          // the P2P=Enabled matrix (what the driver would do), else P2P=Disabled
  bool peer = false;             // a direct copy with peer access, else staged through host memory
  std::size_t src = 0, dst = 0;  // GPU indices of the first pair of this kind
  std::size_t pairs = 0;         // ordered GPU pairs of this kind in that matrix
  std::string path;              // the pair's path class as nvidia-smi / NCCL name it (PIX, PHB, SYS, NVL)
  std::string access;            // P2P=Enabled: cudaDeviceCanAccessPeer's answer and why (of this pair)
  double gbps = 0;               // the simulated one-way figure of the first pair
  std::string limit;             // direct: the link that limits a lone copy; staged: the slower leg's
  double limit_gbps = 0;         // direct: the copy's rate alone there (payload); staged: the slower leg
  bool capped = false;           // the link's per-transfer limit holds the copy (PlatformLink::flow_cap)
  // Direct only: the P2P=Enabled latency and what sets it (calibration::p2p_write_latency_basis).
  double latency_us = 0;
  std::string latency_basis;
  // Staged only: the driver's staging as rigsim runs it (p2p_bench.cpp staging_overhead).
  double d2h_gbps = 0, h2d_gbps = 0;  // each leg alone
  std::string d2h_limit, h2d_limit;
  std::vector<std::string> shared;  // shared (non-duplex) links both legs cross, e.g. the memory
  bool overlapped = false;          // a chunk's D2H beside the previous chunk's H2D; else turns
  double chunk_bytes = 0, chunks = 0, handoffs = 0, sync_us = 0;
};

/// Why one kind of GPU gets its figure in one of nvbandwidth's host tests: the link of the measured
/// copy's route that the test's copies crowd most (its rate over the copies crossing it that way), shown
/// on the kind's first GPU; GPUs are of one kind when the test, the crowded link's rate, the copies on it
/// and the figure agree (the link itself is the first GPU's).
struct HostTestWhy {
  std::string test;        // "H2D all", "D2H all", "H2D bidir", "D2H bidir", "H2D all bidir", "D2H all bidir"
  std::size_t gpu = 0;     // the kind's first GPU
  std::size_t gpus = 0;    // GPUs of this kind
  double gbps = 0;         // the simulated figure of that GPU
  std::string limit;       // the crowded link, as crossed ("sw0->rc0", "cpu0/dram", "rc0<->sw0/both")
  double limit_gbps = 0;   // its rate (link bytes)
  std::size_t copies = 0;  // the test's copies crossing it that way, the measured one included
};

struct P2pBenchResult {
  std::string layout;
  std::string cost_model;  // CostModel::source
  Bytes size;
  std::vector<std::string> gpus;                          // device names, GPU i = i-th GPU of the layout
  std::vector<std::string> models;                        // catalog names of the GPUs
  std::vector<std::vector<bool>> can_access;              // cudaDeviceCanAccessPeer
  Matrix uni_p2p_off, uni_p2p_on, bi_p2p_off, bi_p2p_on;  // GB/s
  Matrix latency_us_p2p_off, latency_us_p2p_on;           // microseconds
  std::vector<double> h2d_gbps, d2h_gbps;
  /// nvbandwidth's SM (kernel) write copies: device_to_device_memcpy_write_sm, a kernel on GPU i storing
  /// to GPU j where the pair has peer access (0 where it has none: the tool waives those pairs), and
  /// device_to_host_memcpy_sm, a kernel storing to pinned memory of its own socket. SMs store 128-byte
  /// payloads: over NVLink the link's kernel rate (NCCL's figure), over PCIe 128-byte TLPs.
  Matrix uni_p2p_on_sm;
  std::vector<double> d2h_sm_gbps;
  /// nvbandwidth's all_to_one / one_to_all copy-engine tests, GB/s in all: every other GPU with peer
  /// access copying to GPU i at once (fan in), GPU i copying to every other at once (fan out); total
  /// bytes over the time from the first start to the last finish (its TOTAL_BW). 0 without peers.
  std::vector<double> fan_in_gbps, fan_out_gbps;
  /// The host tests' explanations, by test, then by GPU kind.
  std::vector<HostTestWhy> host_why;
  /// nvbandwidth's host tests, GB/s of GPU i's measured copy: every GPU copying the same way
  /// (host_to_all / all_to_host_memcpy_ce); the other direction on the same GPU at once
  /// (host_to_device / device_to_host_bidirectional_memcpy_ce); both directions on every GPU
  /// (host_to_all / all_to_host_bidirectional_memcpy_ce).
  std::vector<double> h2d_concurrent_gbps, d2h_concurrent_gbps, h2d_bidir_gbps, d2h_bidir_gbps,
      h2d_concurrent_bidir_gbps, d2h_concurrent_bidir_gbps;
  /// One zero-byte pinned copy to / from the GPU's own socket, alone: the transport's setup
  /// (CostModel::host_copy_latency) and the route's link latencies, microseconds.
  std::vector<double> h2d_latency_us, d2h_latency_us;
  /// Pinned host memory on another socket of the GPU's server (rigsim-probe's "remote" NUMA node):
  /// the first other socket in layout order; 0 where the server has one socket.
  std::vector<double> h2d_remote_gbps, d2h_remote_gbps;
  /// The kinds of GPU pair in the P2P=Enabled matrix, then in the P2P=Disabled one, in pair order.
  std::vector<P2pWhy> why;
};

/// The socket a "remote" host copy of `gpu` uses: the first CPU socket of its server other than its
/// own; nullopt on a one-socket server.
std::optional<topology::DeviceId> remote_socket(const topology::Topology& topo, topology::DeviceId gpu);

/// nvbandwidth's host test for the layout's GPU `gpu` as the tool runs it (testcases_ce.cpp): its copy
/// of `size` between the GPU and pinned memory of its own socket first, then the interfering copies of
/// twice the size: the other direction on the same GPU (`bidirectional`), every other GPU the same way
/// (`all`), or both.
std::vector<Transfer> host_test_copies(const Platform& p, std::size_t gpu, bool h2d, bool bidirectional,
                                       bool all, Bytes size);

/// The link of the first copy's route that `copies` crowd most: the lowest rate over the copies crossing
/// it that way (a duplex link's two directions apart). What limits a host test's measured copy, as its
/// explanation (HostTestWhy) and `validate`'s attribution name it.
struct CrowdedLink {
  Crossing hop;            // the link, as the first copy crosses it
  std::size_t copies = 0;  // the copies crossing it that way, the first included
};
CrowdedLink crowded_link(const Platform& p, const std::vector<Transfer>& copies);

/// Runs every measurement; throws std::invalid_argument for a size that is not positive or above 2^40.
P2pBenchResult run_p2p_bench(const Platform& platform, const Executor& execute,
                             const P2pBenchOptions& options = {});

}  // namespace rigsim::model
