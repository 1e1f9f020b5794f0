// `rigsim p2p` figures: closed forms on small layouts, monotonicity (a wider link or P2P never lowers
// a figure) and sanity bands on catalog layouts (skipped while those files are not written yet).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/executor.hpp"
#include "report/p2p.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/p2p.hpp"

namespace rigsim::model {
namespace {

using namespace testing;

P2pBenchResult bench(const std::string& layout_json) {
  return run_p2p_bench(platform_of(layout_json), engine::run);
}

/// Every off-diagonal figure of `better` is at least the one of `worse` (bandwidths), at most (latency).
void expect_not_worse(const P2pBenchResult& better, const P2pBenchResult& worse) {
  const std::size_t n = better.gpus.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      EXPECT_GE(better.uni_p2p_on[i][j], worse.uni_p2p_on[i][j] * 0.999) << i << "," << j;
      EXPECT_GE(better.uni_p2p_off[i][j], worse.uni_p2p_off[i][j] * 0.999) << i << "," << j;
      EXPECT_GE(better.bi_p2p_on[i][j], worse.bi_p2p_on[i][j] * 0.999) << i << "," << j;
      EXPECT_GE(better.bi_p2p_off[i][j], worse.bi_p2p_off[i][j] * 0.999) << i << "," << j;
      EXPECT_LE(better.latency_us_p2p_on[i][j], worse.latency_us_p2p_on[i][j] * 1.001) << i << "," << j;
    }
    EXPECT_GE(better.h2d_gbps[i], worse.h2d_gbps[i] * 0.999);
    EXPECT_GE(better.d2h_gbps[i], worse.d2h_gbps[i] * 0.999);
    for (auto figure :
         {&P2pBenchResult::h2d_concurrent_gbps, &P2pBenchResult::d2h_concurrent_gbps,
          &P2pBenchResult::h2d_bidir_gbps, &P2pBenchResult::d2h_bidir_gbps,
          &P2pBenchResult::h2d_concurrent_bidir_gbps, &P2pBenchResult::d2h_concurrent_bidir_gbps})
      EXPECT_GE((better.*figure)[i], (worse.*figure)[i] * 0.999) << i;
  }
}

/// A host copy with other copies running (nvbandwidth) never beats the same copy alone, and one with
/// more copies running never beats one with fewer.
void expect_interference_never_helps(const P2pBenchResult& r) {
  for (std::size_t i = 0; i < r.gpus.size(); ++i) {
    EXPECT_LE(r.h2d_concurrent_gbps[i], r.h2d_gbps[i] * 1.001) << i;
    EXPECT_LE(r.d2h_concurrent_gbps[i], r.d2h_gbps[i] * 1.001) << i;
    EXPECT_LE(r.h2d_bidir_gbps[i], r.h2d_gbps[i] * 1.001) << i;
    EXPECT_LE(r.d2h_bidir_gbps[i], r.d2h_gbps[i] * 1.001) << i;
    EXPECT_LE(r.h2d_concurrent_bidir_gbps[i], std::min(r.h2d_bidir_gbps[i], r.h2d_concurrent_gbps[i]) * 1.001)
        << i;
    EXPECT_LE(r.d2h_concurrent_bidir_gbps[i], std::min(r.d2h_bidir_gbps[i], r.d2h_concurrent_gbps[i]) * 1.001)
        << i;
  }
}

TEST(P2pBench, ClosedFormsOnTwoTeslaUnderOneSwitch) {
  const Platform p = platform_of(kFourBehindOneUplink);
  const P2pBenchResult r = run_p2p_bench(p, engine::run);
  const auto& c = p.cost_model();
  const double link = 16 * 0.985 * c.pcie_efficiency;  // GB/s, every link Gen3 x16
  const double s = 256.0 * 1024 * 1024;
  // P2P through the switch: S / (S/B + latency).
  const double lat = c.p2p_latency.value + 2 * c.pcie_hop_latency.value + 150e-9;
  expect_closed_form("S/(S/B + lat)", s / (s / (link * 1e9) + lat) / 1e9, r.uni_p2p_on[0][1], "GB/s");
  EXPECT_TRUE(r.can_access[0][1]);
  // Both directions at once: each direction of each link is its own resource.
  expect_closed_form("2 x uni", 2 * r.uni_p2p_on[0][1], r.bi_p2p_on[0][1], "GB/s");
  // Staged (cudaMemcpyPeer without peer access): the driver pipelines a P40's copy in n = ceil(S/c)
  // chunks, the D2H of one beside the H2D of the one before, so the host waits for the first chunk
  // (c/B, B a leg alone: the GPU link) and n hand-offs (t_sync each, and each after the first crosses
  // the legs' links h); then both leg flows run at once: the uplink carries the D2H up and the H2D
  // down, two host-DMA flows on its duplex budget 2 x duplex x wire, so each gets duplex x wire
  // (tests/fidelity/staging_test.cpp states the rule).
  const auto& t = p.topology();
  const Route d2h = p.route(t.find("g0"), t.find("cpu0"), Transport::HostCopy);
  const Route h2d = p.route(t.find("cpu0"), t.find("g1"), Transport::HostCopy);
  const double legs_lat = std::max(d2h.latency.value, h2d.latency.value);
  const double h = d2h.latency.value - d2h.setup.value + h2d.latency.value - h2d.setup.value;
  const double chunk = c.staging_chunk.value, sync = c.staging_sync_latency.value;
  ASSERT_GT(chunk, 0.0);
  const double handoffs = std::ceil(s / chunk);
  const double wait = legs_lat + chunk / (link * 1e9) + handoffs * sync + (handoffs - 1) * h;
  const double flow = c.pcie_duplex_efficiency * 16 * 0.985;  // GB/s, one of two flows on the uplink
  expect_closed_form("staged copy: S/(latency + c/B + n t_sync + (n-1) h + S/(duplex x wire))",
                     s / (wait + s / (flow * 1e9)) / 1e9, r.uni_p2p_off[0][1], "GB/s");
  // Both staged copies at once: four host-DMA flows on the uplink's duplex budget.
  expect_closed_form("bidir staged: 2S/(wait + S/(duplex x wire / 2))",
                     2 * s / (wait + s / (flow / 2 * 1e9)) / 1e9, r.bi_p2p_off[0][1], "GB/s");
  // Zero-byte staged copy: the legs' launch and one hand-off.
  expect_closed_form("max(leg latencies) + t_sync", (legs_lat + sync) * 1e6, r.latency_us_p2p_off[0][1],
                     "us");
  // P2P=Enabled latency: posted writes, the generation's issue time; no Pascal figure is measured, so
  // p2p_latency plus the two PCIe hops of a root-port route.
  expect_closed_form("p2p_latency + 2 hops", (c.p2p_latency.value + 2 * c.pcie_hop_latency.value) * 1e6,
                     r.latency_us_p2p_on[0][1], "us");
  EXPECT_GT(r.latency_us_p2p_off[0][1], c.shm_latency.us());
  // Diagonal: P40 memory bandwidth (catalog) x gpu_memory_efficiency.
  const double mem = p.topology().device(p.topology().gpus()[0]).gpu->memory_bw_gbs;
  EXPECT_DOUBLE_EQ(r.uni_p2p_on[0][0], mem * c.gpu_memory_efficiency);
  // H2D alone: the link; all four at once: a quarter of the shared uplink.
  expect_closed_form("B", link, r.h2d_gbps[0], "GB/s");
  expect_closed_form("B_uplink/4", link / 4, r.h2d_concurrent_gbps[3], "GB/s");
  // nvbandwidth's host tests. All four D2H at once share the uplink as the H2D do. One GPU both ways:
  // its slot link's host-DMA duplex budget 2 x duplex x wire, half to each direction (below B). All four
  // both ways: eight host-DMA flows on the uplink's budget, duplex x wire / 4 each (below B/4).
  const double wire = 16 * 0.985;
  expect_closed_form("B_uplink/4", link / 4, r.d2h_concurrent_gbps[3], "GB/s");
  expect_closed_form("duplex x wire", c.pcie_duplex_efficiency * wire, r.h2d_bidir_gbps[0], "GB/s");
  expect_closed_form("duplex x wire", c.pcie_duplex_efficiency * wire, r.d2h_bidir_gbps[0], "GB/s");
  expect_closed_form("duplex x wire / 4", c.pcie_duplex_efficiency * wire / 4, r.h2d_concurrent_bidir_gbps[3],
                     "GB/s");
  expect_closed_form("duplex x wire / 4", c.pcie_duplex_efficiency * wire / 4, r.d2h_concurrent_bidir_gbps[1],
                     "GB/s");
  expect_interference_never_helps(r);
  // The why of the host tests names the crowded link: all four D2H on the uplink, four copies there.
  const auto d2h_all = std::find_if(r.host_why.begin(), r.host_why.end(),
                                    [](const HostTestWhy& w) { return w.test == "D2H all"; });
  ASSERT_NE(d2h_all, r.host_why.end());
  EXPECT_EQ(d2h_all->copies, 4u);
  EXPECT_EQ(d2h_all->gpus, 4u);
  EXPECT_NEAR(d2h_all->limit_gbps, link, 0.01);
  EXPECT_NEAR(d2h_all->gbps, r.d2h_concurrent_gbps[0], 1e-9);
  // nvbandwidth's SM write copies: a kernel's stores through the switch (the P2P route's own 128-byte
  // payloads, what NCCL's kernels get) and to host memory (128-byte TLPs where the rates are 256-byte
  // ones: tlp_cost(128) = (256/276) / (128/148) = 1.072).
  expect_closed_form("S/(S/B + lat)", s / (s / (link * 1e9 / 1.0725) + lat) / 1e9, r.uni_p2p_on_sm[0][1],
                     "GB/s");
  expect_closed_form("B / tlp_cost(128)", link / ((256.0 / 276) / (128.0 / 148)), r.d2h_sm_gbps[0], "GB/s");
  EXPECT_LT(r.uni_p2p_on_sm[0][1], r.uni_p2p_on[0][1]);
}

TEST(P2pBench, RemoteHostMemoryCrossesTheSocketLink) {
  // Two Xeon E5 v4 sockets: pinned memory on the other socket reaches a Gen3 x16 P40 over QPI, 2 links
  // x 19.2 GB/s at qpi_efficiency (the P100 remote-NUMA H2D of hardware.md §2.2, 3.78 GB/s, is where
  // that efficiency comes from), far below the local copy's PCIe rate.
  const Platform p = platform_of(kTwoSockets);
  const P2pBenchResult r = run_p2p_bench(p, engine::run);
  const auto& c = p.cost_model();
  const double s = 256.0 * 1024 * 1024;
  const double qpi = 2 * 19.2e9 * c.qpi_efficiency;
  const auto& t = p.topology();
  const double lat = p.route(t.find("cpu1"), t.find("g0"), Transport::HostCopy).latency.value;
  expect_closed_form("S/(S/(2 x 19.2 GB/s x qpi_eff) + latency)", s / (s / qpi + lat) / 1e9,
                     r.h2d_remote_gbps[0], "GB/s");
  expect_closed_form("the same for D2H", r.h2d_remote_gbps[0], r.d2h_remote_gbps[0], "GB/s");
  EXPECT_LT(r.h2d_remote_gbps[0], r.h2d_gbps[0] / 2);
  // One socket: no remote memory to copy from.
  const P2pBenchResult one = run_p2p_bench(platform_of(kOneGen4), engine::run);
  EXPECT_EQ(one.h2d_remote_gbps[0], 0.0);
}

/// An RTX 5090 and an RTX 4090, each on its own Gen4 x16 root port of one EPYC, and a second 5090 and
/// 4090 under one Gen4 switch: the Blackwell card's own links move pcie_efficiency_sm90 of the wire, the
/// Ada card's and the shared uplink pcie_efficiency (calibration/cost_model_defaults.cpp has the runs).
const char* kBlackwellBesideAda = R"({
  "name": "blackwell-beside-ada",
  "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                   {"id": "rc2", "cpu": "cpu0", "lanes": 16}],
  "switches": [{"id": "sw0", "model": "pex88096", "parent": "rc2"}],
  "gpus": [{"id": "g0", "model": "rtx-5090", "parent": "rc0"}, {"id": "g1", "model": "rtx-4090", "parent": "rc1"},
           {"id": "g2", "model": "rtx-5090", "parent": "sw0"}, {"id": "g3", "model": "rtx-4090", "parent": "sw0"}]
})";

TEST(P2pBench, HopperAndBlackwellFillAPcieLinkFurther) {
  const Platform p = platform_of(kBlackwellBesideAda);
  const P2pBenchResult r = run_p2p_bench(p, engine::run);
  const auto& c = p.cost_model();
  const auto& t = p.topology();
  const double s = 256.0 * 1024 * 1024;
  const double wire = 16 * 1.969e9;  // Gen4 x16 (hardware.md §2.1)
  const auto h2d = [&](const char* gpu, double eff) {
    const double lat = p.route(t.find("cpu0"), t.find(gpu), Transport::HostCopy).latency.value;
    return s / (s / (wire * eff) + lat) / 1e9;
  };
  expect_closed_form("S/(S/(Gen4 x16 x pcie_efficiency_sm90) + latency), RTX 5090 alone on its port",
                     h2d("g0", c.pcie_efficiency_sm90), r.h2d_gbps[0], "GB/s");
  expect_closed_form("S/(S/(Gen4 x16 x pcie_efficiency) + latency), RTX 4090 alone on its port",
                     h2d("g1", c.pcie_efficiency), r.h2d_gbps[1], "GB/s");
  // Under the shared switch the uplink carries the Ada card's traffic too: it stays at pcie_efficiency,
  // and the 5090's copy to the host is held to it.
  expect_closed_form("the uplink's S/(S/(Gen4 x16 x pcie_efficiency) + latency), RTX 5090 under the switch",
                     h2d("g2", c.pcie_efficiency), r.h2d_gbps[2], "GB/s");
  EXPECT_GT(r.h2d_gbps[0], r.h2d_gbps[2]);
  const std::vector<bool> only = sm90_only_links(t);
  for (const topology::Link& l : t.links()) {
    const std::string below = t.device(l.down).name;
    const bool blackwell_alone = below == "g0" || below == "g2" || below == "rc0";
    EXPECT_EQ(only[l.id], blackwell_alone) << t.device(l.up).name << " -> " << below;
  }
}

TEST(P2pBench, WideningALinkNeverLowersAFigure) {
  expect_not_worse(bench(two_3090(16, false)), bench(two_3090(8, false)));
  expect_not_worse(bench(two_3090(16, true)), bench(two_3090(8, true)));
}

TEST(P2pBench, EnablingP2pNeverLowersAFigure) {
  const P2pBenchResult stock = bench(two_3090(16, false));
  const P2pBenchResult patched = bench(two_3090(16, true));
  EXPECT_FALSE(stock.can_access[0][1]);  // GeForce on a stock driver: staged even with "P2P=Enabled"
  EXPECT_TRUE(patched.can_access[0][1]);
  EXPECT_DOUBLE_EQ(stock.uni_p2p_on[0][1], stock.uni_p2p_off[0][1]);
  expect_not_worse(patched, stock);
  EXPECT_GT(patched.uni_p2p_on[0][1], 1.5 * stock.uni_p2p_on[0][1]);
}

TEST(P2pBench, NvlinkPairIsFarAboveAnX8PciePair) {
  const P2pBenchResult nvlink = bench(two_3090(8, false, true));
  const P2pBenchResult pcie = bench(two_3090(8, false));
  EXPECT_GT(nvlink.uni_p2p_on[0][1], 4 * pcie.uni_p2p_on[0][1]);
  EXPECT_GT(nvlink.bi_p2p_on[0][1], 4 * pcie.bi_p2p_on[0][1]);
}

TEST(P2pBench, CatalogNvlinkPairBeatsItsPcie) {
  const auto topo = catalog_layout("consumer-2x3090-nvlink");
  if (!topo) GTEST_SKIP() << "scenarios/layouts/consumer-2x3090-nvlink.json not written yet";
  const P2pBenchResult r = run_p2p_bench(Platform(*topo, calibration::default_cost_model()), engine::run);
  EXPECT_GT(r.uni_p2p_on[0][1], 40.0);    // 4 x 14.0625 GB/s x 0.8
  EXPECT_LT(r.uni_p2p_off[0][1], 15.75);  // staged over Gen4 x8
  EXPECT_GT(r.uni_p2p_on[0][1], 4 * r.uni_p2p_off[0][1]);
}

TEST(P2pBench, PeerAccessDoesNotRouteThroughAThirdGpu) {
  // DGX-1: GPU 0 has NVLink to 1-4 only; 5-7 are on the other Xeon E5 v4 socket, whose PCIe P2P the
  // driver refuses, so p2pBandwidthLatencyTest prints "Device=0 CANNOT Access Peer Device=5" and stages
  // those copies through the host with P2P=Enabled too (NCCL's P2P transport does cross GPU 4's NVLinks:
  // PATH_NVB, hardware_p2p). Its direct NVLink peers stay peers.
  const auto topo = catalog_layout("dgx1-v100");
  if (!topo) GTEST_SKIP() << "scenarios/layouts/dgx1-v100.json not written yet";
  const P2pBenchResult r = run_p2p_bench(Platform(*topo, calibration::default_cost_model()), engine::run);
  const auto gpus = topo->gpus();
  EXPECT_TRUE(topology::hardware_p2p(*topo, gpus[0], gpus[5]).allowed);
  EXPECT_EQ(topology::hardware_p2p(*topo, gpus[0], gpus[5]).path, topology::PathClass::NVB);
  EXPECT_FALSE(topology::driver_peer_access(*topo, gpus[0], gpus[5]).allowed);
  for (std::size_t j = 1; j < 8; ++j) {
    EXPECT_EQ(r.can_access[0][j], j <= 4) << "0 -> " << j;
    if (j <= 4) continue;
    EXPECT_NEAR(r.uni_p2p_on[0][j], r.uni_p2p_off[0][j], 1e-9 * r.uni_p2p_off[0][j])
        << "staged either way, 0 -> " << j;
    EXPECT_NEAR(r.latency_us_p2p_on[0][j], r.latency_us_p2p_off[0][j], 1e-9 * r.latency_us_p2p_off[0][j])
        << "0 -> " << j;
  }
}

TEST(P2pBench, HostCopiesWithOthersRunningNeverBeatThemAlone) {
  for (const char* name : {"dgx-a100", "dual-turin-8gpu", "supermicro-4028gr-tr-x9drg", "mining-3x3090-x1"}) {
    const auto topo = catalog_layout(name);
    if (!topo) GTEST_SKIP() << name << " not written yet";
    SCOPED_TRACE(name);
    expect_interference_never_helps(
        run_p2p_bench(Platform(*topo, calibration::default_cost_model()), engine::run));
  }
}

TEST(P2pBench, CopyEnginesGetMoreOfAnNvlinkThanNcclsKernels) {
  // DGX A100: 12 NVLink3 x 25 GB/s through the NVSwitch. NCCL's kernels (128-byte payloads) get 20 of
  // 25 (eta 0.8); cudaMemcpyPeer's copy engines move 256-byte payloads with the same per-packet
  // overhead o = 128 (1/0.8 - 1) = 32 bytes: 256 / 288 of the wire = 266.7 GB/s one way, 533.3 both.
  const auto topo = catalog_layout("dgx-a100");
  if (!topo) GTEST_SKIP() << "scenarios/layouts/dgx-a100.json not written yet";
  const P2pBenchResult r = run_p2p_bench(Platform(*topo, calibration::default_cost_model()), engine::run);
  expect_closed_form("12 x 25 GB/s x 256 / (256 + 32)", 12 * 25 * 256.0 / 288, r.uni_p2p_on[0][1], "GB/s");
  expect_closed_form("2 x 12 x 25 GB/s x 256 / 288", 2 * 12 * 25 * 256.0 / 288, r.bi_p2p_on[0][1], "GB/s");
  // nvbandwidth's all_to_one / one_to_all: seven peers' copy engines into one GPU (or it out to them)
  // fill that GPU's switch port, the same 12 x 25 x 256 / 288 in all.
  expect_closed_form("12 x 25 GB/s x 256 / 288 in all", 12 * 25 * 256.0 / 288, r.fan_in_gbps[0], "GB/s");
  expect_closed_form("12 x 25 GB/s x 256 / 288 in all", 12 * 25 * 256.0 / 288, r.fan_out_gbps[5], "GB/s");
  // nvbandwidth's SM write copy moves 128-byte payloads: the kernels' 20 of 25 GB/s per link.
  expect_closed_form("12 x 25 GB/s x 0.8", 12 * 25 * 0.8, r.uni_p2p_on_sm[0][1], "GB/s");
  // PCIe routes are not affected: the x8 pair stays at its PCIe rate (the ClosedForms test above).
}

TEST(P2pBench, CatalogX1RiserRigStaysUnderOneGBps) {
  const auto topo = catalog_layout("mining-3x3090-x1");
  if (!topo) GTEST_SKIP() << "scenarios/layouts/mining-3x3090-x1.json not written yet";
  const P2pBenchResult r = run_p2p_bench(Platform(*topo, calibration::default_cost_model()), engine::run);
  for (std::size_t i = 0; i < r.gpus.size(); ++i) {
    EXPECT_LT(r.h2d_gbps[i], 1.0);
    for (std::size_t j = 0; j < r.gpus.size(); ++j) {
      if (i == j) continue;
      EXPECT_LT(r.uni_p2p_on[i][j], 1.0) << i << "," << j;
      EXPECT_LT(r.bi_p2p_on[i][j], 1.0) << i << "," << j;
    }
  }
}

TEST(P2pBench, TextAndJsonCarryTheMatrices) {
  const P2pBenchResult r = bench(kStagedUnequalLegs);
  const std::string text = report::p2p_bench_text(r);
  for (const char* needle :
       {"Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)",
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
        "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "P2P=Disabled Latency Matrix (us)",
        "P2P=Enabled Latency (P2P Writes) Matrix (us)", "Device=0 CANNOT Access Peer Device=1",
        "[latency] One 4-byte pinned copy the host waits for", "   D\\D     0      1"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  const nlohmann::json j = report::p2p_bench_json(r);
  for (const char* key : {"uni_p2p_on",
                          "uni_p2p_off",
                          "bi_p2p_on",
                          "bi_p2p_off",
                          "latency_us_p2p_on",
                          "latency_us_p2p_off",
                          "h2d_gbps",
                          "d2h_gbps",
                          "h2d_concurrent_gbps",
                          "d2h_concurrent_gbps",
                          "h2d_bidir_gbps",
                          "d2h_bidir_gbps",
                          "h2d_concurrent_bidir_gbps",
                          "d2h_concurrent_bidir_gbps",
                          "h2d_latency_us",
                          "d2h_latency_us",
                          "uni_p2p_on_sm",
                          "d2h_sm_gbps",
                          "fan_in_gbps",
                          "fan_out_gbps",
                          "host_why"})
    ASSERT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["uni_p2p_on"].size(), 2u);
  EXPECT_EQ(j["h2d_gbps"].size(), 2u);
  EXPECT_THROW(run_p2p_bench(platform_of(kOneGen3), engine::run, P2pBenchOptions{Bytes{0}}),
               std::invalid_argument);
}

TEST(P2pBench, WhyNamesWhatSetsEachKindOfPair) {
  const Platform p = platform_of(kFourBehindOneUplink);
  const P2pBenchResult r = run_p2p_bench(p, engine::run);
  // Four GPUs under one switch: every ordered pair is of one kind, in each matrix.
  ASSERT_EQ(r.why.size(), 2u);
  const P2pWhy& on = r.why[0];
  EXPECT_TRUE(on.enabled);
  EXPECT_TRUE(on.peer);
  EXPECT_EQ(on.pairs, 12u);
  EXPECT_EQ(on.path, "PIX");
  EXPECT_EQ(on.access, "peer access: PCIe P2P (PIX)");
  EXPECT_EQ(on.src, 0u);
  EXPECT_EQ(on.dst, 1u);
  EXPECT_DOUBLE_EQ(on.gbps, r.uni_p2p_on[0][1]);
  // A 256 MiB copy is all bandwidth: the figure is the limiting link's rate for it, less its latency.
  EXPECT_NEAR(on.gbps, on.limit_gbps, 0.002 * on.limit_gbps);
  EXPECT_EQ(on.limit, "g0->plx0");  // the sender's own link: every link of the route has the same rate
  const P2pWhy& off = r.why[1];
  EXPECT_FALSE(off.enabled);
  EXPECT_FALSE(off.peer);
  EXPECT_EQ(off.pairs, 12u);
  EXPECT_TRUE(off.access.empty());  // the P2P=Disabled matrix never asks for peer access
  EXPECT_DOUBLE_EQ(off.gbps, r.uni_p2p_off[0][1]);
  // The driver pipelines a Tesla P40's staging: n hand-offs of n = ceil(S / c) chunks.
  EXPECT_TRUE(off.overlapped);
  const double n = std::ceil(r.size.value / p.cost_model().staging_chunk.value);
  EXPECT_EQ(off.chunks, n);
  EXPECT_EQ(off.handoffs, n);
  EXPECT_DOUBLE_EQ(off.limit_gbps, std::min(off.d2h_gbps, off.h2d_gbps));
  // Both legs cross the switch uplink's both-directions budget and the socket's memory.
  ASSERT_EQ(off.shared.size(), 2u);
  EXPECT_NE(off.shared[0].find("/both"), std::string::npos) << off.shared[0];
  EXPECT_NE(off.shared[1].find("/dram"), std::string::npos) << off.shared[1];
  const std::string text = report::p2p_bench_text(r);
  const std::string handoffs = std::to_string(static_cast<long>(n)) + " hand-offs";
  EXPECT_NE(text.find("Why (one copy alone"), std::string::npos) << text;
  EXPECT_NE(text.find(handoffs), std::string::npos) << text;
  const nlohmann::json j = report::p2p_bench_json(r);
  ASSERT_EQ(j.at("why").size(), 2u);
  EXPECT_EQ(j["why"][0]["way"], "direct");
  EXPECT_EQ(j["why"][1]["staging"]["handoffs"].get<double>(), n);
}

}  // namespace
}  // namespace rigsim::model
