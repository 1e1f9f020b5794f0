// Measurements of one real rig, in rigsim's versioned JSON schema "rigsim-measurements/1": what the
// parsers (nccl-tests, p2pBandwidthLatencyTest, bandwidthTest, nvbandwidth) read from tool output,
// what rigsim-probe writes, what `rigsim validate` re-simulates and `rigsim calibrate` fits.
// The format is documented in docs/measurements-format.md. No SimGrid, no model here.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rigsim::calibration {

inline constexpr std::string_view kMeasurementsSchema = "rigsim-measurements/1";

/// What a series measured.
enum class Test {
  Collective,  // an NCCL collective over a sweep of sizes (nccl-tests, the probe)
  PeerCopy,    // GPU -> GPU copies (cudaMemcpyPeer: p2pBandwidthLatencyTest, nvbandwidth d2d)
  HostCopy,    // pinned host <-> GPU copies (bandwidthTest, nvbandwidth h2d/d2h)
  DeviceCopy,  // a device-local copy (the diagonal of p2pBandwidthLatencyTest, bandwidthTest D2D)
  Gemm,        // a dense matrix multiply on one GPU (cuBLAS), throughput per shape
};
std::string_view to_string(Test t);

struct RigGpu {
  int index = 0;       // CUDA device index: GPU i is the i-th GPU of the rig's layout
  std::string name;    // as the tool printed it ("NVIDIA GeForce RTX 2080 Ti")
  std::string bus_id;  // "0000:1a:00.0" or as printed; empty when unknown
  // The PCIe link as the OS saw it (sysfs); 0 / -1 when unknown. A card trained below its maximum
  // (x8 in an x16 slot, Gen3 behind a Gen4 riser) is the first thing to check.
  int link_gen = 0, link_width = 0, max_link_gen = 0, max_link_width = 0;
  int numa = -1;
  bool peer_access_any = false;  // cudaDeviceCanAccessPeer said yes to some other GPU (informational)
};

/// The machine the numbers came from.
struct Rig {
  std::string name;    // free text: "2x RTX 2080 Ti under one PCIe switch (AutoDL container)"
  std::string layout;  // optional: a rigsim layout, relative to the measurements file
  std::string host;
  std::vector<RigGpu> gpus;
  std::string cpu, driver, cuda, nccl;  // as reported; empty when unknown
};

/// One measured value. Which fields apply depends on the series' Test:
/// - Collective: bytes (nccl-tests' "size" column), time_us and busbw_gbs/algbw_gbs of the
///   out-of-place run; the in-place run in in_place_*.
/// - PeerCopy: src, dst, bytes per copy, and either gbps (bidirectional: both directions summed, as
///   the CUDA sample prints it) or latency_us (a latency series).
/// - HostCopy / DeviceCopy: src is the GPU, bytes per copy, gbps; a host-copy latency series: the
///   time of one small copy in latency_us (bytes optional: the copy's size).
/// - Gemm: src is the GPU, m x n x k, tflops (2 m n k / time, dense).
struct Point {
  std::string id;  // optional, for people and dev cases
  std::uint64_t bytes = 0;
  double time_us = 0;
  double algbw_gbs = 0;
  double busbw_gbs = 0;
  double in_place_time_us = 0;
  double in_place_busbw_gbs = 0;
  int src = -1;
  int dst = -1;
  double gbps = 0;
  double latency_us = 0;
  std::uint64_t m = 0, n = 0, k = 0;
  double tflops = 0;
  int samples = 0;                  // repetitions behind the value (the value is their median); 0: not stated
  double spread = 0;                // (max - min) / median over those repetitions; 0: not stated
  std::string source, quote, note;  // where a published number comes from (dev cases)
};

struct Series {
  std::string tool;          // "nccl-tests", "p2pBandwidthLatencyTest", "bandwidthTest", "nvbandwidth", ...
  std::string tool_version;  // empty when unknown
  std::string command;       // as run, when known
  Test test = Test::Collective;
  // Collective
  std::string op;                                        // all_reduce, all_gather, reduce_scatter, alltoall,
                                                         // broadcast, reduce, sendrecv
  std::vector<int> gpus;                                 // ranks in order (device indices); empty: all
  int nodes = 1;                                         // servers (ranks = nodes x GPUs per node)
  std::vector<std::pair<std::string, std::string>> env;  // NCCL_* settings of the run
  int gpus_per_thread = 0;  // nccl-tests' own -g (nGpus): GPUs one thread launches; 0: not stated, as
                            // one process per server (model::BenchOptions::gpus_per_thread)
  // PeerCopy
  bool peer_access = true;  // the sample's P2P=Enabled (peer access where the driver allows it)
  bool bidirectional = false;
  bool latency = false;  // points carry latency_us instead of gbps (PeerCopy and HostCopy)
  // "copy": "sm": a copy kernel's stores (nvbandwidth *_write_sm, device_to_host_memcpy_sm).
  bool sm_copy = false;
  // PeerCopy "fan": "in": every other GPU with peer access copies to the point's GPU at once
  // (nvbandwidth all_to_one_write_ce, one_to_all_read_ce); "out": it copies to every other GPU at once
  // (one_to_all_write_ce, all_to_one_read_ce). Points carry `gpu` (as src); the figure is the total.
  std::string fan;
  // HostCopy
  std::string direction;    // "h2d" or "d2h"
  bool concurrent = false;  // every GPU at once (points then give each GPU's share)
  // HostCopy with `bidirectional`: the other direction runs on the same GPU (and, concurrent, on every
  // GPU) at the same time, as nvbandwidth's *_bidirectional_memcpy_ce; the point is `direction`'s rate.
  bool remote = false;      // "host_memory": "remote": pinned memory on a NUMA node of another socket
  // Gemm
  std::string dtype;          // "bf16", "fp16", "fp8", "tf32", "fp32" (inputs; accumulate in FP32)
  std::string source, quote;  // inherited by points that have none
  std::vector<Point> points;
};

/// Two points of one rig that differ in one setting (a BIOS memory mode, the GPU count, an NCCL
/// variable, the copy's direction): `rigsim validate` checks that the prediction moves the way the
/// measurement does. Both points carry ids and are compared on the same metric.
struct Pair {
  std::string a, b;     // point ids
  std::string changed;  // what differs between them, for people ("BIOS memory mode UMA -> NUMA")
};

struct Measurements {
  Rig rig;
  std::vector<Series> series;
  std::vector<Pair> pairs;
  std::string file;  // where it was read from ("" when built in memory)
};

/// Reads and checks a measurements file: schema string, required keys per test, ranges (sizes and
/// rates positive, device indices in the rig), unknown keys rejected; errors name the file and JSON
/// pointer (rigsim::InputError).
Measurements load_measurements(const std::string& path);
Measurements measurements_from_json(const nlohmann::json& doc, const std::string& file);
nlohmann::json to_json(const Measurements& m);
/// Writes `m` as JSON atomically (temp file + rename). Throws rigsim::InputError on failure.
void save_measurements(const Measurements& m, const std::string& path);

/// The value a point is compared on, and its unit: "busbw" GB/s (collective; else "algbw" GB/s, else
/// "time" us), "bandwidth" GB/s (copies), "latency" us.
struct Metric {
  std::string_view name;
  std::string_view unit;
  double value = 0;
  bool higher_is_faster = true;
};
Metric metric_of(const Series& s, const Point& p);

}  // namespace rigsim::calibration
