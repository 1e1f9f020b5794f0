// The Platform value: link bandwidths and latencies from the CostModel, routes per transport, the
// transport NCCL would pick, and the --dump-platform text. No simulation runs here.
#include "model/platform.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/model/collective_layouts.hpp"
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

TEST(Platform, StagedRouteCrossesHostMemoryTwice) {
  const Platform p = platform_of(kStagedUnequalLegs);
  const Route r = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::Shm);
  EXPECT_EQ(hop_names(p, r),
            (std::vector<std::string>{"g0->rc0", "rc0<->g0/both", "rc0->cpu0", "cpu0/dram", "cpu0/dram",
                                      "cpu0->rc0", "rc0->g1", "rc0<->g1/both"}));
  // NCCL's SHM pipelines its two legs: alone it runs at the slower leg (the x8 one), no per-flow cap.
  const double x8 = 8 * 0.985 * p.cost_model().pcie_efficiency;
  // NCCL's kernels move 128-byte TLPs, the rates were measured with 256-byte ones: x (128/148)/(256/276).
  const double sm = (128.0 / 148) / (256.0 / 276);
  expect_closed_form("staged (pipelined): min(B_x16, B_x8) x 0.933 = B_x8 x 0.933", x8 * sm, r.bottleneck.gb_per_s(),
                     "GB/s");
  EXPECT_GT(r.latency.value, p.cost_model().shm_latency.value);
}

TEST(Platform, ShmBufferLivesOnTheReceiversSocket) {
  // NCCL_SHM_LOCALITY's default (receiver side, NCCL 2.13+): g0 on cpu0 writes across QPI into cpu1's
  // memory, g1 reads it there; the other way round cpu0's memory carries both legs.
  const Platform p = platform_of(kTwoSockets);
  const auto g0 = p.topology().find("g0"), g1 = p.topology().find("g1");
  auto drams = [&](const Route& r) {
    std::vector<std::string> out;
    for (const Crossing& h : r.crossings)
      if (p.crossing_name(h).find("/dram") != std::string::npos) out.push_back(p.crossing_name(h));
    return out;
  };
  EXPECT_EQ(drams(p.route(g0, g1, Transport::Shm)), (std::vector<std::string>{"cpu1/dram", "cpu1/dram"}));
  EXPECT_EQ(drams(p.route(g1, g0, Transport::Shm)), (std::vector<std::string>{"cpu0/dram", "cpu0/dram"}));
  const auto names = hop_names(p, p.route(g0, g1, Transport::Shm));
  const auto qpi = std::find(names.begin(), names.end(), "cpu0->cpu1");
  ASSERT_NE(qpi, names.end());
  EXPECT_LT(qpi - names.begin(), std::find(names.begin(), names.end(), "cpu1/dram") - names.begin())
      << "the socket link is crossed by the sender's writes, before the buffer";
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

TEST(Platform, ShmConnectionsAreClassedThroughTheReceiversCpuNode) {
  // NCCL diverts a pair without P2P through the CPU next to the receiver (paths.cc, getLocalCpu +
  // addInterStep) and classes the path the worse of its two parts. Its CPU nodes are NUMA nodes: one
  // quadrant of an NPS4 socket is PHB, two quadrants are SYS apart, as two sockets are.
  const Platform p = platform_of(R"({"name": "t",
    "cpus": [{"id": "cpu0", "model": "epyc-7002", "nps": 4}, {"id": "cpu1", "model": "epyc-7002", "nps": 4}],
    "host_bridges": [{"id": "a", "cpu": "cpu0", "lanes": 32, "quadrant": 0}, {"id": "b", "cpu": "cpu0", "lanes": 16, "quadrant": 1},
                     {"id": "c", "cpu": "cpu1", "lanes": 16, "quadrant": 0}],
    "gpus": [{"id": "g0", "model": "rtx-4090", "parent": "a"}, {"id": "g1", "model": "rtx-4090", "parent": "a"},
             {"id": "g2", "model": "rtx-4090", "parent": "b"}, {"id": "g3", "model": "rtx-4090", "parent": "c"}]})");
  const auto& t = p.topology();
  const auto shm_class = [&](const char* a, const char* b) {
    const Connection c = p.connect(t.find(a), t.find(b), {}, 4);
    EXPECT_EQ(c.transport, Transport::Shm) << a << " -> " << b << ": GeForce, stock driver";
    return c.path;
  };
  EXPECT_EQ(shm_class("g0", "g1"), topology::PathClass::PHB) << "one quadrant";
  EXPECT_EQ(shm_class("g0", "g2"), topology::PathClass::SYS) << "two quadrants of one socket";
  EXPECT_EQ(shm_class("g0", "g3"), topology::PathClass::SYS) << "two sockets";
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

// ---- The network transport: GPUDirect RDMA or staging through host memory (NCCL_NET_GDR_*) --------

/// One server: two GPUs of `gpu` on root ports rc0, rc1 of an EPYC 7003 and a ConnectX-6 either on its
/// own root port rc2 (`nic_parent` "rc2": GPU-NIC path PHB) or under a switch with g0 ("sw0": PIX).
std::string net_server(const std::string& gpu, const std::string& nic_parent) {
  return R"({"name": "net", "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16}],
    "switches": [{"id": "sw0", "model": "pex88096", "parent": "rc0"}],
    "gpus": [{"id": "g0", "model": ")" + gpu + R"(", "parent": "sw0"}, {"id": "g1", "model": ")" + gpu +
         R"(", "parent": "rc1"}],
    "nics": [{"id": "nic0", "model": "connectx-6-200g", "parent": ")" + nic_parent + R"("}]})";
}

int dram_crossings(const Platform& p, const Route& r) {
  int n = 0;
  for (const Crossing& h : r.crossings) n += p.crossing_name(h).find("/dram") != std::string::npos;
  return n;
}

/// GPU g0 of server 0 to g0 of server 1 over the network transport.
Route net_route(const Platform& p) {
  const auto gpus = p.topology().gpus();
  return p.route(gpus[0], gpus[2], Transport::Net);
}

Platform net_cluster(const std::string& gpu, const std::string& nic_parent, NetPolicy policy = {}) {
  return Platform(topology::build_cluster(topology::testing::spec_from_text(net_server(gpu, nic_parent)), 2),
                  calibration::default_cost_model(), policy);
}

TEST(NetTransport, GdrWithinNcclsLevelGoesStraightToTheNic) {
  // A100 and the NIC under one switch (PIX <= PXB): the NIC reads and writes GPU memory over PCIe.
  const Platform p = net_cluster("a100-pcie-40gb", "sw0");
  const Route r = net_route(p);
  EXPECT_EQ(dram_crossings(p, r), 0);
  // 200 Gb/s = 25 GB/s x network_efficiency is the slowest link (the Gen4 x16 PCIe carries more).
  expect_closed_form("25 GB/s x network_efficiency", 25.0 * p.cost_model().network_efficiency,
                     r.bottleneck.gb_per_s(), "GB/s");
}

TEST(NetTransport, PxnSendsThroughTheNicOfTheGpuMirroringThePeer) {
  // g1 of server 0 to g0 of server 1: NCCL leaves through the NIC of server 0's g0 (the peer's device
  // index; a ring's entry NIC), which g1 reaches only through the CPU (PHB), so it relays over NVLink to
  // g0, whose switch holds the NIC (search.cc ncclTopoGetNetDev, paths.cc's PXN conditions).
  const auto spec = testing::spec_from_text(testing::four_a100_mesh_nics());
  const Platform p(topology::build_cluster(spec, 2), calibration::default_cost_model());
  const auto& t = p.topology();
  const auto id = [&](const std::string& name) { return t.find(name); };
  const auto exit = net_exit(t, id("n0/g1"), id("n1/g0"), {});
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(t.device(exit->nic).name, "n0/nic0");
  ASSERT_TRUE(exit->relay.has_value());
  EXPECT_EQ(t.device(*exit->relay).name, "n0/g0");
  std::vector<std::string> crossed;
  for (const Crossing& h : p.route(id("n0/g1"), id("n1/g0"), Transport::Net).crossings)
    crossed.push_back(p.crossing_name(h));
  EXPECT_EQ(crossed.front(), "n0/g1->n0/g0") << "over NVLink first";
  EXPECT_NE(std::find(crossed.begin(), crossed.end(), "n0/nic0->network"), crossed.end());
  // The mirror itself, and PXN disabled (NCCL_PXN_DISABLE=1): the sender's own NIC, no relay.
  EXPECT_FALSE(net_exit(t, id("n0/g0"), id("n1/g0"), {})->relay.has_value());
  NetPolicy off;
  off.pxn = false;
  const auto own = net_exit(t, id("n0/g1"), id("n1/g0"), off);
  EXPECT_EQ(t.device(own->nic).name, "n0/nic1");
  EXPECT_FALSE(own->relay.has_value());
}

TEST(NetTransport, BeyondTheGdrLevelBothEndsStageThroughHostMemory) {
  // NIC on its own root port: path PHB > NCCL's default PXB: no GDR, each end writes and reads pinned
  // host memory of its GPU's socket (two crossings per server); NCCL_NET_GDR_LEVEL=PHB allows GDR.
  const Platform staged = net_cluster("a100-pcie-40gb", "rc2");
  std::string why;
  const auto& t = staged.topology();
  EXPECT_FALSE(uses_gdr(t, t.gpus()[0], *nearest_nic(t, t.gpus()[0]), true, {}, &why));
  EXPECT_NE(why.find("beyond NCCL_NET_GDR_LEVEL PXB"), std::string::npos) << why;
  EXPECT_EQ(dram_crossings(staged, net_route(staged)), 4);
  NetPolicy phb;
  phb.gdr_level = topology::PathClass::PHB;
  const Platform gdr = net_cluster("a100-pcie-40gb", "rc2", phb);
  EXPECT_EQ(dram_crossings(gdr, net_route(gdr)), 0);
  EXPECT_LT(net_route(gdr).latency.value, net_route(staged).latency.value + 1e-12);
}

TEST(NetTransport, EachServerStagesThroughItsOwnMemory) {
  // Every server of a cluster has its own host memory: the staged network route writes server 0's and
  // reads server 1's, and an SHM copy inside server 1 crosses server 1's (NUMA node numbers repeat per
  // server, as Linux numbers them; they once keyed one memory for the whole cluster, the last server's).
  const Platform p = net_cluster("rtx-3090", "sw0");
  const auto gpus = p.topology().gpus();
  std::vector<std::string> drams;
  for (const Crossing& h : net_route(p).crossings)
    if (p.crossing_name(h).find("/dram") != std::string::npos) drams.push_back(p.crossing_name(h));
  EXPECT_EQ(drams, (std::vector<std::string>{"n0/cpu0/dram", "n0/cpu0/dram", "n1/cpu0/dram", "n1/cpu0/dram"}));
  const Route shm = p.route(gpus[2], gpus[3], Transport::Shm);
  for (const Crossing& h : shm.crossings) {
    if (p.crossing_name(h).find("/dram") != std::string::npos) {
      EXPECT_EQ(p.crossing_name(h), "n1/cpu0/dram");
    }
  }
  EXPECT_NE(p.dram_of(p.topology().find("n0/cpu0")), p.dram_of(p.topology().find("n1/cpu0")));
}

TEST(NetTransport, GeforceCardsNeverUseGdr) {
  const Platform p = net_cluster("rtx-3090", "sw0");  // NIC on the GPU's switch, still staged
  std::string why;
  const auto& t = p.topology();
  EXPECT_FALSE(uses_gdr(t, t.gpus()[0], *nearest_nic(t, t.gpus()[0]), false, {}, &why));
  EXPECT_NE(why.find("GeForce"), std::string::npos) << why;
  EXPECT_EQ(dram_crossings(p, net_route(p)), 4);
}

TEST(NetTransport, BeforeAmpereSendsStageWithoutAnNvlinkPeer) {
  // V100 PCIe (sm70) with a PCIe-only peer: NCCL keeps GDR for receives but stages sends (reads of
  // GPU memory by the NIC) unless NCCL_NET_GDR_READ=1.
  const Platform p = net_cluster("v100-pcie", "sw0");
  const auto& t = p.topology();
  const topology::DeviceId g = t.gpus()[0], nic = *nearest_nic(t, g);
  EXPECT_FALSE(uses_gdr(t, g, nic, true, {}));
  EXPECT_TRUE(uses_gdr(t, g, nic, false, {}));
  EXPECT_EQ(dram_crossings(p, net_route(p)), 2) << "the sending end only";
  NetPolicy read;
  read.gdr_read = 1;
  EXPECT_TRUE(uses_gdr(t, g, nic, true, read));
  const Platform both = net_cluster("v100-pcie", "sw0", read);
  EXPECT_EQ(dram_crossings(both, net_route(both)), 0);
}

TEST(NetTransport, BeforeNccl219EveryGenerationStagesSendsWithoutAnNvlinkPeer) {
  // paths.cc ncclTopoCheckGdr: the "alone or an NVLink peer" condition on GDR reads has applied only
  // before Ampere since 2.19.1 (`cudaCompCap < 80`, absent at v2.18.6); before, to every GPU. The peers
  // are the communicator's GPUs (NCCL's topology keeps only the ranks' GPUs): one GPU per server is
  // alone and reads directly under any release.
  const Platform p = net_cluster("a100-pcie-40gb", "sw0");
  const auto& t = p.topology();
  const topology::DeviceId g = t.gpus()[0], nic = *nearest_nic(t, g);
  EXPECT_TRUE(uses_gdr(t, g, nic, true, {})) << "2.19.1 and later: Ampere reads GPU memory directly";
  NetPolicy old;
  old.nccl_version = 21806;
  std::string why;
  EXPECT_FALSE(uses_gdr(t, g, nic, true, old, &why));
  EXPECT_NE(why.find("before 2.19.1"), std::string::npos) << why;
  EXPECT_TRUE(uses_gdr(t, g, nic, false, old)) << "receives keep GDR";
  old.nccl_version = 21901;
  EXPECT_TRUE(uses_gdr(t, g, nic, true, old));
  NetPolicy alone;
  alone.nccl_version = 21806;
  for (const topology::DeviceId d : t.gpus())
    if (t.device(d).node != t.device(g).node || d == g) alone.gpus.push_back(d);
  EXPECT_TRUE(uses_gdr(t, g, nic, true, alone)) << "the communicator's only GPU on its server";
  const Platform staged = net_cluster("a100-pcie-40gb", "sw0", [] {
    NetPolicy n;
    n.nccl_version = 21806;
    return n;
  }());
  EXPECT_EQ(dram_crossings(staged, net_route(staged)), 2) << "the sending end only";
}

TEST(NetTransport, ShmDisableLoopsBackThroughTheNic) {
  // Two RTX 3090 (no P2P on a stock driver) with SHM disabled: NCCL's network transport through the
  // NIC, staged through host memory at both ends (GeForce: no GDR).
  const Platform p = platform_of(net_server("rtx-3090", "sw0"));
  const auto& t = p.topology();
  topology::P2pPolicy no_shm;
  no_shm.shm_disable = true;
  const Connection c = p.connect(t.gpus()[0], t.gpus()[1], no_shm, 2);
  EXPECT_EQ(c.transport, Transport::Net);
  EXPECT_EQ(c.path, topology::PathClass::NET);
  EXPECT_NE(c.reason.find("NCCL_SHM_DISABLE"), std::string::npos);
  EXPECT_EQ(dram_crossings(p, p.route(t.gpus()[0], t.gpus()[1], Transport::Net)), 4);
  EXPECT_EQ(p.connect(t.gpus()[0], t.gpus()[1], {}, 2).transport, Transport::Shm);
  // Without a NIC there is no network transport to fall back on: a clear error.
  const Platform bare = platform_of(kStagedUnequalLegs);
  EXPECT_THROW(bare.connect(bare.topology().find("g0"), bare.topology().find("g1"), no_shm, 2), InputError);
  // A raw transfer whose transport is resolved (Transport::Auto) says the same, located, not a bare
  // invalid_argument from the network route.
  EXPECT_EQ(p.resolve_transport(t.gpus()[0], t.gpus()[1], Transport::Auto, no_shm, 2), Transport::Net);
  EXPECT_THROW(
      bare.resolve_transport(bare.topology().find("g0"), bare.topology().find("g1"), Transport::Auto, no_shm, 2),
      InputError);
}

}  // namespace
}  // namespace rigsim::model
