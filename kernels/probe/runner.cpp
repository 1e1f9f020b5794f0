// Runner: the probe's measurement plan, run through a Backend. Values are medians of `reps` timed
// windows after one warm-up window; rates use the same definitions as the tools rigsim re-simulates
// (p2pBandwidthLatencyTest, bandwidthTest, nccl-tests), so validate compares like with like.
#include "kernels/probe/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "model/nccl_tests.hpp"

namespace rigsim::probe {
namespace {

using calibration::Point;
using calibration::Series;
using calibration::Test;

constexpr std::size_t kMiB = 1024 * 1024;

Series series(Test t, const std::string& what) {
  Series s;
  s.tool = "rigsim-probe";
  s.test = t;
  s.command = what;
  return s;
}

double gbps(std::size_t bytes, double seconds) {
  return static_cast<double>(bytes) / seconds / 1e9;
}

std::string size_text(std::size_t bytes) {
  char buf[32];
  if (bytes >= kMiB)
    std::snprintf(buf, sizeof buf, "%zu MiB", bytes / kMiB);
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%zu KiB", bytes / 1024);
  else
    std::snprintf(buf, sizeof buf, "%zu B", bytes);
  return buf;
}

}  // namespace

Plan make_plan(const ProbeOptions& o) {
  Plan p;
  p.reps = o.reps > 0 ? o.reps : o.quick ? 3 : 5;
  // 256 MiB copies (nvbandwidth's default is 512 MiB, p2pBandwidthLatencyTest's 40 MB): long enough that
  // fixed costs are under 1 % on a 50 GB/s link, short enough for a full matrix in a minute.
  p.copy_bytes = (o.quick ? 64 : 256) * kMiB;
  if (o.quick) {
    p.nccl_sizes = {1024, kMiB, 64 * kMiB};
    p.pair_sizes = {kMiB, 64 * kMiB};
    p.gemm_shapes = {{2048, 2048, 2048}, {8192, 8192, 8192}};
    return p;
  }
  for (std::size_t s = 8; s <= 1024 * kMiB; s *= 8) p.nccl_sizes.push_back(s);  // 8 B .. 1 GiB, x8
  p.pair_sizes = {4096, kMiB, 64 * kMiB, 256 * kMiB};
  // Cubes across the tile/wave regimes, a short-k shape, and a Llama-class MLP projection.
  p.gemm_shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                   {8192, 8192, 8192}, {8192, 8192, 1024}, {4096, 14336, 4096}};
  return p;
}

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("no samples");
  std::sort(samples.begin(), samples.end());
  Summary s;
  const std::size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples.front();
  s.max = samples.back();
  s.samples = static_cast<int>(n);
  return s;
}

Summary repeat(const std::function<double()>& once, int reps) {
  if (reps < 1) throw std::invalid_argument("at least one repetition");
  (void)once();  // warm-up: first-touch allocation, peer mapping, NCCL connection setup
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(once());
  return summarize(std::move(t));
}

int iterations_for(std::size_t bytes) {
  const double window = 0.1 * 5e9;  // 100 ms at 5 GB/s
  return static_cast<int>(
      std::clamp(window / static_cast<double>(std::max<std::size_t>(bytes, 1)), 1.0, 100.0));
}

int gemm_iterations(double one_gemm_seconds) {
  if (!(one_gemm_seconds > 0)) return 1000;
  return static_cast<int>(std::clamp(std::ceil(0.02 / one_gemm_seconds), 10.0, 1000.0));
}

Runner::Runner(Backend& backend, const ProbeOptions& options, std::ostream& progress)
    : backend_(backend), options_(options), plan_(make_plan(options)), progress_(progress) {}

bool Runner::wanted(const std::string& part) const {
  return options_.only.empty() || options_.only.contains(part);
}

void Runner::step(const std::string& what) {
  progress_ << "rigsim-probe: [" << ++steps_ << "] " << what << std::endl;
}

Point Runner::point(const Summary& s) const {
  Point p;
  p.samples = s.samples;
  p.spread = s.spread();
  return p;
}

calibration::Measurements Runner::run() {
  calibration::Measurements m;
  gpus_ = backend_.gpus();
  if (gpus_.empty()) throw DeviceError("no GPU to measure");
  const Versions v = backend_.versions();
  m.rig.driver = v.driver;
  m.rig.cuda = v.cuda;
  m.rig.nccl = v.nccl;
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    calibration::RigGpu g;
    g.index = static_cast<int>(i);
    g.name = gpus_[i].name;
    g.bus_id = gpus_[i].bus_id;
    for (std::size_t j = 0; j < gpus_.size(); ++j)
      g.peer_access_any =
          g.peer_access_any || (i != j && backend_.can_access_peer(static_cast<int>(i), static_cast<int>(j)));
    m.rig.gpus.push_back(g);
  }
  if (wanted("memory")) memory(m);
  if (wanted("host")) host(m);
  const auto needs_two = [&](const char* part) {
    if (!wanted(part)) return false;
    if (gpus_.size() > 1) return true;
    progress_ << "rigsim-probe: " << part << " skipped: it needs two GPUs and this machine shows one"
              << std::endl;
    return false;
  };
  if (needs_two("p2p")) peer(m);
  if (wanted("gemm")) gemm(m);
  if (needs_two("nccl")) nccl(m);
  return m;
}

void Runner::memory(calibration::Measurements& m) {
  Series s = series(Test::DeviceCopy, "cudaMemcpy device to device");
  const std::size_t bytes = plan_.copy_bytes;
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
    step("device memory, GPU " + std::to_string(g));
    const Summary t =
        repeat([&] { return backend_.device_copy(g, bytes, iterations_for(bytes)); }, plan_.reps);
    Point p = point(t);
    p.src = g;
    p.bytes = bytes;
    p.gbps = 2 * gbps(bytes, t.median);  // read and written, as the CUDA samples count a local copy
    s.points.push_back(p);
  }
  m.series.push_back(std::move(s));
}

void Runner::host_bandwidth(calibration::Measurements& m, const std::string& what, bool bidirectional,
                            const std::function<double(int, bool)>& seconds) {
  const std::size_t bytes = plan_.copy_bytes;
  for (bool h2d : {true, false}) {
    const std::string name = h2d ? "H2D" : "D2H";
    Series s = series(Test::HostCopy, "pinned cudaMemcpy " + name + what);
    s.direction = h2d ? "h2d" : "d2h";
    s.bidirectional = bidirectional;
    for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
      step(name + what + ": GPU " + std::to_string(g));
      const Summary t = repeat([&] { return seconds(g, h2d); }, plan_.reps);
      Point p = point(t);
      p.src = g;
      p.bytes = bytes;
      p.gbps = gbps(bytes, t.median);
      s.points.push_back(p);
    }
    m.series.push_back(std::move(s));
  }
}

void Runner::host(calibration::Measurements& m) {
  const std::size_t bytes = plan_.copy_bytes;
  host_bandwidth(m, ", each GPU alone", false,
                 [&](int g, bool h2d) { return backend_.host_copy(g, bytes, h2d, iterations_for(bytes)); });
  // Latency: 4-byte copies, each waited for by the host, wall time per copy (CostModel::
  // host_copy_latency's meaning: a host-synchronised copy, as the driver runs each leg of a staged peer
  // copy; back to back without waiting, a copy costs about a third of it: docs/DECISIONS.md).
  for (bool h2d : {true, false}) {
    Series s = series(Test::HostCopy, std::string("pinned cudaMemcpy ") + (h2d ? "H2D" : "D2H") +
                                          " latency, 4 B, each copy waited for, each GPU alone");
    s.direction = h2d ? "h2d" : "d2h";
    s.latency = true;
    for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
      step(std::string(h2d ? "H2D" : "D2H") + " latency GPU " + std::to_string(g));
      const Summary t = repeat([&] { return backend_.host_copy_synced(g, 4, h2d, 100); }, plan_.reps);
      Point p = point(t);
      p.src = g;
      p.bytes = 4;
      p.latency_us = t.median * 1e6;
      s.points.push_back(p);
    }
    m.series.push_back(std::move(s));
  }
  remote_host(m);
  // Each GPU's copy while the same GPU copies the other way (nvbandwidth's *_bidirectional_memcpy_ce):
  // the host's budget for DMA both ways, which differs by platform (docs/DECISIONS.md).
  host_bandwidth(m, " while the same GPU copies twice the bytes the other way", true, [&](int g, bool h2d) {
    return backend_.host_copy_bidir(g, bytes, h2d, iterations_for(bytes));
  });
  if (gpus_.size() < 2) return;
  for (bool h2d : {true, false}) {
    step(std::string(h2d ? "H2D" : "D2H") + ", every GPU at once");
    std::vector<std::vector<double>> per_gpu(gpus_.size());
    const auto all = [&] { return backend_.host_copy_all(bytes, h2d, iterations_for(bytes)); };
    (void)all();
    for (int r = 0; r < plan_.reps; ++r) {
      const std::vector<double> t = all();
      for (std::size_t g = 0; g < t.size() && g < per_gpu.size(); ++g) per_gpu[g].push_back(t[g]);
    }
    Series s = series(Test::HostCopy,
                      std::string("pinned cudaMemcpy ") + (h2d ? "H2D" : "D2H") + ", every GPU at once");
    s.direction = h2d ? "h2d" : "d2h";
    s.concurrent = true;
    for (std::size_t g = 0; g < per_gpu.size(); ++g) {
      const Summary t = summarize(per_gpu[g]);
      Point p = point(t);
      p.src = static_cast<int>(g);
      p.bytes = bytes;
      p.gbps = gbps(bytes, t.median);
      s.points.push_back(p);
    }
    m.series.push_back(std::move(s));
  }
}

void Runner::remote_host(calibration::Measurements& m) {
  const std::size_t bytes = plan_.copy_bytes;
  const auto& nodes = options_.remote_nodes;
  for (bool h2d : {true, false}) {
    Series s = series(Test::HostCopy, std::string("pinned cudaMemcpy ") + (h2d ? "H2D" : "D2H") +
                                          ", host memory on the farthest NUMA node");
    s.direction = h2d ? "h2d" : "d2h";
    s.remote = true;
    for (int g = 0; g < static_cast<int>(gpus_.size()) && g < static_cast<int>(nodes.size()); ++g) {
      const int node = nodes[static_cast<std::size_t>(g)];
      if (node < 0) continue;
      step(std::string(h2d ? "H2D" : "D2H") + " GPU " + std::to_string(g) + ", memory on NUMA node " +
           std::to_string(node));
      const Summary t = repeat(
          [&] { return backend_.host_copy_on_node(g, bytes, h2d, iterations_for(bytes), node); }, plan_.reps);
      Point p = point(t);
      p.src = g;
      p.bytes = bytes;
      p.gbps = gbps(bytes, t.median);
      p.note = "host memory on NUMA node " + std::to_string(node);
      s.points.push_back(p);
    }
    if (!s.points.empty()) m.series.push_back(std::move(s));
  }
}

void Runner::peer(calibration::Measurements& m) {
  const int n = static_cast<int>(gpus_.size());
  const std::size_t bytes = plan_.copy_bytes;
  for (bool on : {true, false}) {
    const std::string mode = on ? "P2P=Enabled" : "P2P=Disabled";
    Series uni = series(Test::PeerCopy, "cudaMemcpyPeer " + mode + " unidirectional");
    Series bi = series(Test::PeerCopy, "cudaMemcpyPeer " + mode + " bidirectional");
    Series lat = series(Test::PeerCopy, "cudaMemcpyPeer " + mode + " latency, one int");
    uni.peer_access = bi.peer_access = lat.peer_access = on;
    bi.bidirectional = true;
    lat.latency = true;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        step(mode + " " + std::to_string(a) + "->" + std::to_string(b));
        Summary t =
            repeat([&] { return backend_.peer_copy(a, b, bytes, on, iterations_for(bytes)); }, plan_.reps);
        Point p = point(t);
        p.src = a, p.dst = b, p.bytes = bytes, p.gbps = gbps(bytes, t.median);
        uni.points.push_back(p);
        t = repeat([&] { return backend_.peer_copy(a, b, plan_.latency_bytes, on, 100); }, plan_.reps);
        p = point(t);
        p.src = a, p.dst = b, p.latency_us = t.median * 1e6;
        lat.points.push_back(p);
        if (b < a) continue;
        t = repeat([&] { return backend_.peer_copy_both(a, b, bytes, on, iterations_for(bytes)); },
                   plan_.reps);
        p = point(t);
        p.src = a, p.dst = b, p.bytes = bytes, p.gbps = gbps(2 * bytes, t.median);
        bi.points.push_back(p);
      }
    m.series.push_back(std::move(uni));
    m.series.push_back(std::move(bi));
    m.series.push_back(std::move(lat));
  }
}

void Runner::gemm(calibration::Measurements& m) {
  for (const std::string dtype : {"bf16", "fp16", "fp8"}) {
    Series s = series(Test::Gemm, "cuBLAS GEMM, " + dtype + " inputs, FP32 accumulate");
    s.dtype = dtype;
    for (int g = 0; g < static_cast<int>(gpus_.size()); ++g)
      for (const auto& gemm_shape : plan_.gemm_shapes) {
        // Plain copies for the lambda below: clang before 16 cannot capture structured bindings.
        const auto [mm, nn, kk] = gemm_shape;
        const auto m = mm, n = nn, k = kk;
        const std::string shape = std::to_string(mm) + "x" + std::to_string(nn) + "x" + std::to_string(kk);
        step(dtype + " GEMM " + shape + " on GPU " + std::to_string(g));
        Summary t;
        try {
          const int iters = gemm_iterations(backend_.gemm(g, dtype, m, n, k, 1));
          t = repeat([&] { return backend_.gemm(g, dtype, m, n, k, iters); }, plan_.reps);
        } catch (const Unsupported& e) {
          progress_ << "rigsim-probe:   skipped: " << e.what() << std::endl;
          break;
        }
        Point p = point(t);
        p.src = g;
        p.m = static_cast<std::uint64_t>(mm), p.n = static_cast<std::uint64_t>(nn),
        p.k = static_cast<std::uint64_t>(kk);
        p.tflops = 2.0 * mm * nn * kk / t.median / 1e12;
        s.points.push_back(p);
      }
    if (!s.points.empty()) m.series.push_back(std::move(s));
  }
}

Series Runner::collective(const std::string& op, const std::vector<int>& gpus,
                          const std::vector<std::size_t>& sizes) {
  std::string ranks;
  for (int g : gpus) ranks += (ranks.empty() ? "" : ",") + std::to_string(g);
  Series s = series(Test::Collective, "ncclGroup " + op + " on GPUs " + ranks + ", float, sum, out of place");
  s.op = op;
  s.gpus = gpus;
  const auto kind = *model::parse_collective(op);
  for (std::size_t requested : sizes) {
    const auto sz = model::nccl_tests::sizes_for(kind, requested, gpus.size());
    if (sz.size == 0) continue;
    step(op + " " + size_text(sz.size) + " on GPUs " + ranks);
    const int iters = sz.size < 16 * kMiB ? 20 : 5;
    const Summary t = repeat([&] { return backend_.collective(op, gpus, sz.size, iters); }, plan_.reps);
    Point p = point(t);
    p.bytes = sz.size;
    p.time_us = t.median * 1e6;
    p.algbw_gbs = gbps(sz.size, t.median);
    p.busbw_gbs = p.algbw_gbs * model::nccl_tests::busbw_factor(kind, gpus.size());
    if (p.algbw_gbs > 0) s.points.push_back(p);
  }
  return s;
}

void Runner::nccl(calibration::Measurements& m) {
  std::vector<int> all(gpus_.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  for (const std::string op : {"all_reduce", "all_gather", "reduce_scatter", "alltoall"})
    m.series.push_back(collective(op, all, plan_.nccl_sizes));
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = a + 1; b < all.size(); ++b)
      for (const std::string op : {"all_reduce", "sendrecv"})
        m.series.push_back(collective(op, {all[a], all[b]}, plan_.pair_sizes));
}

}  // namespace rigsim::probe
