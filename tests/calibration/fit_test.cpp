// validate() and fit(): the closed forms behind a re-simulated point, and the round trip: measurements
// simulated under a known cost model are fitted back, starting from the defaults, within 1 %.
#include "model/fit.hpp"

#include <gtest/gtest.h>

#include <map>

#include "engine/executor.hpp"
#include "tests/fidelity/fidelity_fixture.hpp"
#include "topology/catalog.hpp"

namespace rigsim::model {
namespace {

using calibration::CostModel;
using calibration::Measurements;
using calibration::Point;
using calibration::Series;
using calibration::Test;

/// Three RTX 4090 on their own Gen4 x16 root ports of one socket, P2P-patched driver (so copies are
/// direct with peer access and staged without).
std::string rig_layout() {
  return R"({"name": "rig", "driver": {"p2p_patched": true}, "cpus": [{"id": "cpu0", "model": "threadripper-pro-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16}],
    "slots": [{"id": "s0", "parent": "rc0", "gen": 4, "width": 16}, {"id": "s1", "parent": "rc1", "gen": 4, "width": 16},
              {"id": "s2", "parent": "rc2", "gen": 4, "width": 16}],
    "gpus": [{"id": "gpu0", "model": "rtx-4090", "slot": "s0"}, {"id": "gpu1", "model": "rtx-4090", "slot": "s1"},
             {"id": "gpu2", "model": "rtx-4090", "slot": "s2"}]})";
}

Series series(Test t, std::string tool) {
  Series s;
  s.test = t;
  s.tool = std::move(tool);
  return s;
}

Point copy_point(int src, int dst, double bytes) {
  Point p;
  p.src = src;
  p.dst = dst;
  p.bytes = static_cast<std::uint64_t>(bytes);
  p.gbps = 1;  // replaced by the simulated value
  p.latency_us = 1;
  return p;
}

/// What a probe run on the rig would measure: copies alone and both ways, with and without peer
/// access, latencies, host copies, device copies, and an all_reduce sweep.
Measurements probe_like() {
  Measurements m;
  m.file = "synthetic.json";
  const double big = 256.0 * 1024 * 1024;
  Series h2d = series(Test::HostCopy, "bandwidthTest"), d2h = h2d,
         dev = series(Test::DeviceCopy, "bandwidthTest");
  h2d.direction = "h2d";
  d2h.direction = "d2h";
  for (int g = 0; g < 3; ++g) {
    h2d.points.push_back(copy_point(g, -1, big));
    d2h.points.push_back(copy_point(g, -1, big));
    dev.points.push_back(copy_point(g, -1, big));
  }
  Series on = series(Test::PeerCopy, "p2pBandwidthLatencyTest"), off = on, lat = on, lat_off = on;
  off.peer_access = false;
  lat.latency = true;
  lat_off.latency = true;
  lat_off.peer_access = false;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b) {
        on.points.push_back(copy_point(a, b, big));
        off.points.push_back(copy_point(a, b, big));
        lat.points.push_back(copy_point(a, b, 0));
        lat_off.points.push_back(copy_point(a, b, 0));
      }
  Series ar = series(Test::Collective, "nccl-tests");
  ar.op = "all_reduce";
  for (double bytes : {8.0, 1024.0, 65536.0, 1048576.0, 268435456.0, 1073741824.0}) {
    Point p;
    p.bytes = static_cast<std::uint64_t>(bytes);
    p.busbw_gbs = 1;
    p.time_us = 1;
    ar.points.push_back(p);
  }
  Series gemm = series(Test::Gemm, "rigsim-probe");
  gemm.dtype = "bf16";
  for (std::uint64_t size : {1024u, 4096u, 8192u}) {
    Point p = copy_point(0, -1, 0);
    p.m = p.n = p.k = size;
    p.tflops = 1;
    gemm.points.push_back(p);
  }
  m.series = {h2d, d2h, dev, on, off, lat, lat_off, ar, gemm};
  return m;
}

PlatformMaker maker() {
  return [](const CostModel& cm, int) { return testing::platform_of(rig_layout(), cm); };
}

std::vector<PointCheck> run(const CostModel& cm, const Measurements& m) {
  std::map<int, std::optional<Platform>> cache;
  const PlatformMaker make = maker();
  return validate(
      [&](int n) -> const Platform& {
        if (!cache[n]) cache[n].emplace(make(cm, n));
        return *cache[n];
      },
      engine::run, m);
}

/// `m` with every measured value replaced by what `truth` predicts.
Measurements measured_under(const CostModel& truth, Measurements m) {
  for (const PointCheck& c : run(truth, m)) {
    Point& p = m.series[c.series].points[c.point];
    if (c.metric == "busbw") p.busbw_gbs = c.predicted;
    if (c.metric == "time") p.time_us = c.predicted;
    if (c.metric == "bandwidth") p.gbps = c.predicted;
    if (c.metric == "latency") p.latency_us = c.predicted;
    if (c.metric == "throughput") p.tflops = c.predicted;
  }
  return m;
}

TEST(Validate, HostCopyIsWireTimesEfficiencyAndAttributedToPcie) {
  const CostModel cm = calibration::default_cost_model();
  const auto checks = run(cm, probe_like());
  const PointCheck& h2d = checks.front();
  ASSERT_EQ(h2d.category, "host-copy");
  // 256 MiB at Gen4 x16 (wire 31.5 GB/s) x pcie_efficiency, plus a few microseconds of fixed costs.
  const double rate = topology::pcie_link_gbs(4, 16) * cm.pcie_efficiency;
  testing::expect_closed_form("wire(Gen4 x16) x pcie_efficiency", rate, h2d.predicted, "GB/s", 0.005);
  EXPECT_EQ(h2d.key, "pcie_efficiency");
  EXPECT_EQ(h2d.regime, Regime::Bandwidth);
  EXPECT_NEAR(h2d.efficiency, cm.pcie_efficiency, 1e-9);
  // Every point is predicted, and its error is predicted / measured - 1 (measured 1 here).
  for (const PointCheck& c : checks) EXPECT_NEAR(c.error(), c.predicted - 1.0, 1e-12) << c.what;
}

TEST(Validate, RemoteHostMemoryCopiesCrossTheSocketLinkAndNeedASecondSocket) {
  // rigsim-probe's "host_memory": "remote" series: pinned memory on the other socket of two E5 v4.
  const CostModel cm = calibration::default_cost_model();
  Measurements m;
  Series h2d = series(calibration::Test::HostCopy, "rigsim-probe");
  h2d.direction = "h2d";
  h2d.remote = true;
  Point pt;
  pt.src = 0;
  pt.bytes = 256u << 20;
  pt.gbps = 3.78;
  h2d.points.push_back(pt);
  m.series = {h2d};
  const std::string two_sockets = fidelity::pair_layout("tesla-p40", "xeon-e5-v4", 3, 2);
  std::optional<Platform> p;
  const auto checks = validate(
      [&](int) -> const Platform& { return p ? *p : p.emplace(testing::platform_of(two_sockets, cm)); },
      engine::run, m);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].key, "inter_socket_efficiency");
  const double qpi = 2 * 19.2 * cm.qpi_efficiency;  // 2 QPI links x 19.2 GB/s (catalog xeon-e5-v4)
  testing::expect_closed_form("2 x 19.2 GB/s x qpi_efficiency", qpi, checks[0].predicted, "GB/s", 0.01);
  std::optional<Platform> one;
  const std::string one_socket = fidelity::pair_layout("tesla-p40", "xeon-e5-v4", 3, 1);
  EXPECT_THROW(validate(
                   [&](int) -> const Platform& {
                     return one ? *one : one.emplace(testing::platform_of(one_socket, cm));
                   },
                   engine::run, m),
               InputError);
}

TEST(Validate, HostCopyLatencyIsTheTransportsSetupPlusItsLinks) {
  // rigsim-probe's latency series: one 4-byte pinned copy each way. Predicted: a zero-byte HostCopy,
  // host_copy_latency plus the route's link latencies (under a microsecond here), so it moves one for
  // one with the key the fit attributes it to.
  Measurements m;
  Series h2d = series(calibration::Test::HostCopy, "rigsim-probe"), d2h = h2d;
  h2d.direction = "h2d", d2h.direction = "d2h";
  h2d.latency = d2h.latency = true;
  h2d.points.push_back(copy_point(1, -1, 4));
  d2h.points.push_back(copy_point(1, -1, 4));
  m.series = {h2d, d2h};
  CostModel cm = calibration::default_cost_model();
  const auto before = run(cm, m);
  ASSERT_EQ(before.size(), 2u);
  for (const PointCheck& c : before) {
    EXPECT_EQ(c.metric, "latency");
    EXPECT_EQ(c.key, "host_copy_latency");
    EXPECT_EQ(c.regime, Regime::Latency);
    EXPECT_GE(c.predicted, cm.host_copy_latency.us());
    EXPECT_LT(c.predicted, cm.host_copy_latency.us() + 1.0) << c.what;
  }
  cm.host_copy_latency = cm.host_copy_latency + microseconds(2.0);
  const auto after = run(cm, m);
  for (std::size_t i = 0; i < after.size(); ++i)
    testing::expect_closed_form("previous + 2 us", before[i].predicted + 2.0, after[i].predicted, "us", 1e-6);
}

TEST(Validate, HostCopyBothWaysTeachesTheDuplexBudget) {
  // nvbandwidth's *_bidirectional_memcpy_ce (and rigsim-probe's): one GPU's copy while it copies the
  // other way. On a Gen4 x16 root port both directions share the link's host-DMA budget, half each:
  // duplex x wire, the point calibrate fits pcie_duplex_efficiency from.
  Measurements m;
  m.file = "synthetic.json";
  Series h2d = series(calibration::Test::HostCopy, "nvbandwidth"), d2h = h2d;
  h2d.direction = "h2d", d2h.direction = "d2h";
  h2d.bidirectional = d2h.bidirectional = true;
  for (int g = 0; g < 3; ++g) {
    h2d.points.push_back(copy_point(g, -1, 256.0 * 1024 * 1024));
    d2h.points.push_back(copy_point(g, -1, 256.0 * 1024 * 1024));
  }
  m.series = {h2d, d2h};
  const CostModel cm = calibration::default_cost_model();
  const double wire = 16 * 16 * 128.0 / 130 / 8;  // Gen4 x16, GB/s
  for (const PointCheck& c : run(cm, m)) {
    EXPECT_EQ(c.key, "pcie_duplex_efficiency") << c.what;
    EXPECT_EQ(c.regime, Regime::Bandwidth);
    EXPECT_NE(c.bottleneck.find("/both"), std::string::npos) << c.bottleneck;
    testing::expect_closed_form("duplex x wire", cm.pcie_duplex_efficiency * wire, c.predicted, "GB/s", 0.01);
  }
  CostModel truth = cm;
  truth.pcie_duplex_efficiency = 0.72;
  const FitResult r = fit(maker(), engine::run, measured_under(truth, m), cm);
  bool fitted = false;
  for (const FittedKey& k : r.keys)
    if (k.key == "pcie_duplex_efficiency") {
      fitted = true;
      EXPECT_TRUE(k.determined) << k.why;
      EXPECT_NEAR(k.value, 0.72, 0.0072);
    }
  EXPECT_TRUE(fitted);
}

TEST(Validate, CategoriesFollowTheTransport) {
  const auto checks = run(calibration::default_cost_model(), probe_like());
  std::map<std::string, int> count;
  for (const PointCheck& c : checks) ++count[c.category];
  EXPECT_EQ(count["host-copy"], 6);
  EXPECT_EQ(count["device-memory"], 3);
  EXPECT_EQ(count["p2p-root-complex"], 12);  // peer access: bandwidth and latency, 6 ordered pairs each
  EXPECT_EQ(count["staged"], 12);
  // NCCL's default P2P level stops at PXB: GPUs on different root ports talk through host memory.
  EXPECT_EQ(count["nccl-shm"], 6);
  EXPECT_EQ(count["gemm"], 3);
}

TEST(Validate, TheRigsNcclReleaseAppliesAsTheToolsPrintIt) {
  // Three GPUs on an AMD socket's root ports: NCCL 2.18.1-2.22.3 keeps P2P up to SYS on AMD, 2.23.4 and
  // later stop at PXB for more than two GPUs (topology::default_p2p_level). nccl-tests prints the
  // release as "2.21.5+cuda12.4", libnccl2's package as "2.21.5-1".
  for (const char* release : {"2.21.5+cuda12.4", "2.21.5-1"}) {
    Measurements m = probe_like();
    m.rig.nccl = release;
    std::map<std::string, int> count;
    for (const PointCheck& c : run(calibration::default_cost_model(), m)) ++count[c.category];
    EXPECT_EQ(count["nccl-pcie"], 6) << release;
    EXPECT_EQ(count["nccl-shm"], 0) << release;
  }
  Measurements bad = probe_like();
  bad.rig.nccl = "2.21.5+rocm6";
  try {
    run(calibration::default_cost_model(), bad);
    ADD_FAILURE() << "an NCCL release rigsim cannot read was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/rig/nccl"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2.21.5+rocm6"), std::string::npos) << e.what();
  }
}

TEST(Fit, RecoversAKnownModelWithinOnePercent) {
  CostModel truth = calibration::default_cost_model();
  truth.pcie_efficiency = 0.71;
  truth.gpu_memory_efficiency = 0.77;
  truth.p2p_write_latency = microseconds(2.4);
  truth.host_copy_latency = microseconds(7.5);
  truth.staging_sync_latency = microseconds(11.0);
  truth.nccl_ll_base_latency = microseconds(9.0);
  truth.gemm_efficiency = 0.66;
  const Measurements m = measured_under(truth, probe_like());
  const FitResult r = fit(maker(), engine::run, m, calibration::default_cost_model());
  std::map<std::string, FittedKey> by;
  for (const FittedKey& k : r.keys) by[k.key] = k;
  const std::map<std::string, double> expected = {
      {"pcie_efficiency", 0.71},     {"gpu_memory_efficiency", 0.77}, {"p2p_write_latency", 2.4e-6},
      {"host_copy_latency", 7.5e-6}, {"staging_sync_latency", 11e-6}, {"nccl_ll_base_latency", 9e-6},
      {"gemm_efficiency", 0.66}};
  for (const auto& [key, value] : expected) {
    ASSERT_TRUE(by.contains(key)) << key << " was not fitted";
    EXPECT_TRUE(by[key].determined) << key << ": " << by[key].why;
    EXPECT_NEAR(by[key].value, value, 0.01 * value)
        << key << ": expected " << value << ", fitted " << by[key].value;
  }
  EXPECT_LT(median_abs_error(r.after), 0.01);
  EXPECT_GT(median_abs_error(r.before), median_abs_error(r.after));
}

TEST(Fit, KeysNoPointDependsOnAreNotTouched) {
  const Measurements m = measured_under(calibration::default_cost_model(), probe_like());
  const FitResult r = fit(maker(), engine::run, m, calibration::default_cost_model());
  for (const FittedKey& k : r.keys) {
    EXPECT_NE(k.key, "nvlink_efficiency");        // the rig has no NVLink
    EXPECT_NE(k.key, "inter_socket_efficiency");  // nor a second socket
  }
  // Fitting the defaults' own predictions changes nothing.
  EXPECT_LT(median_abs_error(r.after), 1e-3);
}

}  // namespace
}  // namespace rigsim::model
