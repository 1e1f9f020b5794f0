// validate(): each measured point re-simulated as its tool ran it, with the mechanism the model sees
// behind it (transport class, bottleneck link, the CostModel key that scales it).
#include "model/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "calibration/compute.hpp"
#include "common/input.hpp"
#include "common/kernels.hpp"
#include "model/bench.hpp"
#include "model/nccl_env.hpp"
#include "model/p2p_bench.hpp"

namespace rigsim::model {
namespace {

using calibration::Measurements;
using calibration::Point;
using calibration::Series;
using calibration::Test;
using topology::DeviceId;
using topology::LinkKind;
using topology::PathClass;

std::string series_pointer(std::size_t s) {
  return "/series/" + std::to_string(s);
}

std::string point_pointer(std::size_t s, std::size_t p) {
  return series_pointer(s) + "/points/" + std::to_string(p);
}

std::string size_text(double bytes) {
  char buf[32];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.4g GiB", bytes / (1024.0 * 1024 * 1024));
  else if (bytes >= 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.4g MiB", bytes / (1024.0 * 1024));
  else if (bytes >= 1024.0)
    std::snprintf(buf, sizeof buf, "%.4g KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

/// Sets the point's bottleneck and key from the narrowest link of the routes a copy crosses.
void attribute(const Platform& p, const std::vector<Route>& routes, PointCheck& c) {
  std::optional<RouteLimit> best;
  double rate = 0;
  for (const Route& r : routes) {
    const auto limit = p.route_limit(r);
    if (!limit) continue;
    const double v = r.bottleneck.value;
    if (!best || v < rate) best = limit, rate = v;
  }
  if (!best) return;
  c.bottleneck = best->name;
  // A per-transfer limit is a catalog measurement (CpuSpec::inter_socket_flow_gbs): no CostModel key
  // scales it, so calibrate leaves such a point out.
  c.key = best->capped ? "" : efficiency_key(p, best->link);
  c.efficiency = current_efficiency(p, best->link);
}

/// The category of a direct peer copy: the transport its path class names.
std::string direct_category(PathClass path) {
  return path == PathClass::NVL || path == PathClass::NVB   ? "p2p-nvlink"
         : path == PathClass::PIX || path == PathClass::PXB ? "p2p-pcie-switch"
         : path == PathClass::PHB                           ? "p2p-root-complex"
                                                            : "p2p-cross-socket";
}

class Validator {
 public:
  Validator(const PlatformFor& platform, const Executor& execute, const Measurements& m)
      : platform_(platform), execute_(execute), m_(m) {}

  void series(std::size_t s, std::vector<PointCheck>& out) {
    const Series& x = m_.series[s];
    if (x.test == Test::Collective)
      collective(s, out);
    else if (x.test == Test::Gemm)
      gemm(s, out);
    else
      copies(s, out);
  }

 private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw InputError(m_.file, pointer, message);
  }

  DeviceId gpu(const Platform& p, std::size_t s, std::size_t pt, int index) const {
    const auto gpus = p.topology().gpus();
    if (index < 0 || static_cast<std::size_t>(index) >= gpus.size())
      fail(point_pointer(s, pt), "GPU " + std::to_string(index) + " is not in the layout \"" +
                                     p.topology().name() + "\" (it has " + std::to_string(gpus.size()) +
                                     " GPUs)");
    return gpus[static_cast<std::size_t>(index)];
  }

  BenchOptions bench_options(const Platform& p, std::size_t s) const {
    const Series& x = m_.series[s];
    BenchOptions b;
    b.op = *parse_collective(x.op);  // checked by the reader
    b.gpus_per_thread = static_cast<std::size_t>(x.gpus_per_thread);
    std::vector<std::size_t> indices(x.gpus.begin(), x.gpus.end());
    try {
      b.gpus = select_gpus(p.topology(), std::nullopt, indices);
      apply_nccl_env(NcclEnv(x.env.begin(), x.env.end()), b.collective);
      if (!b.collective.topo_file.empty())
        throw InputError("", "", "NCCL_TOPO_FILE: a measurement's topology is its rig's layout (\"layout\")");
      // The NCCL release the measurement ran, where the rig says (its rules differ by release), as the
      // tools print it ("2.18.3+cuda12.2", "2.8.4-1"); empty: the default release's rules.
      if (!m_.rig.nccl.empty()) try {
          b.collective.p2p.nccl_version = topology::parse_nccl_version(m_.rig.nccl);
        } catch (const std::invalid_argument& e) {
          fail("/rig/nccl", e.what());
        }
    } catch (const InputError& e) {
      fail(series_pointer(s), e.what());
    }
    return b;
  }

  static std::string nccl_category(const BenchResult& r) {
    if (r.largest.algorithm == Algorithm::Nvls) return "nccl-nvls";
    bool net = false, shm = false, nvlink = true;
    for (const Connection& c : r.largest.connections) {
      net = net || c.transport == Transport::Net;
      shm = shm || c.transport == Transport::Shm;
      nvlink = nvlink && (c.path == PathClass::NVL || c.path == PathClass::NVB);
    }
    return net ? "nccl-net" : shm ? "nccl-shm" : nvlink ? "nccl-nvlink" : "nccl-pcie";
  }

  static std::string latency_key(const BenchRow& row) {
    if (row.host_bound) return "nccl_launch_per_gpu";
    if (row.algorithm == Algorithm::Nvls || row.algorithm == Algorithm::NvlsTree) return "nccl_nvls_latency";
    const bool tree = row.algorithm == Algorithm::Tree;
    switch (row.protocol) {
      case Protocol::LL:
        return tree ? "nccl_tree_ll_base_latency" : "nccl_ll_base_latency";
      case Protocol::LL128:
        return tree ? "nccl_tree_ll128_base_latency" : "nccl_ll128_base_latency";
      case Protocol::Simple:
        break;
    }
    return tree ? "nccl_tree_base_latency" : "nccl_base_latency";
  }

  /// The platform link named by the engine's busiest-link list ("gpu0->plx0", "cpu0/dram").
  std::optional<std::size_t> named_link(const Platform& p, const std::string& name) const {
    for (std::size_t i = 0; i < p.links().size(); ++i)
      for (bool down : {true, false})
        if (p.crossing_name({i, down}) == name) return i;
    return std::nullopt;
  }

  void collective(std::size_t s, std::vector<PointCheck>& out) {
    const Series& x = m_.series[s];
    const Platform& given = platform_(x.nodes);
    BenchOptions b = bench_options(given, s);
    // A series whose network routes differ (NCCL_NET_GDR_*, the communicator's GPUs and NCCL release for
    // the GDR read rule) runs on its own copy.
    std::optional<Platform> own;
    if (const NetPolicy net = bench_net_policy(b); net != given.net_policy())
      own.emplace(given.topology(), given.cost_model(), net);
    const Platform& p = own ? *own : given;
    for (std::size_t i = 0; i < x.points.size(); ++i) {
      const Point& pt = x.points[i];
      b.sweep = {pt.bytes, pt.bytes, 2, 0};
      const BenchResult r = run_bench(p, execute_, b);
      const BenchRow& row = r.rows.front();
      PointCheck c = base(s, i);
      c.what =
          x.op + " " + std::to_string(b.gpus.size()) + " GPUs " + size_text(static_cast<double>(pt.bytes));
      c.category = nccl_category(r);
      c.predicted = c.metric == "busbw"   ? row.row.busbw
                    : c.metric == "algbw" ? row.row.algbw
                                          : row.row.time_us;
      if (static_cast<double>(pt.bytes) >= kBandwidthBytes && !r.bottleneck.empty()) {
        c.regime = Regime::Bandwidth;
        c.bottleneck = r.bottleneck.front().link;
        if (const auto link = named_link(p, c.bottleneck)) {
          c.key = efficiency_key(p, *link);
          c.efficiency = current_efficiency(p, *link);
        }
      } else if (static_cast<double>(pt.bytes) <= kLatencyBytes) {
        c.regime = Regime::Latency;
        c.key = latency_key(row);
      }
      out.push_back(std::move(c));
    }
  }

  /// GEMMs: the compute model's roofline time of the shape on the GPU (calibration/compute), as TFLOP/s.
  /// Shapes of at least kLargeGemm in every dimension are in the regime gemm_efficiency describes (large
  /// tiles, full waves, long k); smaller ones are checked, not fitted.
  void gemm(std::size_t s, std::vector<PointCheck>& out) const {
    const Series& x = m_.series[s];
    const Platform& p = platform_(1);
    const Dtype dtype = *parse_dtype(x.dtype);  // checked by the reader
    for (std::size_t i = 0; i < x.points.size(); ++i) {
      const Point& pt = x.points[i];
      const topology::GpuSpec& spec = *p.topology().device(gpu(p, s, i, pt.src)).gpu;
      KernelWork w;
      w.kind = KernelClass::Gemm;
      w.dtype = dtype;
      w.m = static_cast<double>(pt.m), w.n = static_cast<double>(pt.n), w.k = static_cast<double>(pt.k);
      w.flops = 2 * w.m * w.n * w.k;
      w.bytes = (w.m * w.k + w.k * w.n + w.m * w.n) * bytes_per_element(dtype);
      PointCheck c = base(s, i);
      try {
        c.predicted = w.flops / calibration::kernel_time(spec, p.cost_model(), w).time.value / 1e12;
      } catch (const std::invalid_argument& e) {
        fail(point_pointer(s, i), std::string(spec.name) + ": " + e.what());
      }
      c.what = x.dtype + " GEMM " + std::to_string(pt.m) + "x" + std::to_string(pt.n) + "x" +
               std::to_string(pt.k) + " on GPU " + std::to_string(pt.src);
      c.category = "gemm";
      if (std::min({pt.m, pt.n, pt.k}) >= kLargeGemm) {
        c.regime = Regime::Bandwidth;
        c.key = dtype == Dtype::Fp8 ? "gemm_fp8_efficiency" : "gemm_efficiency";
      }
      out.push_back(std::move(c));
    }
  }

  PointCheck base(std::size_t s, std::size_t i) const {
    const Series& x = m_.series[s];
    const Point& pt = x.points[i];
    const calibration::Metric metric = calibration::metric_of(x, pt);
    PointCheck c;
    c.series = s;
    c.point = i;
    c.id = pt.id;
    c.metric = std::string(metric.name);
    c.unit = std::string(metric.unit);
    c.measured = metric.value;
    return c;
  }

  /// Copies: one run_p2p_bench per copy size (it simulates every matrix at once), read back per point.
  void copies(std::size_t s, std::vector<PointCheck>& out) {
    const Series& x = m_.series[s];
    const Platform& p = platform_(1);
    for (std::size_t i = 0; i < x.points.size(); ++i) {
      const Point& pt = x.points[i];
      // A latency is a zero-byte copy in every run; reuse a run of a bandwidth size when there is one.
      const double bytes = x.latency ? (benches_.empty() ? kCopyBandwidthBytes : benches_.begin()->first)
                                     : static_cast<double>(pt.bytes);
      auto it = benches_.find(bytes);
      if (it == benches_.end())
        it = benches_.emplace(bytes, run_p2p_bench(p, execute_, {Bytes{bytes}})).first;
      PointCheck c = base(s, i);
      switch (x.test) {
        case Test::PeerCopy:
          peer(p, it->second, s, i, c);
          break;
        case Test::HostCopy:
          host(p, it->second, s, i, c);
          break;
        case Test::DeviceCopy:
          (void)gpu(p, s, i, pt.src);
          c.what = "device copy on GPU " + std::to_string(pt.src);
          c.category = "device-memory";
          c.predicted = it->second.uni_p2p_on[pt.src][pt.src];
          c.regime = Regime::Bandwidth;
          c.key = "gpu_memory_efficiency";
          c.efficiency = p.cost_model().gpu_memory_efficiency;
          break;
        case Test::Collective:
        case Test::Gemm:
          break;
      }
      out.push_back(std::move(c));
    }
  }

  /// nvbandwidth's all_to_one / one_to_all: every peer of the point's GPU copying to it, or it to them.
  void fan(const Platform& p, const P2pBenchResult& r, std::size_t s, std::size_t i, PointCheck& c) const {
    const Series& x = m_.series[s];
    const Point& pt = x.points[i];
    const DeviceId g = gpu(p, s, i, pt.src);
    const auto k = static_cast<std::size_t>(pt.src);
    const bool in = x.fan == "in";
    c.predicted = (in ? r.fan_in_gbps : r.fan_out_gbps)[k];
    if (!(c.predicted > 0))
      fail(point_pointer(s, i), "GPU " + std::to_string(pt.src) + " of \"" + p.topology().name() +
                                    "\" has no peer with peer access, so there is nothing to copy " +
                                    (in ? "to it" : "from it"));
    c.what = std::string("copy engines, every peer ") + (in ? "to GPU " : "from GPU ") +
             std::to_string(pt.src) + " " + size_text(static_cast<double>(pt.bytes));
    // The category of its first peer's path, as one pair's would be.
    const auto gpus = p.topology().gpus();
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      if (j == k || !(in ? r.can_access[j][k] : r.can_access[k][j])) continue;
      c.category = direct_category(p.topology().path(g, gpus[j]).nccl);
      break;
    }
  }

  void peer(const Platform& p, const P2pBenchResult& r, std::size_t s, std::size_t i, PointCheck& c) const {
    const Series& x = m_.series[s];
    const Point& pt = x.points[i];
    if (!x.fan.empty()) {
      fan(p, r, s, i, c);
      return;
    }
    const DeviceId a = gpu(p, s, i, pt.src), b = gpu(p, s, i, pt.dst);
    const auto src = static_cast<std::size_t>(pt.src), dst = static_cast<std::size_t>(pt.dst);
    const bool direct = x.peer_access && r.can_access[src][dst];
    c.what = std::string(x.peer_access ? "P2P=Enabled " : "P2P=Disabled ") +
             (x.latency         ? "latency "
              : x.bidirectional ? "bi "
                                : "uni ") +
             std::to_string(pt.src) + "->" + std::to_string(pt.dst) +
             (x.latency ? "" : " " + size_text(static_cast<double>(pt.bytes)));
    c.category = direct ? direct_category(p.topology().path(a, b).nccl) : "staged";
    if (x.sm_copy) {
      if (!direct)
        fail(point_pointer(s, i), "an SM copy needs peer access, and rigsim's GPUs " +
                                      std::to_string(pt.src) + " and " + std::to_string(pt.dst) + " of \"" +
                                      p.topology().name() + "\" have none");
      c.what = "SM write " + std::to_string(pt.src) + "->" + std::to_string(pt.dst) + " " +
               size_text(static_cast<double>(pt.bytes));
      c.predicted = r.uni_p2p_on_sm[src][dst];
      return;
    }
    if (x.latency) {
      c.predicted = (x.peer_access ? r.latency_us_p2p_on : r.latency_us_p2p_off)[src][dst];
      c.regime = Regime::Latency;
      c.key = direct ? "p2p_write_latency" : "host_copy_latency";
      return;
    }
    const Matrix& m = x.bidirectional ? (x.peer_access ? r.bi_p2p_on : r.bi_p2p_off)
                                      : (x.peer_access ? r.uni_p2p_on : r.uni_p2p_off);
    c.predicted = m[src][dst];
    if (static_cast<double>(pt.bytes) < kCopyBandwidthBytes) return;
    c.regime = Regime::Bandwidth;
    if (direct) {
      attribute(p, {p.route(a, b, Transport::P2p)}, c);
      return;
    }
    const DeviceId socket = p.topology().socket_of(a);
    attribute(p, {p.route(a, socket, Transport::HostCopy), p.route(socket, b, Transport::HostCopy, a)}, c);
    // A chunked staging path (chunk > 0, overlapped or taking turns) loses its hand-offs on top of the
    // legs' rate: that is what a staged measurement adds to what host copies already teach.
    const auto& ga = *p.topology().device(a).gpu;
    const auto& gb = *p.topology().device(b).gpu;
    if (calibration::staging_chunk_of(p.cost_model(), ga, gb).value > 0) c.key = "staging_sync_latency";
  }

  void host(const Platform& p, const P2pBenchResult& r, std::size_t s, std::size_t i, PointCheck& c) const {
    const Series& x = m_.series[s];
    const Point& pt = x.points[i];
    const DeviceId g = gpu(p, s, i, pt.src);
    const auto k = static_cast<std::size_t>(pt.src);
    const bool h2d = x.direction == "h2d";
    if (x.latency) {
      c.what = std::string(h2d ? "H2D" : "D2H") + " latency GPU " + std::to_string(pt.src);
      c.category = "host-copy";
      c.predicted = h2d ? r.h2d_latency_us[k] : r.d2h_latency_us[k];
      c.regime = Regime::Latency;
      c.key = "host_copy_latency";
      return;
    }
    const std::optional<DeviceId> far = x.remote ? remote_socket(p.topology(), g) : std::nullopt;
    if (x.remote && !far)
      fail(series_pointer(s),
           "host memory on a remote NUMA node needs a second CPU socket in the layout, and \"" +
               p.topology().name() + "\" has one");
    c.what = std::string(h2d ? "H2D" : "D2H") + (x.sm_copy ? " SM" : "") +
             (x.bidirectional ? " with the other direction," : "") +
             (x.concurrent ? " all GPUs, "
              : x.remote   ? " remote memory, "
                           : " ") +
             "GPU " + std::to_string(pt.src) + " " + size_text(static_cast<double>(pt.bytes));
    c.category = "host-copy";
    const std::vector<double>& figure =
        x.sm_copy                         ? r.d2h_sm_gbps
        : x.concurrent && x.bidirectional ? (h2d ? r.h2d_concurrent_bidir_gbps : r.d2h_concurrent_bidir_gbps)
        : x.concurrent                    ? (h2d ? r.h2d_concurrent_gbps : r.d2h_concurrent_gbps)
        : x.bidirectional                 ? (h2d ? r.h2d_bidir_gbps : r.d2h_bidir_gbps)
        : x.remote                        ? (h2d ? r.h2d_remote_gbps : r.d2h_remote_gbps)
        : h2d                             ? r.h2d_gbps
                                          : r.d2h_gbps;
    c.predicted = figure[k];
    if (static_cast<double>(pt.bytes) < kCopyBandwidthBytes || x.concurrent || x.sm_copy) return;
    c.regime = Regime::Bandwidth;
    const DeviceId socket = far ? *far : p.topology().socket_of(g);
    if (!x.bidirectional) {
      attribute(p, {h2d ? p.route(socket, g, Transport::HostCopy) : p.route(g, socket, Transport::HostCopy)},
                c);
      return;
    }
    // The other direction on the same GPU: the link the test's copies crowd most (for a PCIe link, its
    // duplex budget for host DMA once half of it is below the direction's own rate).
    const CrowdedLink crowd =
        crowded_link(p, host_test_copies(p, k, h2d, true, false, Bytes{static_cast<double>(pt.bytes)}));
    c.bottleneck = p.crossing_name(crowd.hop);
    c.key = efficiency_key(p, crowd.hop.link);
    c.efficiency = current_efficiency(p, crowd.hop.link);
  }

  const PlatformFor& platform_;
  const Executor& execute_;
  const Measurements& m_;
  std::map<double, P2pBenchResult> benches_;
};

}  // namespace

std::vector<PointCheck> validate(const PlatformFor& platform, const Executor& execute, const Measurements& m,
                                 const std::vector<std::size_t>& only) {
  Validator v(platform, execute, m);
  std::vector<PointCheck> out;
  for (std::size_t s = 0; s < m.series.size(); ++s)
    if (only.empty() || std::find(only.begin(), only.end(), s) != only.end()) v.series(s, out);
  return out;
}

std::string efficiency_key(const Platform& p, std::size_t link) {
  const auto& topo = p.topology();
  if (link < topo.links().size()) {
    const topology::Link& l = topo.link(link);
    if (l.declared_effective) return "";
    switch (l.kind) {
      case LinkKind::Pcie:
      case LinkKind::Internal:
        return p.sm90_only(link) ? "pcie_efficiency_sm90" : "pcie_efficiency";
      case LinkKind::ChipsetUplink:
        return "chipset_efficiency";
      case LinkKind::InterSocket:
        return "inter_socket_efficiency";
      case LinkKind::NvLink:
        return "nvlink_efficiency";
      case LinkKind::Network:
        return "network_efficiency";
    }
    return "";
  }
  return p.links()[link].name.ends_with("/dram") ? "memory_efficiency" : "pcie_duplex_efficiency";
}

double current_efficiency(const Platform& p, std::size_t link) {
  const auto& topo = p.topology();
  if (link < topo.links().size()) return p.links()[link].bandwidth.value / topo.link(link).bandwidth.value;
  return p.links()[link].name.ends_with("/dram") ? p.cost_model().memory_efficiency
                                                 : p.cost_model().pcie_duplex_efficiency;
}

}  // namespace rigsim::model
