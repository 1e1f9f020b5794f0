// What rigsim-probe measures and how: the plan (sizes, shapes, repetitions), the runs through a
// Backend, medians and spread, and the rigsim-measurements/1 document they make.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "calibration/measurements.hpp"
#include "kernels/probe/backend.hpp"

namespace rigsim::probe {

/// The parts of a run, as --only names them.
inline const std::vector<std::string> kParts{"memory", "host", "p2p", "gemm", "nccl"};

struct ProbeOptions {
  std::string output = "rigsim-measurements.json";
  std::string layout_output;  // "": next to the output, "<output stem>-layout.json"
  std::string
      nccl_topo_output;  // "": next to the output, "<output stem>-nccl-topo.xml" (NCCL_TOPO_DUMP_FILE)
  bool quick = false;
  std::set<std::string> only;           // empty: every part
  int reps = 0;                         // timed repetitions per value (0: 5, or 3 with --quick)
  bool force = false;                   // replace existing output files
  bool sketch = true;                   // write a layout sketch from `nvidia-smi topo -m`
  std::vector<std::string> gpu_models;  // catalog keys for the sketch when a GPU's name matches none
  std::string cpu_model;                // the same for the CPU
  /// Per GPU: the NUMA node farthest from the GPU's (farthest_memory_node), -1 for none; filled by the
  /// program from sysfs before the run. GPUs with one get H2D/D2H from that node's memory.
  std::vector<int> remote_nodes;
};

/// Sizes and shapes of a run.
struct Plan {
  std::size_t copy_bytes = 0;           // device, host and peer copies
  std::size_t latency_bytes = 4;        // one int, as p2pBandwidthLatencyTest
  std::vector<std::size_t> nccl_sizes;  // every GPU
  std::vector<std::size_t> pair_sizes;  // each pair of GPUs
  std::vector<std::array<int, 3>> gemm_shapes;
  int reps = 5;
};
Plan make_plan(const ProbeOptions& o);

/// Median, min and max of repeated timings.
struct Summary {
  double median = 0, min = 0, max = 0;
  int samples = 0;
  double spread() const { return median > 0 ? (max - min) / median : 0; }
};
/// One warm-up call, then `reps` timed ones. Throws std::invalid_argument for reps < 1.
Summary repeat(const std::function<double()>& once, int reps);
Summary summarize(std::vector<double> samples);

/// Back-to-back runs in one timed window: enough that the window is long against launch and event
/// overheads (about 100 ms of traffic at a few GB/s), at least 1 and at most 100.
int iterations_for(std::size_t bytes);

/// GEMMs back to back in one timed window, from one untimed GEMM's time: a window of about 20 ms, at
/// least 10 and at most 1000 GEMMs. With a fixed 10, a 1024^3 BF16 GEMM on an H200 (13 us) gave a
/// 126 us window and a spread of 72 % between windows (the first run on hardware, docs/DECISIONS.md).
int gemm_iterations(double one_gemm_seconds);

class Runner {
 public:
  Runner(Backend& backend, const ProbeOptions& options, std::ostream& progress);
  /// Every part of the plan that --only selects, as series; GPUs and versions into m.rig.
  calibration::Measurements run();

 private:
  bool wanted(const std::string& part) const;
  void step(const std::string& what);
  void memory(calibration::Measurements& m);
  void host(calibration::Measurements& m);
  /// One bandwidth series per direction, each GPU in turn: `seconds(gpu, h2d)` times one copy of
  /// copy_bytes; `what` ends the series' command and progress lines.
  void host_bandwidth(calibration::Measurements& m, const std::string& what, bool bidirectional,
                      const std::function<double(int, bool)>& seconds);
  void remote_host(calibration::Measurements& m);
  void peer(calibration::Measurements& m);
  void gemm(calibration::Measurements& m);
  void nccl(calibration::Measurements& m);
  calibration::Series collective(const std::string& op, const std::vector<int>& gpus,
                                 const std::vector<std::size_t>& sizes);
  calibration::Point point(const Summary& s) const;

  Backend& backend_;
  const ProbeOptions& options_;
  Plan plan_;
  std::ostream& progress_;
  std::vector<GpuInfo> gpus_;
  int steps_ = 0;
};

}  // namespace rigsim::probe
