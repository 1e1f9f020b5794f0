// Fidelity rules 1 and 4 (issue 9): socket links carry their wire rate times a payload efficiency per
// link kind, while NCCL's planning constant stays beside it for NCCL's decisions; NVLink efficiency per
// generation and form factor (SXM board vs bridge).
#include <gtest/gtest.h>

#include "tests/fidelity/fidelity_fixture.hpp"
#include "topology/layout_json.hpp"

namespace rigsim::model {
namespace {

using namespace testing;
using fidelity::bench_of;
using fidelity::pair_layout;
using fidelity::pcie_x16_gbs;
using topology::LinkKind;

const PlatformLink& only_link(const Platform& p, LinkKind kind) {
  const PlatformLink* found = nullptr;
  for (const auto& l : p.topology().links())
    if (l.kind == kind) {
      EXPECT_EQ(found, nullptr) << "more than one link of that kind";
      found = &p.links()[l.id];
    }
  EXPECT_NE(found, nullptr);
  return *found;
}

TEST(SocketLink, WireRateTimesTheKindsEfficiencyAndNcclsConstantBeside) {
  for (const char* key : {"xeon-e5-v4", "xeon-scalable-2", "xeon-scalable-4", "epyc-7002", "epyc-9004"}) {
    const Platform p = platform_of(pair_layout("rtx-a6000", key, 3, 2));
    const topology::CpuSpec& cpu = *topology::find_cpu(key);
    const PlatformLink& l = only_link(p, LinkKind::InterSocket);
    const double eff = calibration::inter_socket_efficiency_of(p.cost_model(), cpu.inter_socket);
    expect_closed_form(std::string(key) + ": links x per-link rate x efficiency",
                       cpu.inter_socket_links * cpu.inter_socket_link_gbs * eff, l.bandwidth.gb_per_s(),
                       "GB/s", 1e-9);
    EXPECT_DOUBLE_EQ(l.nccl_bandwidth.gb_per_s(), cpu.inter_socket_effective_gbs) << key;
    // UPI and xGMI move GPU traffic far above NCCL's planning figure; DMA across QPI falls below it.
    if (cpu.inter_socket == topology::InterSocketKind::Qpi)
      EXPECT_LT(l.bandwidth.value, l.nccl_bandwidth.value) << key;
    else
      EXPECT_GT(l.bandwidth.value, l.nccl_bandwidth.value) << key;
    EXPECT_NE(l.what.find("NCCL plans with"), std::string::npos) << l.what;
  }
}

TEST(SocketLink, EachKindHasItsOwnEfficiencyAndAProfileCanSetThemAll) {
  calibration::CostModel c = calibration::default_cost_model();
  c.upi_efficiency = 0.5;
  const Platform upi = platform_of(pair_layout("rtx-a6000", "xeon-scalable-2", 3, 2), c);
  const Platform xgmi = platform_of(pair_layout("rtx-a6000", "epyc-7002", 3, 2), c);
  EXPECT_DOUBLE_EQ(only_link(upi, LinkKind::InterSocket).bandwidth.gb_per_s(), 2 * 20.8 * 0.5);
  EXPECT_DOUBLE_EQ(only_link(xgmi, LinkKind::InterSocket).bandwidth.gb_per_s(), 4 * 36.0 * c.xgmi_efficiency);
  c.inter_socket_efficiency = 1.0;  // a profile's single figure overrides every kind
  EXPECT_DOUBLE_EQ(calibration::inter_socket_efficiency_of(c, topology::InterSocketKind::Upi), 1.0);
  EXPECT_DOUBLE_EQ(calibration::inter_socket_efficiency_of(c, topology::InterSocketKind::Xgmi), 1.0);
  EXPECT_THROW(calibration::inter_socket_efficiency_of(c, topology::InterSocketKind::None),
               std::invalid_argument);
}

TEST(SocketLink, CrossSocketP2pOnDualEpycIsBoundByPcieNotByNcclsSixteen) {
  // RTX 6000 Ada on dual Genoa (stelline, p2pBandwidthLatencyTest): 26.32 GB/s between GPUs on
  // different sockets, as between GPUs of one socket. xGMI's wire (4 x 64 GB/s) x efficiency is far
  // above one Gen4 x16, so the PCIe link bounds the copy: S / (S/B + latency), not NCCL's 16 GB/s.
  const Platform p = platform_of(pair_layout("rtx-6000-ada", "epyc-9004", 4, 2));
  const P2pBenchResult r = bench_of(p);
  ASSERT_TRUE(r.can_access[0][1]);
  const double s = 256.0 * 1024 * 1024;
  const auto& t = p.topology();
  const double lat = p.route(t.find("gpu0"), t.find("gpu1"), Transport::P2p).latency.value;
  const double b = pcie_x16_gbs(p, 4);
  expect_closed_form("S / (S/B_pcie + latency)", s / (s / (b * 1e9) + lat) / 1e9, r.uni_p2p_on[0][1], "GB/s");
  EXPECT_GT(r.uni_p2p_on[0][1], 1.5 * t.device(t.find("cpu0")).cpu->inter_socket_effective_gbs);
}

TEST(SocketLink, OneP2pTransferAcrossRomesSocketsGetsTheMeasuredRate) {
  // Dual EPYC 7002: a GPU pair's P2P copy across the sockets 21.5-22.7 GB/s against 26.4 within one
  // (WU-CVGL/cluster-setup), far below xGMI's 4 x 36 x efficiency: one transfer is held to
  // inter_socket_flow_gbs (22.1) of link bytes, two at once (bidirectional) each get it, and NCCL's
  // SM traffic (128-byte TLPs, 1.072 link bytes per byte) gets 22.1 / 1.072.
  const Platform p = platform_of(pair_layout("rtx-4090", "epyc-7002", 4, 2, /*patched=*/true));
  const P2pBenchResult r = bench_of(p);
  ASSERT_TRUE(r.can_access[0][1]);
  const auto& t = p.topology();
  const double cap = t.device(t.find("cpu0")).cpu->inter_socket_flow_gbs;
  ASSERT_DOUBLE_EQ(cap, 22.1);
  const double s = 256.0 * 1024 * 1024;
  const double lat = p.route(t.find("gpu0"), t.find("gpu1"), Transport::P2p).latency.value;
  expect_closed_form("S / (S/cap + latency)", s / (s / (cap * 1e9) + lat) / 1e9, r.uni_p2p_on[0][1], "GB/s");
  expect_closed_form("2 S / (S/cap + latency)", 2 * s / (s / (cap * 1e9) + lat) / 1e9, r.bi_p2p_on[0][1],
                     "GB/s");
  const Route nccl = p.route(t.find("gpu0"), t.find("gpu1"), Transport::P2p);
  expect_closed_form("cap / wire_per_byte", cap / nccl.wire_per_byte, nccl.bottleneck.gb_per_s(), "GB/s", 1e-9);
  // Within one socket, and across Genoa's sockets, the PCIe link decides; host copies across Rome's
  // sockets keep the links' rate (the measurement is of P2P traffic).
  const Platform one = platform_of(pair_layout("rtx-4090", "epyc-7002", 4, 1, true));
  EXPECT_GT(bench_of(one).uni_p2p_on[0][1], 1.1 * r.uni_p2p_on[0][1]);
  const Platform genoa = platform_of(pair_layout("rtx-4090", "epyc-9004", 4, 2, true));
  EXPECT_GT(bench_of(genoa).uni_p2p_on[0][1], 1.1 * r.uni_p2p_on[0][1]);
  EXPECT_EQ(p.route(t.find("cpu0"), t.find("gpu1"), Transport::HostCopy).flow_cap.value, 0.0);
}

TEST(SocketLink, AStagedCopyAcrossSlowQpiIsBoundByTheSocketLink) {
  // Two QPI links of Xeon E5 v4 with a profile's efficiency of 0.2: 2 x 19.2 x 0.2 = 7.68 GB/s per
  // direction, below a Gen3 x16; the H2D leg to the far socket's GPU crosses it. An RTX 3090 pair's
  // legs take turns (GeForce Ampere): the D2H into the sender's socket at the GPU link's rate, then the
  // H2D across QPI, and the host waits at 2n - 1 hand-offs of n = S / c chunks, so the rate tends to
  // S / (S / B_pcie + S / B_qpi + (2n - 1) t_sync).
  calibration::CostModel c = calibration::default_cost_model();
  c.qpi_efficiency = 0.2;
  const Platform p = platform_of(pair_layout("rtx-3090", "xeon-e5-v4", 3, 2), c);
  const double qpi = 2 * 19.2 * 0.2, s = 2e9;
  const double handoffs = 2 * std::ceil(s / c.staging_chunk_legacy.value) - 1;
  const double pcie = pcie_x16_gbs(p, 3);
  const double expected =
      s / (s / (pcie * 1e9) + s / (qpi * 1e9) + handoffs * c.staging_sync_latency.value) / 1e9;
  expect_closed_form("S / (S / B_pcie + S / B_qpi + (2n-1) t_sync)", expected, bench_of(p, s).uni_p2p_off[0][1], "GB/s",
                     0.02);
}

TEST(SocketLink, MoreSocketLinksNeverSlowACrossSocketCopy) {
  double last = 0;
  for (int links : {1, 2, 3, 4}) {
    std::string layout = pair_layout("tesla-p40", "xeon-e5-v4", 3, 2);
    layout.insert(layout.size() - 1, R"(, "inter_socket": [{"a": "cpu0", "b": "cpu1", "links": )" +
                                         std::to_string(links) + "}]");
    calibration::CostModel c = calibration::default_cost_model();
    c.qpi_efficiency = 0.2;
    const double got = bench_of(platform_of(layout, c), 64e6).uni_p2p_off[0][1];
    EXPECT_GE(got, last * 0.9999) << links << " links";
    last = got;
  }
}

TEST(SocketLink, ALayoutsMeasuredEffectiveRateIsUsedAsIs) {
  std::string layout = pair_layout("tesla-p40", "xeon-e5-v4", 3, 2);
  layout.insert(layout.size() - 1, R"(, "inter_socket": [{"a": "cpu0", "b": "cpu1", "effective_gbs": 7}])");
  const Platform p = platform_of(layout);
  EXPECT_DOUBLE_EQ(only_link(p, LinkKind::InterSocket).bandwidth.gb_per_s(), 7.0);
  EXPECT_DOUBLE_EQ(only_link(p, LinkKind::InterSocket).nccl_bandwidth.gb_per_s(), 6.0);  // BDW_QPI
}

TEST(NvlinkEfficiency, PerGenerationAndForm) {
  const calibration::CostModel c = calibration::default_cost_model();
  // GA102 bridge: NCCL's SM86 12.0 of 14.0625 GB/s per link; SXM NVLink 3: 20 of 25 (nccl-tests#149).
  EXPECT_NEAR(calibration::nvlink_efficiency_of(c, 3, true), 12.0 / 14.0625, 1e-3);
  EXPECT_NEAR(calibration::nvlink_efficiency_of(c, 3, false), 20.0 / 25.0, 1e-9);
  EXPECT_NEAR(calibration::nvlink_efficiency_of(c, 4, false), 20.6 / 25.0, 1e-3);
  EXPECT_THROW(calibration::nvlink_efficiency_of(c, 0, false), std::out_of_range);
  EXPECT_THROW(calibration::nvlink_efficiency_of(c, 6, true), std::out_of_range);
  calibration::CostModel one = c;
  one.nvlink_efficiency = 0.9;  // a profile's single figure overrides the table
  EXPECT_DOUBLE_EQ(calibration::nvlink_efficiency_of(one, 3, true), 0.9);
  EXPECT_DOUBLE_EQ(calibration::nvlink_efficiency_of(one, 4, false), 0.9);
}

TEST(NvlinkEfficiency, Ga102BridgePairRunsAtItsBridgeEfficiency) {
  const Platform p = platform_of(two_3090(16, false, true));
  const PlatformLink& l = only_link(p, LinkKind::NvLink);
  const double eff = p.cost_model().nvlink_bridge_efficiency[2];
  expect_closed_form("4 links x 14.0625 GB/s x bridge efficiency (NVLink 3)", 4 * 14.0625 * eff,
                     l.bandwidth.gb_per_s(), "GB/s", 1e-9);
  EXPECT_NE(l.what.find("bridge"), std::string::npos) << l.what;
}

TEST(NvlinkEfficiency, SxmBoardsUseTheirGenerationsRow) {
  struct Case {
    const char* layout;
    int gen;
  };
  for (const Case& k : {Case{"mleng-8xa100-nvswitch", 3}, Case{"mleng-8xh200-nvswitch", 4}}) {
    const auto topo = topology::load_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/dev-cases/layouts/" +
                                            k.layout + ".json");
    const Platform p(topo, calibration::default_cost_model());
    const double eff = p.cost_model().nvlink_sxm_efficiency[static_cast<std::size_t>(k.gen - 1)];
    for (const auto& l : topo.links())
      if (l.kind == LinkKind::NvLink)
        expect_closed_form(
            std::string(k.layout) + ": wire x SXM efficiency of NVLink " + std::to_string(k.gen),
            l.bandwidth.gb_per_s() * eff, p.links()[l.id].bandwidth.gb_per_s(), "GB/s", 1e-9);
  }
}

TEST(NvlinkEfficiency, AMoreEfficientGenerationNeverSlowsAPair) {
  double last = 0;
  for (double eff : {0.6, 0.8, 0.853, 0.95}) {
    calibration::CostModel c = calibration::default_cost_model();
    c.nvlink_bridge_efficiency[2] = eff;
    const double got = bench_of(platform_of(two_3090(16, false, true), c), 64e6).uni_p2p_on[0][1];
    EXPECT_GT(got, last) << eff;
    last = got;
  }
}

}  // namespace
}  // namespace rigsim::model

namespace rigsim::calibration {
namespace {

TEST(FidelityKeys, WrittenProfileReadsBackAndBadValuesAreNamed) {
  const CostModel m = default_cost_model();
  const nlohmann::json j = to_json(m);
  EXPECT_FALSE(j.contains("nvlink_efficiency"));  // an unset override is not written
  const CostModel back = apply_overrides(default_cost_model(), j, "written.json");
  EXPECT_DOUBLE_EQ(back.staging_chunk.value, m.staging_chunk.value);
  EXPECT_DOUBLE_EQ(back.staging_chunk_legacy.value, m.staging_chunk_legacy.value);
  EXPECT_DOUBLE_EQ(back.staging_sync_latency.value, m.staging_sync_latency.value);
  EXPECT_EQ(back.nvlink_bridge_efficiency, m.nvlink_bridge_efficiency);
  EXPECT_DOUBLE_EQ(back.qpi_efficiency, m.qpi_efficiency);
  const CostModel set = apply_overrides(m, nlohmann::json::parse(R"({"staging_chunk": "2MiB"})"), "p.json");
  EXPECT_DOUBLE_EQ(set.staging_chunk.value, 2.0 * 1024 * 1024);
  // NVLS_TREE has no figure on one server (perChMaxNVLSTreeBws' 0.0): 0 reads back as "none".
  EXPECT_EQ(back.nccl_nvls_tree_channel_bw_gbs, m.nccl_nvls_tree_channel_bw_gbs);
  EXPECT_EQ(m.nccl_nvls_tree_channel_bw_gbs[2][0], 0.0);
  // "0B" is the store-and-forward path (no pipelining), accepted.
  EXPECT_DOUBLE_EQ(apply_overrides(m, nlohmann::json::parse(R"({"staging_chunk": "0B"})"), "p.json").staging_chunk.value,
                   0.0);
  for (const char* bad :
       {R"({"staging_chunk": "lots"})", R"({"nvlink_sxm_efficiency": [0.8, 0.8]})",
        R"({"nvlink_bridge_efficiency": [1, 1, 1.2, 1, 1]})", R"({"xgmi_efficiency": 1.5})",
        R"({"nccl_tree_channel_bw_gbs": [[1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 1, 1]]})",
        R"({"nccl_nvls_tree_channel_bw_gbs": [[1, 1, 1], [1, 1, 1], [0, 57.7, -1], [0, 96, 43.8]]})"}) {
    try {
      apply_overrides(m, nlohmann::json::parse(bad), "p.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::exception& e) {
      const std::string key = nlohmann::json::parse(bad).begin().key();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rigsim::calibration
