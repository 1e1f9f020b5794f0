// The Platform value: link bandwidths and latencies from the CostModel, routes per transport, the
// transport NCCL would pick, and the --dump-platform text. No simulation runs here.
#include "model/platform.hpp"

#include <gtest/gtest.h>

#include "tests/model/sim_fixture.hpp"

namespace rigsim::model {
namespace {

using namespace testing;

const PlatformLink& link_named(const Platform& p, const std::string& name) {
  for (const auto& l : p.links())
    if (l.name == name) return l;
  throw std::out_of_range("no link " + name);
}

std::vector<std::string> hop_names(const Platform& p, const Route& r) {
  std::vector<std::string> out;
  for (const Crossing& h : r.crossings) out.push_back(p.crossing_name(h));
  return out;
}

TEST(Platform, PcieLinkIsWireRateTimesEfficiency) {
  const Platform p = platform_of(kOneGen3);
  const double eff = p.cost_model().pcie_efficiency;
  const PlatformLink& l = link_named(p, "rc0<->g0");
  expect_closed_form("16 x 0.985 GB/s x " + std::to_string(eff), 16 * 0.985 * eff, l.bandwidth.gb_per_s(),
                     "GB/s");
  EXPECT_TRUE(l.duplex);
  EXPECT_DOUBLE_EQ(l.latency.value, p.cost_model().pcie_hop_latency.value);
}

TEST(Platform, HostMemoryIsOneSharedLinkPerSocket) {
  const Platform p = platform_of(kTwoSockets);
  for (const char* cpu : {"cpu0", "cpu1"}) {
    const PlatformLink& m = p.links()[p.dram_of(p.topology().find(cpu))];
    EXPECT_EQ(m.name, std::string(cpu) + "/dram");
    EXPECT_FALSE(m.duplex);
    // Xeon E5 v4: 4 x DDR4-2400 = 76.8 GB/s (catalog) x memory efficiency.
    expect_closed_form("76.8 GB/s x memory_efficiency", 76.8 * p.cost_model().memory_efficiency,
                       m.bandwidth.gb_per_s(), "GB/s");
  }
  EXPECT_THROW(p.dram_of(p.topology().find("g0")), std::invalid_argument);
}

TEST(Platform, SwitchLatencyIsSplitOverItsLinks) {
  const Platform p = platform_of(kFourBehindOneUplink);
  // PEX 8796: 150 ns cut-through (catalog); a GPU -> switch -> GPU route crosses it once.
  const Route r = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::P2p);
  const auto& c = p.cost_model();
  expect_closed_form("p2p + 2 hops + 150 ns", c.p2p_latency.us() + 2 * c.pcie_hop_latency.us() + 0.150,
                     r.latency.us(), "us", 1e-9);
  EXPECT_EQ(hop_names(p, r), (std::vector<std::string>{"g0->plx0", "plx0->g1"}));
}

TEST(Platform, StagedRouteCrossesTheSendersMemoryTwice) {
  const Platform p = platform_of(kStagedUnequalLegs);
  const Route r = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::Shm);
  EXPECT_EQ(hop_names(p, r),
            (std::vector<std::string>{"g0->rc0", "rc0<->g0/both", "rc0->cpu0", "cpu0/dram", "cpu0/dram",
                                      "cpu0->rc0", "rc0->g1", "rc0<->g1/both"}));
  // NCCL's SHM pipelines its two legs: alone it runs at the slower leg (the x8 one), no per-flow cap.
  const double x8 = 8 * 0.985 * p.cost_model().pcie_efficiency;
  expect_closed_form("staged (pipelined): min(B_x16, B_x8) = B_x8", x8, r.bottleneck.gb_per_s(), "GB/s");
  EXPECT_GT(r.latency.value, p.cost_model().shm_latency.value);
}

TEST(Platform, PcieLinksHaveABothDirectionsLimitForHostDma) {
  const Platform p = platform_of(kTwoSockets);
  const auto& t = p.topology();
  const double d = p.cost_model().pcie_duplex_efficiency;
  std::size_t with = 0;
  for (const topology::Link& l : t.links()) {
    const auto both = p.both_of(l.id);
    if (l.kind == topology::LinkKind::Pcie) {
      ASSERT_TRUE(both.has_value()) << p.links()[l.id].name;
      const PlatformLink& b = p.links()[*both];
      EXPECT_FALSE(b.duplex);
      EXPECT_EQ(b.name, p.links()[l.id].name + "/both");
      expect_closed_form("pcie_duplex_efficiency x 2 x wire", d * 2 * l.bandwidth.gb_per_s(),
                         b.bandwidth.gb_per_s(), "GB/s");
      EXPECT_DOUBLE_EQ(b.latency.value, 0.0);
      ++with;
    } else if (l.kind != topology::LinkKind::ChipsetUplink) {
      EXPECT_FALSE(both.has_value()) << p.links()[l.id].name;  // inter-socket, host bridge to CPU
    }
  }
  EXPECT_EQ(with, 2u);
  // Host DMA routes cross it; P2P routes (posted writes) do not.
  const auto names = hop_names(p, p.route(t.find("cpu0"), t.find("g0"), Transport::HostCopy));
  EXPECT_EQ(names, (std::vector<std::string>{"cpu0/dram", "cpu0->rc0", "rc0->g0", "rc0<->g0/both"}));
  const Platform q = platform_of(kFourBehindOneUplink);
  for (const std::string& n : hop_names(q, q.route(q.topology().find("g0"), q.topology().find("g1"), Transport::P2p)))
    EXPECT_EQ(n.find("/both"), std::string::npos) << n;
}

TEST(Platform, HostCopyToTheOtherSocketCrossesQpi) {
  calibration::CostModel c = calibration::default_cost_model();
  c.qpi_efficiency = 0.1;  // slow enough to be the bottleneck: 2 x 19.2 x 0.1 = 3.84 GB/s
  const Platform p = platform_of(kTwoSockets, c);
  const auto& t = p.topology();
  const Route h2d = p.route(t.find("cpu0"), t.find("g1"), Transport::HostCopy);
  EXPECT_EQ(hop_names(p, h2d), (std::vector<std::string>{"cpu0/dram", "cpu0->cpu1", "cpu1->rc1", "rc1->g1",
                                                         "rc1<->g1/both"}));
  expect_closed_form("QPI wire 2 x 19.2 GB/s x qpi_efficiency", 2 * 19.2 * 0.1, h2d.bottleneck.gb_per_s(), "GB/s");
  const Route d2h = p.route(t.find("g0"), t.find("cpu0"), Transport::HostCopy);
  EXPECT_EQ(hop_names(p, d2h), (std::vector<std::string>{"g0->rc0", "rc0<->g0/both", "rc0->cpu0", "cpu0/dram"}));
  EXPECT_THROW(p.route(t.find("g0"), t.find("g1"), Transport::HostCopy), std::invalid_argument);
}

TEST(Platform, NvlinkIsPreferredForP2p) {
  const Platform p = platform_of(two_3090(16, false, true));
  const auto& t = p.topology();
  const Route r = p.route(t.find("gpu0"), t.find("gpu1"), Transport::P2p);
  EXPECT_EQ(hop_names(p, r), (std::vector<std::string>{"gpu0->gpu1"}));
  // GA102 bridge: 4 links x 14.0625 GB/s per direction x the NVLink 3 bridge efficiency.
  expect_closed_form("4 x 14.0625 x bridge efficiency", 4 * 14.0625 * calibration::nvlink_efficiency_of(p.cost_model(), 3, true),
                     r.bottleneck.gb_per_s(), "GB/s");
}

TEST(Platform, AutoTransportFollowsNccl) {
  const topology::P2pPolicy policy;
  {
    const Platform p = platform_of(kFourBehindOneUplink);  // Tesla P40s under one switch: PIX, P2P
    const auto& t = p.topology();
    EXPECT_EQ(p.resolve_transport(t.find("g0"), t.find("g1"), Transport::Auto, policy, 4), Transport::P2p);
    EXPECT_EQ(p.resolve_transport(t.find("cpu0"), t.find("g1"), Transport::Auto, policy, 4),
              Transport::HostCopy);
    topology::P2pPolicy off;
    off.disable = true;
    EXPECT_EQ(p.resolve_transport(t.find("g0"), t.find("g1"), Transport::Auto, off, 4), Transport::Shm);
  }
  {
    const Platform p = platform_of(kStagedUnequalLegs);  // GeForce: no PCIe P2P on stock drivers
    const auto& t = p.topology();
    EXPECT_EQ(p.resolve_transport(t.find("g0"), t.find("g1"), Transport::Auto, policy, 2), Transport::Shm);
    EXPECT_EQ(p.resolve_transport(t.find("g0"), t.find("g1"), Transport::P2p, policy, 2), Transport::P2p);
  }
}

TEST(Platform, DeviceToItselfMovesNothing) {
  const Platform p = platform_of(kOneGen3);
  const Route r = p.route(p.topology().find("g0"), p.topology().find("g0"), Transport::P2p);
  EXPECT_TRUE(r.crossings.empty());
  EXPECT_DOUBLE_EQ(r.latency.value, 0.0);
}

TEST(Platform, DumpIsDeterministicAndComplete) {
  const Platform p = platform_of(kTwoSockets);
  const std::string a = p.dump(), b = platform_of(kTwoSockets).dump();
  EXPECT_EQ(a, b);
  for (const char* needle : {"# rigsim platform: two-sockets", "CM02", "cpu0/dram", "cpu0<->cpu1",
                             "g0 -> g1  P2P", "g0 -> g1  SHM", "cpu1 -> g0  HostCopy", "rc0<->g0"})
    EXPECT_NE(a.find(needle), std::string::npos) << needle << "\n" << a;
}

}  // namespace
}  // namespace rigsim::model
