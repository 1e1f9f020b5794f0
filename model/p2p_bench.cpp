// run_p2p_bench(): plans every copy of p2pBandwidthLatencyTest and bandwidthTest as phases of one
// transfer DAG (each phase starts when the previous one has finished), runs it once, and reads the
// bandwidths and latencies off the timings. Copies without peer access are the driver's staged
// cudaMemcpyPeer (a chunked D2H / H2D pipeline, append_copy), not NCCL's SHM transport.
#include "model/p2p_bench.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "topology/p2p.hpp"

namespace rigsim::model {
namespace {

using topology::DeviceId;

/// Transfers grouped in phases that run one after the other.
class PhasedPlan {
 public:
  /// Adds a phase; returns the indices of its transfers. A transfer's `after`, if any, holds indices
  /// into `phase` (a staged copy's H2D leg after its D2H leg); every transfer also waits for the
  /// previous phase.
  std::vector<std::size_t> add(std::vector<Transfer> phase) {
    std::vector<std::size_t> ids;
    const std::size_t base = transfers_.size();
    for (Transfer& t : phase) {
      std::vector<std::size_t> local = std::move(t.after);
      t.after = previous_;
      for (std::size_t l : local) t.after.push_back(base + l);
      ids.push_back(transfers_.size());
      transfers_.push_back(std::move(t));
    }
    previous_ = ids;
    return ids;
  }
  const std::vector<Transfer>& transfers() const { return transfers_; }

 private:
  std::vector<Transfer> transfers_;
  std::vector<std::size_t> previous_;
};

/// How to read one measurement back: its transfers, and what to do with (bytes moved, seconds).
struct Reading {
  std::vector<std::size_t> ids;
  std::function<void(const RunResult&, const std::vector<std::size_t>&)> store;
};

Transfer copy(DeviceId src, DeviceId dst, Bytes bytes, Transport t, std::string tag) {
  Transfer x;
  x.src = src;
  x.dst = dst;
  x.bytes = bytes;
  x.transport = t;
  x.tag = std::move(tag);
  return x;
}

/// p2pBandwidthLatencyTest's P2P=Enabled latency of a pair with peer access, and what sets it
/// (calibration::p2p_write_latency_basis): the NVLink generation's figure where the peer path is NVLink;
/// over PCIe the GPU generation's issue time plus the latency of the socket links the writes cross (the
/// +0.1 us per crossing CostModel::inter_socket_latency was measured from).
calibration::P2pWriteLatency write_latency(const Platform& p, DeviceId src, DeviceId dst) {
  const auto& topo = p.topology();
  const topology::GpuSpec& a = *topo.device(src).gpu;
  const topology::GpuSpec& b = *topo.device(dst).gpu;
  const bool nvlink = topo.nvlink_path(src, dst).has_value();
  calibration::P2pWriteLatency w = calibration::p2p_write_latency_basis(
      p.cost_model(), std::min(a.sm, b.sm), nvlink ? std::min(a.nvlink_gen, b.nvlink_gen) : 0);
  Seconds sockets;
  for (const Crossing& c : p.route(src, dst, Transport::P2p).crossings)
    if (c.link < topo.links().size() && topo.link(c.link).kind == topology::LinkKind::InterSocket)
      sockets = sockets + p.links()[c.link].latency;
  if (sockets.value > 0) {
    w.value = w.value + sockets;
    w.basis += ", plus the socket links the writes cross";
  }
  return w;
}

/// The driver's staging of one copy without peer access, as rigsim runs it (DESIGN rule 4, fidelity
/// rule 2). The driver moves the copy in n = max(1, ceil(S / c)) chunks through pinned host buffers, and
/// the host waits at every hand-off between legs (staging_sync_latency); each hand-off after the first
/// also crosses the legs' links (h, the two legs' link latencies). Chunk c by the driver's path
/// (CostModel::staging_chunk_of); B is the slower leg alone.
/// - Overlapped (calibration::staging_overlaps): the D2H of one chunk runs beside the H2D of the one
///   before. The first chunk fills the pipeline (min(c, S) / B), then n hand-offs:
///   fill + n t_sync + (n - 1) h.
/// - Taking turns (GeForce Turing and Ampere): each chunk's D2H, a hand-off, its H2D, a hand-off before
///   the buffer is reused, so the legs never run at once and there are 2n - 1 hand-offs:
///   (2n - 1) t_sync + (2n - 2) h, then the D2H flow, then the H2D flow.
/// `overhead` is what the leg flows wait for before they start.
struct Staging {
  DeviceId host = 0;  // the socket whose memory holds the buffers
  Route d2h, h2d;
  bool overlapped = false;
  double chunk = 0, chunks = 0, handoffs = 0;
  Seconds overhead;
};

Staging staging(const Platform& p, DeviceId src, DeviceId dst, DeviceId near, Bytes bytes) {
  const auto& c = p.cost_model();
  const auto& topo = p.topology();
  const topology::GpuSpec& a = *topo.device(src).gpu;
  const topology::GpuSpec& b = *topo.device(dst).gpu;
  Staging st;
  const double set = calibration::staging_chunk_of(c, a, b).value;
  st.chunk = set > 0 ? set : std::max(bytes.value, 1.0);  // 0: the whole copy is one chunk
  st.host = topo.socket_of(near);
  st.d2h = p.route(src, st.host, Transport::HostCopy, near);
  st.h2d = p.route(st.host, dst, Transport::HostCopy, near);
  const double leg = std::min(st.d2h.bottleneck.value, st.h2d.bottleneck.value);
  // A hand-off crosses the two legs' links once (their route latency without the copies' launch): the
  // D2H's completion travels to the host, the H2D's first reads to the GPU (and, taking turns, the
  // H2D's completion back and the next D2H's start). The first one's crossings are the legs' own
  // latency, which the two flows already carry.
  const double hops = st.d2h.latency.value - st.d2h.setup.value + st.h2d.latency.value - st.h2d.setup.value;
  st.chunks = std::max(1.0, std::ceil(bytes.value / st.chunk));
  st.overlapped = calibration::staging_overlaps(a, b);
  st.handoffs = st.overlapped ? st.chunks : 2 * st.chunks - 1;
  // Overlapped, the first chunk fills the pipeline before the two legs run side by side; taking turns,
  // the legs run one after the other (append_copy), so nothing of the bytes is waited for here.
  const double fill = st.overlapped && leg > 0 ? std::min(st.chunk, bytes.value) / leg : 0.0;
  st.overhead = Seconds{fill + st.handoffs * c.staging_sync_latency.value + (st.handoffs - 1) * hops};
  return st;
}

/// One GPU-to-GPU copy as the CUDA sample issues it, appended to `phase`. With peer access: one P2P
/// transfer. Without (P2P=Disabled, or no peer access): cudaMemcpyPeer is staged by the driver through
/// pinned host buffers in the NUMA node of `near` (the process's node, see Planner::pairs) in chunks
/// (Staging): after a wait for the staging's serial part and hand-offs (Staging::overhead), the legs run
/// as two host copies of all the bytes, at once where the driver overlaps them, else one after the other
/// (the H2D queued behind the D2H, its launch among the hand-offs). They share every link and the node's
/// memory with whatever else runs, e.g. the other direction of a bidirectional test.
void append_copy(std::vector<Transfer>& phase, const Platform& p, DeviceId src, DeviceId dst, DeviceId near,
                 Bytes bytes, bool peer, const std::string& tag) {
  if (peer) {
    phase.push_back(copy(src, dst, Bytes{bytes.value * p.copy_engine_share(src, dst)}, Transport::P2p, tag));
    return;
  }
  const Staging st = staging(p, src, dst, near, bytes);
  const std::size_t wait = phase.size();
  phase.push_back(compute_task(src, st.overhead, -1, {}, tag + " staging"));
  const std::size_t d2h_at = phase.size();
  Transfer d2h = copy(src, st.host, bytes, Transport::HostCopy, tag + " d2h");
  d2h.host_memory_near = near;  // the driver's pinned buffer
  d2h.after = {wait};
  phase.push_back(std::move(d2h));
  Transfer h2d = copy(st.host, dst, bytes, Transport::HostCopy, tag + " h2d");
  h2d.host_memory_near = near;  // it reads the buffer the D2H leg wrote
  h2d.after = {st.overlapped ? wait : d2h_at};
  h2d.connected = !st.overlapped;
  phase.push_back(std::move(h2d));
}

/// Seconds from the phase's start to its last finish.
double phase_seconds(const RunResult& r, const std::vector<std::size_t>& ids) {
  double start = r.transfers[ids.front()].start.value, end = start;
  for (std::size_t i : ids) end = std::max(end, r.transfers[i].finish.value);
  return end - start;
}

double gbps(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

class Planner {
 public:
  Planner(const Platform& p, const Executor& execute, Bytes size, P2pBenchResult& out)
      : p_(p), execute_(execute), size_(size), out_(out), gpus_(p.topology().gpus()) {}

  void pairs(bool p2p_on, Matrix& uni, Matrix& bi, Matrix& lat);
  void host_copies();
  /// nvbandwidth's all_to_one and one_to_all copy-engine tests for GPU i (P2pBenchResult::fan_in_gbps).
  void fans(std::size_t i);
  /// One of nvbandwidth's host tests (P2pBenchResult) for GPU i, read into into[i].
  void host_test(std::size_t i, bool h2d, bool bidir, bool all, std::vector<double>& into);
  void run();

 private:
  bool peer(std::size_t i, std::size_t j, bool p2p_on) const { return p2p_on && out_.can_access[i][j]; }
  DeviceId gpu(std::size_t i) const { return gpus_[i]; }
  DeviceId socket(std::size_t i) const { return p_.topology().socket_of(gpu(i)); }

  const Platform& p_;
  const Executor& execute_;
  Bytes size_;
  P2pBenchResult& out_;
  std::vector<DeviceId> gpus_;
  PhasedPlan plan_;
  std::vector<Reading> readings_;
  std::vector<HostTestWhy> whys_;  // one per host test and GPU, figures filled by run()
};

/// The order the host tests are explained in (the text table's columns).
int test_rank(const std::string& test) {
  static const std::vector<std::string> order{"H2D all",   "D2H all",       "H2D bidir",
                                              "D2H bidir", "H2D all bidir", "D2H all bidir"};
  return static_cast<int>(std::find(order.begin(), order.end(), test) - order.begin());
}

void Planner::pairs(bool p2p_on, Matrix& uni, Matrix& bi, Matrix& lat) {
  const std::size_t n = out_.gpus.size();
  const double s = size_.value;
  auto one = [&](std::size_t i, std::size_t j, Bytes bytes, const std::string& tag) {
    std::vector<Transfer> phase;
    append_copy(phase, p_, gpu(i), gpu(j), gpu(i), bytes, peer(i, j, p2p_on), tag);
    return phase;
  };
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      readings_.push_back(
          {plan_.add(one(i, j, size_, "uni")), [&uni, i, j, s](const RunResult& r, const auto& ids) {
             uni[i][j] = gbps(s, phase_seconds(r, ids));
           }});
      if (peer(i, j, p2p_on)) {
        lat[i][j] = write_latency(p_, gpu(i), gpu(j)).value.us();  // back-to-back copy-engine copies
      } else {
        readings_.push_back(
            {plan_.add(one(i, j, Bytes{0}, "latency")),
             [&lat, i, j](const RunResult& r, const auto& ids) { lat[i][j] = phase_seconds(r, ids) * 1e6; }});
      }
      if (peer(i, j, p2p_on))  // nvbandwidth's SM write copy: the route's own (SM) payloads
        readings_.push_back({plan_.add({copy(gpu(i), gpu(j), size_, Transport::P2p, "sm write")}),
                             [this, i, j, s](const RunResult& r, const auto& ids) {
                               out_.uni_p2p_on_sm[i][j] = gbps(s, phase_seconds(r, ids));
                             }});
      if (j < i) continue;
      std::vector<Transfer> both = one(i, j, size_, "bi");
      // One process, one node for all its pinned buffers: the other direction stages in GPU i's node too.
      append_copy(both, p_, gpu(j), gpu(i), gpu(i), size_, peer(j, i, p2p_on), "bi");
      readings_.push_back({plan_.add(std::move(both)), [&bi, i, j, s](const RunResult& r, const auto& ids) {
                             bi[i][j] = bi[j][i] = gbps(2 * s, phase_seconds(r, ids));
                           }});
    }
}

void Planner::host_copies() {
  const std::size_t n = out_.gpus.size();
  const double s = size_.value;
  for (std::size_t i = 0; i < n; ++i) {
    readings_.push_back({plan_.add({copy(socket(i), gpu(i), size_, Transport::HostCopy, "h2d")}),
                         [this, i, s](const RunResult& r, const auto& ids) {
                           out_.h2d_gbps[i] = gbps(s, phase_seconds(r, ids));
                         }});
    readings_.push_back({plan_.add({copy(gpu(i), socket(i), size_, Transport::HostCopy, "d2h")}),
                         [this, i, s](const RunResult& r, const auto& ids) {
                           out_.d2h_gbps[i] = gbps(s, phase_seconds(r, ids));
                         }});
    readings_.push_back({plan_.add({copy(gpu(i), socket(i), Bytes{s * Platform::sm_host_store_share()},
                                         Transport::HostCopy, "d2h sm")}),
                         [this, i, s](const RunResult& r, const auto& ids) {
                           out_.d2h_sm_gbps[i] = gbps(s, phase_seconds(r, ids));
                         }});
    readings_.push_back({plan_.add({copy(socket(i), gpu(i), Bytes{0}, Transport::HostCopy, "h2d latency")}),
                         [this, i](const RunResult& r, const auto& ids) {
                           out_.h2d_latency_us[i] = phase_seconds(r, ids) * 1e6;
                         }});
    readings_.push_back({plan_.add({copy(gpu(i), socket(i), Bytes{0}, Transport::HostCopy, "d2h latency")}),
                         [this, i](const RunResult& r, const auto& ids) {
                           out_.d2h_latency_us[i] = phase_seconds(r, ids) * 1e6;
                         }});
    if (const auto far = remote_socket(p_.topology(), gpu(i))) {
      readings_.push_back({plan_.add({copy(*far, gpu(i), size_, Transport::HostCopy, "h2d remote")}),
                           [this, i, s](const RunResult& r, const auto& ids) {
                             out_.h2d_remote_gbps[i] = gbps(s, phase_seconds(r, ids));
                           }});
      readings_.push_back({plan_.add({copy(gpu(i), *far, size_, Transport::HostCopy, "d2h remote")}),
                           [this, i, s](const RunResult& r, const auto& ids) {
                             out_.d2h_remote_gbps[i] = gbps(s, phase_seconds(r, ids));
                           }});
    }
  }
  for (std::size_t i = 0; i < n; ++i) fans(i);
  for (std::size_t i = 0; i < n; ++i)
    for (bool h2d : {true, false}) {
      host_test(i, h2d, false, true, h2d ? out_.h2d_concurrent_gbps : out_.d2h_concurrent_gbps);
      host_test(i, h2d, true, false, h2d ? out_.h2d_bidir_gbps : out_.d2h_bidir_gbps);
      host_test(i, h2d, true, true, h2d ? out_.h2d_concurrent_bidir_gbps : out_.d2h_concurrent_bidir_gbps);
    }
}

void Planner::fans(std::size_t i) {
  const double s = size_.value;
  for (bool in : {true, false}) {
    std::vector<Transfer> phase;
    for (std::size_t k = 0; k < out_.gpus.size(); ++k) {
      if (k == i || !(in ? out_.can_access[k][i] : out_.can_access[i][k])) continue;
      const DeviceId from = in ? gpu(k) : gpu(i), to = in ? gpu(i) : gpu(k);
      phase.push_back(copy(from, to, Bytes{s * p_.copy_engine_share(from, to)}, Transport::P2p,
                           in ? "fan in" : "fan out"));
    }
    if (phase.empty()) continue;
    const double total = s * static_cast<double>(phase.size());
    std::vector<double>& into = in ? out_.fan_in_gbps : out_.fan_out_gbps;
    readings_.push_back({plan_.add(std::move(phase)), [&into, i, total](const RunResult& r, const auto& ids) {
                           into[i] = gbps(total, phase_seconds(r, ids));
                         }});
  }
}

void Planner::host_test(std::size_t i, bool h2d, bool bidir, bool all, std::vector<double>& into) {
  const double s = size_.value;
  std::vector<Transfer> phase = host_test_copies(p_, i, h2d, bidir, all, size_);
  const CrowdedLink crowd = crowded_link(p_, phase);
  HostTestWhy why;
  why.test = std::string(h2d ? "H2D" : "D2H") + (all ? " all" : "") + (bidir ? " bidir" : "");
  why.gpu = i;
  why.limit = p_.crossing_name(crowd.hop);
  why.limit_gbps = p_.links()[crowd.hop.link].bandwidth.value / 1e9;
  why.copies = crowd.copies;
  whys_.push_back(std::move(why));
  const std::size_t at = whys_.size() - 1;
  readings_.push_back(
      {plan_.add(std::move(phase)), [this, &into, i, s, at](const RunResult& r, const auto& ids) {
         const auto& t = r.transfers[ids.front()];
         into[i] = whys_[at].gbps = gbps(s, t.finish.value - t.start.value);
       }});
}

void Planner::run() {
  const RunResult r = execute_(p_, plan_.transfers(), {});
  for (const Reading& x : readings_) x.store(r, x.ids);
  // One explanation per test and kind of GPU, in test order (host_copies: GPU by GPU, test by test).
  for (const HostTestWhy& w : whys_) {
    auto same = [&w](const HostTestWhy& k) {
      return k.test == w.test && k.copies == w.copies && std::abs(k.limit_gbps - w.limit_gbps) <= 5e-3 &&
             std::abs(k.gbps - w.gbps) <= 5e-3;
    };
    const auto kind = std::find_if(out_.host_why.begin(), out_.host_why.end(), same);
    if (kind == out_.host_why.end()) {
      out_.host_why.push_back(w);
      out_.host_why.back().gpus = 1;
    } else {
      ++kind->gpus;
    }
  }
  std::stable_sort(
      out_.host_why.begin(), out_.host_why.end(),
      [](const HostTestWhy& a, const HostTestWhy& b) { return test_rank(a.test) < test_rank(b.test); });
}

Matrix square(std::size_t n) {
  return Matrix(n, std::vector<double>(n, 0.0));
}

void prepare(const Platform& p, const P2pBenchOptions& o, P2pBenchResult& out) {
  const auto& topo = p.topology();
  out.layout = topo.name();
  out.cost_model = p.cost_model().source;
  out.size = o.size;
  const auto gpus = topo.gpus();
  const std::size_t n = gpus.size();
  out.can_access.assign(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i) {
    out.gpus.push_back(topo.device(gpus[i]).name);
    out.models.push_back(std::string(topo.device(gpus[i]).gpu->name));
    for (std::size_t j = 0; j < n; ++j)
      out.can_access[i][j] = i == j || topology::driver_peer_access(topo, gpus[i], gpus[j]).allowed;
  }
  for (Matrix* m : {&out.uni_p2p_off, &out.uni_p2p_on, &out.bi_p2p_off, &out.bi_p2p_on,
                    &out.latency_us_p2p_off, &out.latency_us_p2p_on, &out.uni_p2p_on_sm})
    *m = square(n);
  out.h2d_gbps.assign(n, 0.0);
  out.d2h_gbps.assign(n, 0.0);
  for (auto* v : {&out.fan_in_gbps, &out.fan_out_gbps, &out.d2h_sm_gbps, &out.h2d_concurrent_gbps,
                  &out.d2h_concurrent_gbps, &out.h2d_bidir_gbps, &out.d2h_bidir_gbps,
                  &out.h2d_concurrent_bidir_gbps, &out.d2h_concurrent_bidir_gbps})
    v->assign(n, 0.0);
  out.h2d_latency_us.assign(n, 0.0);
  out.d2h_latency_us.assign(n, 0.0);
  out.h2d_remote_gbps.assign(n, 0.0);
  out.d2h_remote_gbps.assign(n, 0.0);
}

/// Device-local copies are not simulated: memory bandwidth x efficiency, as the sample reports them.
void fill_diagonals(const Platform& p, P2pBenchResult& out) {
  const auto gpus = p.topology().gpus();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const double local =
        p.topology().device(gpus[i]).gpu->memory_bw_gbs * p.cost_model().gpu_memory_efficiency;
    for (Matrix* m : {&out.uni_p2p_off, &out.uni_p2p_on, &out.bi_p2p_off, &out.bi_p2p_on}) (*m)[i][i] = local;
    out.latency_us_p2p_off[i][i] = out.latency_us_p2p_on[i][i] = p.cost_model().p2p_latency.us();
  }
}

/// Whether two explanations are of one kind: the same way, the same answer, the same figures.
bool same_kind(const P2pWhy& a, const P2pWhy& b) {
  auto near = [](double x, double y) { return std::abs(x - y) <= 5e-3; };
  return a.enabled == b.enabled && a.peer == b.peer && a.path == b.path && near(a.gbps, b.gbps) &&
         near(a.limit_gbps, b.limit_gbps) && a.capped == b.capped && a.overlapped == b.overlapped &&
         near(a.d2h_gbps, b.d2h_gbps) && near(a.h2d_gbps, b.h2d_gbps) && a.handoffs == b.handoffs &&
         a.shared.size() == b.shared.size() && near(a.latency_us, b.latency_us);
}

/// Why each GPU pair's one-way figure is what it is, one entry per kind (P2pWhy).
void explain(const Platform& p, P2pBenchResult& out) {
  const auto& topo = p.topology();
  const auto gpus = topo.gpus();
  for (bool enabled : {true, false}) {
    const Matrix& uni = enabled ? out.uni_p2p_on : out.uni_p2p_off;
    const std::size_t first = out.why.size();
    for (std::size_t i = 0; i < gpus.size(); ++i)
      for (std::size_t j = 0; j < gpus.size(); ++j) {
        if (i == j) continue;
        P2pWhy w;
        w.enabled = enabled;
        w.peer = enabled && out.can_access[i][j];
        w.src = i, w.dst = j, w.pairs = 1;
        const topology::P2pDecision d = topology::driver_peer_access(topo, gpus[i], gpus[j]);
        w.path = std::string(topology::to_string(d.path));
        if (enabled) w.access = (d.allowed ? "peer access: " : "no peer access: ") + d.reason;
        w.gbps = uni[i][j];
        if (w.peer) {
          const Route r = p.route(gpus[i], gpus[j], Transport::P2p);
          if (const auto limit = p.route_limit(r)) w.limit = limit->name, w.capped = limit->capped;
          w.limit_gbps = r.bottleneck.value / p.copy_engine_share(gpus[i], gpus[j]) / 1e9;
          w.latency_us = out.latency_us_p2p_on[i][j];
          w.latency_basis = write_latency(p, gpus[i], gpus[j]).basis;
        } else {
          const Staging st = staging(p, gpus[i], gpus[j], gpus[i], out.size);
          w.d2h_gbps = st.d2h.bottleneck.value / 1e9;
          w.h2d_gbps = st.h2d.bottleneck.value / 1e9;
          if (const auto limit = p.route_limit(st.d2h)) w.d2h_limit = limit->name;
          if (const auto limit = p.route_limit(st.h2d)) w.h2d_limit = limit->name;
          const bool d2h_slower = w.d2h_gbps <= w.h2d_gbps;
          w.limit = d2h_slower ? w.d2h_limit : w.h2d_limit;
          for (const Crossing& a : st.d2h.crossings)
            if (!p.links()[a.link].duplex &&
                std::any_of(st.h2d.crossings.begin(), st.h2d.crossings.end(),
                            [&a](const Crossing& b) { return b.link == a.link; }) &&
                std::find(w.shared.begin(), w.shared.end(), p.links()[a.link].name) == w.shared.end())
              w.shared.push_back(p.links()[a.link].name);
          w.limit_gbps = std::min(w.d2h_gbps, w.h2d_gbps);
          w.overlapped = st.overlapped;
          w.chunk_bytes = st.chunk, w.chunks = st.chunks, w.handoffs = st.handoffs;
          w.sync_us = p.cost_model().staging_sync_latency.us();
        }
        const auto kind = std::find_if(out.why.begin() + static_cast<std::ptrdiff_t>(first), out.why.end(),
                                       [&w](const P2pWhy& k) { return same_kind(k, w); });
        if (kind == out.why.end())
          out.why.push_back(std::move(w));
        else
          ++kind->pairs;
      }
  }
}

}  // namespace

std::vector<Transfer> host_test_copies(const Platform& p, std::size_t gpu, bool h2d, bool bidirectional,
                                       bool all, Bytes size) {
  const auto gpus = p.topology().gpus();
  std::vector<Transfer> copies;
  auto add = [&](std::size_t k, bool to_gpu, Bytes bytes, const char* tag) {
    const DeviceId g = gpus.at(k), host = p.topology().socket_of(g);
    copies.push_back(to_gpu ? copy(host, g, bytes, Transport::HostCopy, tag)
                            : copy(g, host, bytes, Transport::HostCopy, tag));
  };
  const Bytes twice{2 * size.value};
  add(gpu, h2d, size, h2d ? "h2d measured" : "d2h measured");
  if (bidirectional) add(gpu, !h2d, twice, "other direction");
  for (std::size_t k = 0; all && k < gpus.size(); ++k) {
    if (k == gpu) continue;
    add(k, h2d, twice, "other gpu");
    if (bidirectional) add(k, !h2d, twice, "other gpu, other direction");
  }
  return copies;
}

CrowdedLink crowded_link(const Platform& p, const std::vector<Transfer>& copies) {
  // Copies crossing each link that way (a duplex link's directions apart, as Platform::route_limit).
  const auto way = [&p](const Crossing& h) {
    return Crossing{h.link, p.links()[h.link].duplex && h.downstream};
  };
  std::map<Crossing, std::size_t> count;
  std::vector<Route> routes;
  for (const Transfer& t : copies) {
    routes.push_back(p.route(t.src, t.dst, t.transport, t.host_memory_near));
    for (const Crossing& h : routes.back().crossings) ++count[way(h)];
  }
  CrowdedLink best;
  double share = 0;
  for (const Crossing& h : routes.at(0).crossings) {
    const std::size_t n = count[way(h)];
    const double mine = p.links()[h.link].bandwidth.value / static_cast<double>(n);
    if (best.copies == 0 || mine < share) share = mine, best = {h, n};
  }
  return best;
}

std::optional<DeviceId> remote_socket(const topology::Topology& topo, DeviceId gpu) {
  const DeviceId own = topo.socket_of(gpu);
  for (DeviceId c : topo.cpus())
    if (c != own && topo.device(c).node == topo.device(gpu).node) return c;
  return std::nullopt;
}

P2pBenchResult run_p2p_bench(const Platform& platform, const Executor& execute,
                             const P2pBenchOptions& options) {
  if (!(options.size.value > 0 && options.size.value <= 1099511627776.0))
    throw std::invalid_argument("copy size must be between 1 byte and 2^40 bytes");
  P2pBenchResult out;
  prepare(platform, options, out);
  Planner planner(platform, execute, options.size, out);
  planner.pairs(false, out.uni_p2p_off, out.bi_p2p_off, out.latency_us_p2p_off);
  planner.pairs(true, out.uni_p2p_on, out.bi_p2p_on, out.latency_us_p2p_on);
  planner.host_copies();
  planner.run();
  fill_diagonals(platform, out);
  explain(platform, out);
  return out;
}

}  // namespace rigsim::model
