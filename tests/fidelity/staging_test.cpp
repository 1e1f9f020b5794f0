// Fidelity rules 2, 3 and 8 (issue 9): the driver's host staging of cudaMemcpyPeer without peer access
// as a chunked pipeline, both directions of staged copies contending for each link's duplex budget, and
// the latency gap between P2P writes and staged copies. Each test states its closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "report/p2p.hpp"
#include "tests/fidelity/fidelity_fixture.hpp"

namespace rigsim::model {
namespace {

using namespace testing;
using fidelity::bench_of;
using fidelity::pair_layout;
using fidelity::pcie_x16_gbs;

constexpr double kS = 256.0 * 1024 * 1024;  // bytes per copy, as run_p2p_bench's default

/// Latency of the two legs run at once (the slower one): launch + DMA setup + hops.
double legs_latency(const Platform& p) {
  const auto& t = p.topology();
  return std::max(p.route(t.find("gpu0"), t.find("cpu0"), Transport::HostCopy).latency.value,
                  p.route(t.find("cpu0"), t.find("gpu1"), Transport::HostCopy).latency.value);
}

/// The two legs' link latencies on pair_layout's root ports: GPU -> root port -> memory -> root port ->
/// GPU crosses two PCIe links, one per leg.
double root_port_hops(const Platform& p) {
  return 2 * p.cost_model().pcie_hop_latency.value;
}

/// The staged copy's closed form: S / (legs' latency + min(c, S)/B + n t_sync + (n-1) h + S/B_flow), GB/s,
/// with n = max(1, ceil(S/c)); B is a leg alone, B_flow what each leg gets while the copy runs, h the two
/// legs' link latencies (every hand-off after the first crosses them).
double staged_gbs(double s, double chunk, double t_sync, double leg_gbs, double flow_gbs, double lat,
                  double h) {
  const double n = std::max(1.0, std::ceil(s / chunk));
  const double t =
      lat + std::min(chunk, s) / (leg_gbs * 1e9) + n * t_sync + (n - 1) * h + s / (flow_gbs * 1e9);
  return s / t / 1e9;
}

/// Two RTX 4090 with the P2P driver on one EPYC 7002 in NPS4: GPU0 on quadrant 3, GPU1 on quadrant 2, each
/// node 2 of the 8 channels.
std::string nps4_pair_layout() {
  return R"({"name": "nps4", "driver": {"p2p_patched": true},
    "cpus": [{"id": "cpu0", "model": "epyc-7002", "nps": 4}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16, "quadrant": 3},
                     {"id": "rc1", "cpu": "cpu0", "lanes": 16, "quadrant": 2}],
    "slots": [{"id": "s0", "parent": "rc0", "gen": 4, "width": 16}, {"id": "s1", "parent": "rc1", "gen": 4, "width": 16}],
    "gpus": [{"id": "gpu0", "model": "rtx-4090", "slot": "s0"}, {"id": "gpu1", "model": "rtx-4090", "slot": "s1"}]})";
}

TEST(StagedCopy, ChunkedPipelineClosedFormAdaGen4) {
  const Platform p = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 1));
  const auto& c = p.cost_model();
  const P2pBenchResult r = bench_of(p, kS);
  const double b = pcie_x16_gbs(p, 4);  // each leg alone: its GPU's Gen4 x16 link
  const auto& ada = *p.topology().device(p.topology().gpus()[0]).gpu;
  const double chunk = calibration::staging_chunk_of(c, ada, ada).value;
  EXPECT_DOUBLE_EQ(chunk, c.staging_chunk.value);
  const double expected =
      staged_gbs(kS, chunk, c.staging_sync_latency.value, b, b, legs_latency(p), root_port_hops(p));
  expect_closed_form("(n+1)c/B + n t_sync + (n-1) h + latency, n = S/c (Ada chunk)", expected,
                     r.uni_p2p_off[0][1], "GB/s");
  // A large fraction of a leg: 1 / (1 + t_sync B / c) ~ 0.85 (published: 22.2 of 25.8 GB/s, stelline).
  EXPECT_GT(r.uni_p2p_off[0][1], 0.75 * b);
  EXPECT_LT(r.uni_p2p_off[0][1], b);
}

TEST(StagedCopy, LegacyDriverPathTakesTurnsThroughOneBufferAmpereGen3) {
  const Platform p = platform_of(pair_layout("rtx-3090", "epyc-7002", 3, 1));
  const auto& c = p.cost_model();
  const P2pBenchResult r = bench_of(p, kS);
  const double b = pcie_x16_gbs(p, 3);
  // The legacy path stages in the same chunks, but each chunk's D2H, a hand-off, its H2D and a hand-off
  // before the buffer is reused take turns: the legs run one after the other (their bytes add, 2S/B)
  // with 2n - 1 hand-offs, each after the first crossing the legs' links.
  const auto& g3090 = *p.topology().device(p.topology().gpus()[0]).gpu;
  EXPECT_FALSE(calibration::staging_overlaps(g3090, g3090));
  const double chunk = calibration::staging_chunk_of(c, g3090, g3090).value;
  EXPECT_DOUBLE_EQ(chunk, c.staging_chunk_legacy.value);
  const double n = std::ceil(kS / chunk), t_sync = c.staging_sync_latency.value, h = root_port_hops(p);
  const double t = legs_latency(p) + 2 * kS / (b * 1e9) + (2 * n - 1) * t_sync + (2 * n - 2) * h;
  expect_closed_form("2S/B + (2n-1) t_sync + (2n-2) h + latency (legs take turns)", kS / t / 1e9,
                     r.uni_p2p_off[0][1], "GB/s");
  // Below half a leg by the hand-offs: B / (2 + 2 (t_sync + h) B / c) (published Gen3 runs: 5.71 of
  // 12.2 GB/s; Gen4 3090 pairs 11.2-11.3 of 25.8).
  expect_closed_form("B / (2 + 2 (t_sync + h) B / c)", b / (2 + 2 * (t_sync + h) * b * 1e9 / chunk),
                     r.uni_p2p_off[0][1], "GB/s", 0.01);
  EXPECT_LT(r.uni_p2p_off[0][1], 0.5 * b);
  // The why says so: 2n - 1 hand-offs, the legs taking turns.
  const auto staged = std::find_if(r.why.begin(), r.why.end(), [](const P2pWhy& w) { return !w.enabled; });
  ASSERT_NE(staged, r.why.end());
  EXPECT_FALSE(staged->overlapped);
  EXPECT_EQ(staged->handoffs, 2 * n - 1);
  EXPECT_NE(report::p2p_bench_text(r).find("take turns through one buffer"), std::string::npos);
  // More chunks (a smaller buffer) mean more hand-offs: never faster.
  calibration::CostModel small = c;
  small.staging_chunk_legacy = Bytes{chunk / 4};
  const Platform q = platform_of(pair_layout("rtx-3090", "epyc-7002", 3, 1), small);
  EXPECT_LT(bench_of(q, kS).uni_p2p_off[0][1], r.uni_p2p_off[0][1]);
  // Chunk 0 is the whole copy as one chunk: store-and-forward, 2S/B + t_sync.
  calibration::CostModel whole = c;
  whole.staging_chunk_legacy = Bytes{0};
  const Platform w = platform_of(pair_layout("rtx-3090", "epyc-7002", 3, 1), whole);
  expect_closed_form("2S/B + t_sync + latency (store-and-forward)",
                     kS / (legs_latency(w) + 2 * kS / (b * 1e9) + t_sync) / 1e9,
                     bench_of(w, kS).uni_p2p_off[0][1], "GB/s");
}

TEST(StagedCopy, LegsThatTakeTurnsNeverShareALink) {
  // Two RTX 2080 Ti under one Gen3 switch (the AutoDL rig's shape): taking turns, a copy's D2H and H2D
  // never run at once, so each has the switch uplink to itself and the copy is the root-port pair's
  // S / B + S / B + (2n - 1) t_sync + (2n - 2) h, not the uplink's both-directions budget.
  const Platform p = platform_of(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-scalable-2"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}],
    "switches": [{"id": "sw0", "model": "pex8747", "parent": "rc0"}],
    "gpus": [{"id": "gpu0", "model": "rtx-2080-ti", "parent": "sw0"}, {"id": "gpu1", "model": "rtx-2080-ti", "parent": "sw0"}]})");
  const auto& c = p.cost_model();
  const P2pBenchResult r = bench_of(p, kS);
  const auto& t = p.topology();
  const Route d2h = p.route(t.find("gpu0"), t.find("cpu0"), Transport::HostCopy);
  const Route h2d = p.route(t.find("cpu0"), t.find("gpu1"), Transport::HostCopy);
  const double b = pcie_x16_gbs(p, 3) * 1e9;
  const double h = d2h.latency.value - d2h.setup.value + h2d.latency.value - h2d.setup.value;
  const double n = std::ceil(kS / c.staging_chunk_legacy.value);
  const double expected = kS / (d2h.latency.value + (h2d.latency.value - h2d.setup.value) + 2 * kS / b +
                                (2 * n - 1) * c.staging_sync_latency.value + (2 * n - 2) * h);
  expect_closed_form("2S/B + (2n-1) t_sync + (2n-2) h + the legs' latency, the uplink alone each time",
                     expected / 1e9, r.uni_p2p_off[0][1], "GB/s");
  // Above what the uplink's both-directions budget would leave two concurrent legs.
  EXPECT_GT(r.uni_p2p_off[0][1], 1.05 * kS / (kS / b + kS / (c.pcie_duplex_efficiency * 15.76e9)) / 1e9);
}

TEST(StagedCopy, OnlyGeforceTuringAndAmpereTakeTurns) {
  // Published P2P=Disabled runs: pipelined on a GTX 1080 Ti, V100, A100 SXM and PCIe, TITAN RTX (2019
  // driver), Ada, Hopper SXM and Blackwell; half a leg on RTX 3090, 3070 Ti and 2080 Ti on current
  // drivers. A pair takes turns when either card does (the driver stages through one buffer).
  const auto spec = [](const char* key) -> const topology::GpuSpec& { return *topology::find_gpu(key); };
  for (const char* key : {"tesla-p100-pcie-16gb", "v100-sxm2", "a100-sxm4-80gb", "a100-pcie-40gb",
                          "rtx-a6000", "rtx-4090", "rtx-6000-ada", "h100-pcie", "rtx-5090"})
    EXPECT_TRUE(calibration::staging_overlaps(spec(key), spec(key))) << key;
  for (const char* key : {"rtx-2080-ti", "rtx-3070-ti", "rtx-3090"})
    EXPECT_FALSE(calibration::staging_overlaps(spec(key), spec(key))) << key;
  EXPECT_FALSE(calibration::staging_overlaps(spec("rtx-4090"), spec("rtx-3090"))) << "a mixed pair";
  // The same closed form as above, on an A100 PCIe pair: overlapped, so above half a leg.
  const Platform p = platform_of(pair_layout("a100-pcie-40gb", "epyc-7002", 4, 1));
  const P2pBenchResult r = bench_of(p, kS);
  const double b = pcie_x16_gbs(p, 4);
  const double chunk =
      calibration::staging_chunk_of(p.cost_model(), spec("a100-pcie-40gb"), spec("a100-pcie-40gb")).value;
  EXPECT_DOUBLE_EQ(chunk, p.cost_model().staging_chunk.value);
  const double expected = staged_gbs(kS, chunk, p.cost_model().staging_sync_latency.value, b, b,
                                     legs_latency(p), root_port_hops(p));
  expect_closed_form("(n+1)c/B + n t_sync + (n-1) h + latency, n = S/c (A100 PCIe)", expected,
                     r.uni_p2p_off[0][1], "GB/s");
  EXPECT_GT(r.uni_p2p_off[0][1], 0.75 * b);
}

TEST(StagedCopy, EveryHandOffCrossesTheLegsSoASocketLinkSlowsTheCopy) {
  // The same pair with the receiving GPU on the other socket: the H2D leg also crosses the socket link
  // (inter_socket_latency), which every hand-off after the first pays; xGMI's rate is far above a leg.
  const Platform one = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 1));
  const Platform two = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 2));
  const auto& c = one.cost_model();
  const double b = pcie_x16_gbs(one, 4);
  const double h = root_port_hops(one) + c.inter_socket_latency.value;
  const double expected =
      staged_gbs(kS, c.staging_chunk.value, c.staging_sync_latency.value, b, b, legs_latency(two), h);
  const double got = bench_of(two, kS).uni_p2p_off[0][1];
  expect_closed_form("(n+1)c/B + n t_sync + (n-1)(h + socket link) + latency", expected, got, "GB/s");
  EXPECT_LT(got, bench_of(one, kS).uni_p2p_off[0][1]);
}

TEST(StagedCopy, BothLegsUseTheSendersNumaNode) {
  // EPYC 7002 in NPS4: GPU0 on quadrant 3, GPU1 on quadrant 2, each node 2 of the 8 channels
  // (51.2 GB/s x memory_efficiency). The D2H leg writes the sender's node and the H2D leg reads the same
  // buffer, so that node's memory carries every byte twice: each leg gets node / 2 (21.5 GB/s), below the
  // Gen4 leg. (Before, the H2D leg read the receiver's node, and neither node limited the copy.)
  const std::string layout = nps4_pair_layout();
  const Platform p = platform_of(layout);
  const auto& c = p.cost_model();
  const double b = pcie_x16_gbs(p, 4);
  const double node = 204.8 / 4 * c.memory_efficiency;
  ASSERT_LT(node / 2, b);
  const double expected = staged_gbs(kS, c.staging_chunk.value, c.staging_sync_latency.value, b, node / 2,
                                     legs_latency(p), root_port_hops(p));
  const double got = bench_of(p, kS).uni_p2p_off[0][1];
  expect_closed_form("S / (latency + c/B + n t_sync + (n-1) h + S/(node / 2))", expected, got, "GB/s");
  // NPS1 (one node of all 8 channels) is not limited by memory: the leg decides.
  std::string nps1 = layout;
  nps1.replace(nps1.find(R"("nps": 4)"), 8, R"("nps": 1)");
  EXPECT_GT(bench_of(platform_of(nps1), kS).uni_p2p_off[0][1], got * 1.1);
}

TEST(StagedCopy, BothDirectionsStageInTheProcesssOneNumaNode) {
  // The same NPS4 pair copying both ways at once. The driver's pinned buffers are pages of the one
  // process, placed by Linux's default policy on the node of the CPU that touches them (set_mempolicy(2)),
  // so both directions stage through one node (rigsim: GPU0's, the pair's first): its memory carries
  // four crossings per pair of bytes, each leg node / 4. (Before, each direction used its own sender's
  // node, and the pair read twice the one-way figure.)
  const Platform p = platform_of(nps4_pair_layout());
  const P2pBenchResult r = bench_of(p, kS);
  const auto& c = p.cost_model();
  const double node = 204.8 / 4 * c.memory_efficiency;  // 2 of the socket's 8 channels
  // The reverse direction's legs run from GPU1 to GPU0's node and back: the same two root ports, the
  // same hops.
  const double expected = 2 * staged_gbs(kS, c.staging_chunk.value, c.staging_sync_latency.value,
                                         pcie_x16_gbs(p, 4), node / 4, legs_latency(p), root_port_hops(p));
  expect_closed_form("2S / (latency + c/B + n t_sync + (n-1) h + S/(node / 4))", expected, r.bi_p2p_off[0][1],
                     "GB/s");
  EXPECT_LT(r.bi_p2p_off[0][1], 1.2 * r.uni_p2p_off[0][1]);
}

TEST(StagedCopy, BiggerChunksOrCheaperHandOffsNeverSlowACopy) {
  const std::string layout = pair_layout("rtx-6000-ada", "epyc-9004", 4, 1);
  double last = 0;
  for (double chunk : {64e3, 256e3, 1e6, 4e6}) {
    calibration::CostModel c = calibration::default_cost_model();
    c.staging_chunk = Bytes{chunk};
    const double got = bench_of(platform_of(layout, c), 64e6).uni_p2p_off[0][1];
    EXPECT_GT(got, last) << "chunk " << chunk;
    last = got;
  }
  last = 1e9;
  for (double us : {1.0, 3.0, 6.0, 12.0}) {
    calibration::CostModel c = calibration::default_cost_model();
    c.staging_sync_latency = microseconds(us);
    const double got = bench_of(platform_of(layout, c), 64e6).uni_p2p_off[0][1];
    EXPECT_LT(got, last) << "t_sync " << us << " us";
    last = got;
  }
}

TEST(StagedCopy, LargerCopiesApproachTheSteadyRateFromBelow) {
  const Platform p = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 1));
  const auto& c = p.cost_model();
  const double b = pcie_x16_gbs(p, 4);
  // Steady state of the pipeline: B / (1 + (t_sync + h) B / c).
  const double steady =
      b / (1 + (c.staging_sync_latency.value + root_port_hops(p)) * b * 1e9 / c.staging_chunk.value);
  double last = 0;
  for (double s : {1e6, 16e6, 256e6, 2e9}) {
    const double got = bench_of(p, s).uni_p2p_off[0][1];
    EXPECT_GT(got, last) << s;
    EXPECT_LT(got, steady) << s;
    last = got;
  }
  expect_closed_form("B / (1 + (t_sync + h) B / c) for S >> c", steady, last, "GB/s", 0.02);
}

TEST(StagedCopy, BidirectionalSharesEachLinksDuplexBudget) {
  // Both copies at once: each GPU link carries the D2H of its own copy and the H2D of the other, two
  // host-DMA flows on a budget of pcie_duplex_efficiency x 2 x wire, so each gets duplex x wire.
  const Platform p = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 1));
  const auto& c = p.cost_model();
  const P2pBenchResult r = bench_of(p, kS);
  const double b = pcie_x16_gbs(p, 4);
  const double flow = c.pcie_duplex_efficiency * topology::pcie_link_gbs(4, 16);
  const double one = staged_gbs(kS, c.staging_chunk.value, c.staging_sync_latency.value, b, flow,
                                legs_latency(p), root_port_hops(p));
  expect_closed_form("2 S / (latency + c/B + n t_sync + (n-1) h + S/(duplex x wire))", 2 * one,
                     r.bi_p2p_off[0][1], "GB/s");
  // Published: 31.5 GB/s both ways vs 22.2 one way on this rig (stelline): well under twice.
  EXPECT_LT(r.bi_p2p_off[0][1], 1.6 * r.uni_p2p_off[0][1]);
  EXPECT_GT(r.bi_p2p_off[0][1], r.uni_p2p_off[0][1]);
}

TEST(StagedCopy, BidirectionalIsBoundedByTheSocketsMemory) {
  // A socket whose memory is the bottleneck: 4 crossings of the DRAM link (two legs written, two read)
  // share memory_bw x memory_efficiency, so the two copies together get at most half of it.
  std::string layout = pair_layout("rtx-6000-ada", "epyc-9004", 4, 1);
  layout.replace(layout.find(R"("model": "epyc-9004")"), 20, R"("model": "epyc-9004", "memory_bw_gbs": 40)");
  const Platform p = platform_of(layout);
  const P2pBenchResult r = bench_of(p, kS);
  const double dram = 40 * p.cost_model().memory_efficiency;
  EXPECT_LT(r.bi_p2p_off[0][1], dram / 2 * 1.001) << "expected at most DRAM/2 = " << dram / 2 << " GB/s";
  EXPECT_LT(r.bi_p2p_off[0][1], 2 * r.uni_p2p_off[0][1]);
}

TEST(StagedCopy, SlowerSocketMemoryNeverSpeedsACopy) {
  double last = 1e9;
  for (int gbs : {400, 100, 40, 20}) {
    std::string layout = pair_layout("rtx-6000-ada", "epyc-9004", 4, 1);
    layout.replace(layout.find(R"("model": "epyc-9004")"), 20,
                   R"("model": "epyc-9004", "memory_bw_gbs": )" + std::to_string(gbs));
    const P2pBenchResult r = bench_of(platform_of(layout), 64e6);
    EXPECT_LE(r.bi_p2p_off[0][1], last * 1.0001) << gbs;
    last = r.bi_p2p_off[0][1];
  }
}

TEST(StagedLatency, ZeroByteStagedCopyIsLaunchPlusOneHandOff) {
  const Platform p = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 1));
  const P2pBenchResult r = bench_of(p);
  const double expected = (legs_latency(p) + p.cost_model().staging_sync_latency.value) * 1e6;
  expect_closed_form("max(leg latencies) + staging_sync_latency", expected, r.latency_us_p2p_off[0][1], "us");
}

TEST(StagedLatency, P2pWritesAreAnOrderOfMagnitudeFasterAcrossGenerations) {
  // Published P2P=Enabled vs P2P=Disabled latencies: 1.1-1.4 us vs 10.3-14.2 us (RTX 6000 Ada), 3.3 vs
  // 23.6 us (A100 SXM4), 0.48 vs 14 us (RTX 5090, patched driver): a gap of 7-30x. Pascal, Turing
  // (Quadro), Ampere and Ada with peer access; Blackwell with a patched driver.
  struct Case {
    const char* gpu;
    const char* cpu;
    int gen;
    bool patched;
  };
  for (const Case& k :
       {Case{"tesla-p40", "xeon-e5-v4", 3, false}, Case{"quadro-rtx-6000", "xeon-scalable-2", 3, false},
        Case{"rtx-a6000", "epyc-7003", 4, false}, Case{"rtx-6000-ada", "epyc-9004", 4, false},
        Case{"rtx-5090", "epyc-9004", 5, true}}) {
    const Platform p = platform_of(pair_layout(k.gpu, k.cpu, k.gen, 1, k.patched));
    const P2pBenchResult r = bench_of(p, 1e6);
    ASSERT_TRUE(r.can_access[0][1]) << k.gpu;
    const int sm = p.topology().device(p.topology().find("gpu0")).gpu->sm;
    expect_closed_form("p2p_write_latency_of(sm)",
                       calibration::p2p_write_latency_of(p.cost_model(), sm, 0).us(),
                       r.latency_us_p2p_on[0][1], "us");
    const double ratio = r.latency_us_p2p_off[0][1] / r.latency_us_p2p_on[0][1];
    EXPECT_GT(ratio, 6) << k.gpu;
    EXPECT_LT(ratio, 32) << k.gpu;
    EXPECT_GT(r.latency_us_p2p_off[0][1], 10) << k.gpu;
    EXPECT_LT(r.latency_us_p2p_off[0][1], 16) << k.gpu;
  }
}

TEST(StagedLatency, P2pWriteLatencyIsTheIssueTimePlusTheSocketLinksCrossed) {
  // Posted writes do not wait for the far end: eight RTX PRO 6000 read 0.45-0.53 us for every pair,
  // behind one switch or across the CPU (voipmonitor/rtx6kpro wrx90-cpayne-2switch-flat.md), so within
  // a socket the path does not count. Across the sockets the writes cross the socket link: RTX 6000 Ada
  // on dual Genoa 1.32-1.44 us against 1.21-1.29 within one (stelline), the measurement
  // inter_socket_latency (0.1 us) comes from. A profile's p2p_write_latency replaces the issue time.
  const Platform near = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 1, false));
  const Platform far = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 2, false));
  const double a = bench_of(near, 1e6).latency_us_p2p_on[0][1];
  const double b = bench_of(far, 1e6).latency_us_p2p_on[0][1];
  EXPECT_DOUBLE_EQ(a, 1.25);  // RTX 6000 Ada: 1.21-1.34 and 1.12-1.14 us measured
  expect_closed_form("issue time + inter_socket_latency", a + far.cost_model().inter_socket_latency.us(), b,
                     "us", 1e-9);
  calibration::CostModel cm = calibration::default_cost_model();
  cm.p2p_write_latency = microseconds(0.7);
  EXPECT_DOUBLE_EQ(calibration::p2p_write_latency_of(cm, 89, 0).us(), 0.7);
  EXPECT_DOUBLE_EQ(calibration::p2p_write_latency_of(calibration::default_cost_model(), 120, 0).us(), 0.49);
}

TEST(StagedLatency, P2pCopyLatencyOverNvlinkIsTheNvlinkGenerationsFigure) {
  // Over NVLink the sample's back-to-back copy-engine copies take the NVLink path's figure, not the
  // GPU's PCIe issue time: V100 on DGX-2's NVSwitch 2.36-2.97 us (median 2.6, wohlbier/gpu-micro), A100
  // on HGX NVSwitch 3.30-3.42 (DistServe#3), against 1.9-2.0 for an A100's own PCIe P2P. Generations
  // without a published matrix take the mean of the measured ones, (2.6 + 3.35) / 2 = 2.975 us. Every
  // pair of an NVSwitch box reads the same figure, across the sockets too (NVLink crosses no socket).
  const calibration::CostModel m = calibration::default_cost_model();
  struct Case {
    const char* layout;
    int gen;
    double us;
  };
  for (const Case& k :
       {Case{"dgx1-v100", 2, 2.6}, Case{"dgx-a100", 3, 3.35}, Case{"hgx-h100", 4, (2.6 + 3.35) / 2},
        Case{"hgx-b200", 5, (2.6 + 3.35) / 2}, Case{"consumer-2x3090-nvlink", 3, 3.35}}) {
    const Platform p(
        topology::load_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/" + k.layout + ".json"),
        m);
    const P2pBenchResult r = bench_of(p, 1e6);
    const int sm = p.topology().device(p.topology().gpus()[0]).gpu->sm;
    EXPECT_DOUBLE_EQ(calibration::p2p_write_latency_of(m, sm, k.gen).us(), k.us) << k.layout;
    ASSERT_TRUE(r.can_access[0][1]) << k.layout;
    expect_closed_form(std::string(k.layout) + ": NVLink " + std::to_string(k.gen) + " copy latency", k.us,
                       r.latency_us_p2p_on[0][1], "us", 1e-9);
    if (std::string(k.layout) == "hgx-h100") {  // GPU 7 is on the other socket; NVLink crosses none
      EXPECT_DOUBLE_EQ(r.latency_us_p2p_on[0][7], r.latency_us_p2p_on[0][1]);
    }
    // `rigsim p2p`'s why names the figure's basis on the kind's first pair.
    ASSERT_FALSE(r.why.empty());
    EXPECT_TRUE(r.why[0].peer) << k.layout;
    EXPECT_DOUBLE_EQ(r.why[0].latency_us, r.latency_us_p2p_on[r.why[0].src][r.why[0].dst]);
    EXPECT_NE(r.why[0].latency_basis.find("NVLink " + std::to_string(k.gen)), std::string::npos)
        << r.why[0].latency_basis;
  }
  // The same A100 over PCIe (no NVLink generation) falls back to the root-port rule, below NVLink's.
  EXPECT_LT(calibration::p2p_write_latency_of(m, 80, 0).us(),
            calibration::p2p_write_latency_of(m, 80, 3).us());
  // A profile's figure still replaces every generation.
  calibration::CostModel cm = m;
  cm.p2p_write_latency = microseconds(2.2);
  EXPECT_DOUBLE_EQ(calibration::p2p_write_latency_of(cm, 90, 4).us(), 2.2);
}

}  // namespace
}  // namespace rigsim::model
