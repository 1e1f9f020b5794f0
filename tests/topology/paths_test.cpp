// Path classes (NCCL's and nvidia-smi's), bottlenecks, and P2P decisions, each on a layout whose
// answer follows from its description.
#include <gtest/gtest.h>

#include "tests/topology/layout_fixture.hpp"
#include "topology/p2p.hpp"

namespace rigsim::topology {
namespace {

using testing::epyc_quadrants;
using testing::layout_from_text;

class DualRootPlx : public ::testing::Test {
 protected:
  Topology t = layout_from_text(testing::kDualRootPlx);
  Path path(const char* a, const char* b) const { return t.path(t.find(a), t.find(b)); }
};

TEST_F(DualRootPlx, SameSwitchIsPix) {
  EXPECT_EQ(path("g0", "g1").smi, "PIX");
  EXPECT_EQ(path("g0", "g1").nccl, PathClass::PIX);
  // GPU -> switch -> GPU: two links.
  EXPECT_EQ(path("g0", "g1").links.size(), 2u);
}

TEST_F(DualRootPlx, SwitchesUnderOneHostBridgeArePhb) {
  EXPECT_EQ(path("g0", "g2").smi, "PHB");
  EXPECT_EQ(path("g0", "g2").nccl, PathClass::PHB);
}

TEST_F(DualRootPlx, OtherSocketIsSys) {
  EXPECT_EQ(path("g0", "g4").smi, "SYS");
  EXPECT_EQ(path("g0", "g4").nccl, PathClass::SYS);
}

TEST_F(DualRootPlx, NicOnTheHostBridgeIsPhb) {
  EXPECT_EQ(path("g0", "ib0").smi, "PHB");
}

TEST_F(DualRootPlx, BottleneckIsTheSlowestLink) {
  // Cross-socket: Gen3 x16 links (15.76 GB/s) and the Broadwell QPI wire, 2 x 19.2 GB/s: the PCIe links.
  const Path p = path("g0", "g4");
  EXPECT_NEAR(p.bottleneck.gb_per_s(), pcie_link_gbs(3, 16), 1e-9);
}

TEST_F(DualRootPlx, MatrixIsSymmetricWithXOnTheDiagonal) {
  const auto m = smi_matrix(t);
  ASSERT_EQ(m.size(), 9u);  // 8 GPUs + 1 NIC
  for (std::size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m[i][i], "X");
    for (std::size_t j = 0; j < m.size(); ++j) EXPECT_EQ(m[i][j], m[j][i]) << i << "," << j;
  }
}

TEST_F(DualRootPlx, P2pFollowsNcclDefaultLevel) {
  // Tesla P40 supports PCIe P2P; NCCL's default level PXB allows PIX, not PHB; Intel: never across QPI.
  const P2pPolicy def;
  EXPECT_TRUE(decide_p2p(t, t.find("g0"), t.find("g1"), def, 8).allowed);
  const auto phb = decide_p2p(t, t.find("g0"), t.find("g2"), def, 8);
  EXPECT_FALSE(phb.allowed);
  EXPECT_NE(phb.reason.find("beyond NCCL's default P2P level PXB"), std::string::npos) << phb.reason;
  const auto sys = decide_p2p(t, t.find("g0"), t.find("g4"), P2pPolicy{PathClass::SYS, false}, 8);
  EXPECT_FALSE(sys.allowed);
  EXPECT_NE(sys.reason.find("across sockets"), std::string::npos) << sys.reason;
}

TEST_F(DualRootPlx, P2pLevelOverrideAndDisable) {
  EXPECT_TRUE(decide_p2p(t, t.find("g0"), t.find("g2"), P2pPolicy{PathClass::PHB, false}, 8).allowed);
  EXPECT_FALSE(decide_p2p(t, t.find("g0"), t.find("g1"), P2pPolicy{std::nullopt, true}, 8).allowed);
  EXPECT_FALSE(decide_p2p(t, t.find("g0"), t.find("g1"), P2pPolicy{PathClass::LOC, false}, 8).allowed);
}

TEST_F(DualRootPlx, RaisingTheP2pLevelNeverRemovesP2p) {
  const auto gpus = t.gpus();
  const PathClass levels[] = {PathClass::LOC, PathClass::NVL, PathClass::PIX,
                              PathClass::PXB, PathClass::PHB, PathClass::SYS};
  for (DeviceId a : gpus)
    for (DeviceId b : gpus) {
      bool before = false;
      for (PathClass level : levels) {
        const bool now = decide_p2p(t, a, b, P2pPolicy{level, false}, gpus.size()).allowed;
        EXPECT_TRUE(now || !before) << "P2P lost when raising the level to " << to_string(level);
        before = now;
      }
    }
}

TEST(Paths, SwitchBelowSwitchIsPxb) {
  const Topology t = layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
    "switches": [{"id": "top", "model": "pex8796", "parent": "rc0"},
                 {"id": "a", "model": "pex8747", "parent": "top"}, {"id": "b", "model": "pex8747", "parent": "top"}],
    "gpus": [{"id": "g0", "model": "tesla-p40", "parent": "a"}, {"id": "g1", "model": "tesla-p40", "parent": "b"}]})");
  EXPECT_EQ(t.path(t.find("g0"), t.find("g1")).smi, "PXB");
  EXPECT_EQ(t.path(t.find("g0"), t.find("g1")).nccl, PathClass::PXB);
  EXPECT_TRUE(decide_p2p(t, t.find("g0"), t.find("g1"), {}, 2).allowed);
}

TEST(Paths, EpycRootPortsAreNodeAndAmdWithTwoGpusUsesSys) {
  const Topology t = layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}, {"id": "g1", "model": "a100-pcie-40gb", "parent": "rc1"}]})");
  const Path p = t.path(t.find("g0"), t.find("g1"));
  EXPECT_EQ(p.smi, "NODE");
  EXPECT_EQ(p.nccl, PathClass::PHB);
  // NCCL: AMD x86 with <= 2 GPUs raises the default level to SYS; with 3+ GPUs it is PXB.
  EXPECT_EQ(default_p2p_level(t, 2), PathClass::SYS);
  EXPECT_EQ(default_p2p_level(t, 3), PathClass::PXB);
  EXPECT_TRUE(decide_p2p(t, t.find("g0"), t.find("g1"), {}, 2).allowed);
  EXPECT_FALSE(decide_p2p(t, t.find("g0"), t.find("g1"), {}, 3).allowed);
}

const char* kTwo3090 = R"({"name": "t", %DRIVER% "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
    "slots": [{"id": "s1", "parent": "rc0", "width": 8}, {"id": "s2", "parent": "rc0", "width": 8}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "slot": "s1"}, {"id": "g1", "model": "rtx-3090", "slot": "s2"}]
    %NVLINK%})";

std::string two_3090(bool nvlink, bool patched) {
  std::string s = kTwo3090;
  s.replace(s.find("%DRIVER%"), 8, patched ? R"("driver": {"p2p_patched": true},)" : "");
  s.replace(s.find("%NVLINK%"), 8, nvlink ? R"(, "nvlinks": [{"gpus": ["g0", "g1"]}])" : "");
  return s;
}

TEST(Paths, NvlinkBridgeIsNv4AndP2pEvenOnGeforce) {
  const Topology t = layout_from_text(two_3090(true, false));
  const Path p = t.path(t.find("g0"), t.find("g1"));
  EXPECT_EQ(p.smi, "NV4");
  EXPECT_EQ(p.nccl, PathClass::NVL);
  // GA102 bridge: 4 links x 14.0625 GB/s = 56.25 GB/s per direction.
  EXPECT_NEAR(p.bottleneck.gb_per_s(), 56.25, 0.01);
  EXPECT_TRUE(decide_p2p(t, t.find("g0"), t.find("g1"), {}, 2).allowed);
}

TEST(Paths, GeforceWithoutBridgeHasNoP2pUnlessPatched) {
  const Topology stock = layout_from_text(two_3090(false, false));
  const auto d = decide_p2p(stock, stock.find("g0"), stock.find("g1"), {}, 2);
  EXPECT_FALSE(d.allowed);
  EXPECT_NE(d.reason.find("no PCIe P2P on stock drivers"), std::string::npos) << d.reason;
  EXPECT_EQ(stock.path(stock.find("g0"), stock.find("g1")).smi, "PHB");
  const Topology patched = layout_from_text(two_3090(false, true));
  EXPECT_TRUE(decide_p2p(patched, patched.find("g0"), patched.find("g1"), {}, 2).allowed);
}

TEST(Paths, NvlinkThroughAnIntermediateGpuIsNvb) {
  // g0 - g1 - g2 joined by NVLink in a line: g0..g2 has no direct NVLink, so NCCL sees NVB and
  // nvidia-smi shows the PCIe class.
  const Topology t = layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
    "switches": [{"id": "plx", "model": "pex8796", "parent": "rc0"}],
    "gpus": [{"id": "g0", "model": "v100-sxm2", "parent": "plx"}, {"id": "g1", "model": "v100-sxm2", "parent": "plx"},
             {"id": "g2", "model": "v100-sxm2", "parent": "plx"}],
    "nvlinks": [{"gpus": ["g0", "g1"], "bridge": false, "links": 2}, {"gpus": ["g1", "g2"], "bridge": false, "links": 1}]})");
  const Path p = t.path(t.find("g0"), t.find("g2"));
  EXPECT_EQ(p.nccl, PathClass::NVB);
  EXPECT_EQ(p.smi, "PIX");
  EXPECT_NEAR(p.bottleneck.gb_per_s(), 25.0, 0.01) << "min(2 x 25, 1 x 25) GB/s";
  EXPECT_EQ(t.path(t.find("g0"), t.find("g1")).smi, "NV2");
}

TEST(Paths, NvswitchGivesEveryPairItsLinkCount) {
  const Topology t = layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "a100-sxm4-80gb", "parent": "rc0"}, {"id": "g1", "model": "a100-sxm4-80gb", "parent": "rc1"},
             {"id": "g2", "model": "a100-sxm4-80gb", "parent": "rc2"}],
    "nvswitches": [{"id": "nvs", "model": "nvswitch-gen2", "chips": 6, "gpus": ["g0", "g1", "g2"]}]})");
  EXPECT_EQ(t.path(t.find("g0"), t.find("g2")).smi, "NV12");
  EXPECT_EQ(t.path(t.find("g0"), t.find("g2")).nccl, PathClass::NVL);
  // 12 links x 25 GB/s = 300 GB/s per direction per GPU.
  EXPECT_NEAR(t.path(t.find("g0"), t.find("g1")).bottleneck.gb_per_s(), 300.0, 0.01);
}

}  // namespace
}  // namespace rigsim::topology

namespace rigsim::topology {
namespace {

TEST(Cluster, NodesAreJoinedThroughTheirNics) {
  const LayoutSpec spec = testing::spec_from_text(testing::kDualRootPlx);
  const Topology t = build_cluster(spec, 2);
  EXPECT_EQ(t.gpus().size(), 16u);
  const Path p = t.path(t.find("n0/g0"), t.find("n1/g0"));
  EXPECT_EQ(p.nccl, PathClass::NET);
  // g0 and the NIC share socket 0, so no QPI on the way: the bottleneck is the FDR NIC, 56 Gb/s / 8 = 7 GB/s.
  EXPECT_NEAR(p.bottleneck.gb_per_s(), t.device(t.find("n0/ib0")).nic_rate.gb_per_s(), 1e-9);
  EXPECT_NEAR(p.bottleneck.gb_per_s(), 7.0, 1e-9);
  EXPECT_EQ(t.device(t.find("n1/g0")).node, 1);
  EXPECT_NE(t.device(t.find("n1/g0")).socket, t.device(t.find("n0/g0")).socket);
  EXPECT_FALSE(decide_p2p(t, t.find("n0/g0"), t.find("n1/g0"), {PathClass::SYS, false}, 16).allowed);
  // Inside a node nothing changes.
  EXPECT_EQ(t.path(t.find("n1/g0"), t.find("n1/g1")).smi, "PIX");
}

TEST(Cluster, SingleSocketServersFormAClusterToo) {
  const LayoutSpec spec =
      parse_layout(parse_json_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}],
    "nics": [{"id": "nic0", "model": "connectx-6-200g", "parent": "rc1"}]})",
                                   "t.json"),
                   "t.json");
  const Topology t = build_cluster(spec, 3);
  EXPECT_EQ(t.gpus().size(), 3u);
  EXPECT_EQ(t.path(t.find("n0/g0"), t.find("n2/g0")).nccl, PathClass::NET);
}

TEST(Cluster, LayoutWithoutNicCannotFormACluster) {
  const LayoutSpec spec =
      parse_layout(parse_json_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
    "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}]})",
                                   "t.json"),
                   "t.json");
  EXPECT_THROW(build_cluster(spec, 2), InputError);
}

// rocm-smi --showtopo's tables come from KFD's links (ROCm/rocm-systems#7372, MI200 guide): a GPU is
// one PCIe segment (weight 20) from its socket; two GPUs on one socket are 2 hops and 20 + 20 = 40
// apart, on two sockets 3 hops and 20 + 12 + 20 = 52 (the 52 of rocm_smi_lib#108).
TEST(RocmSmi, HopsAndWeightsCountPcieSegmentsAndTheSocketLink) {
  const Topology t = layout_from_text(R"({"name": "amd", "cpus": [{"id": "cpu0", "model": "epyc-7002"},
      {"id": "cpu1", "model": "epyc-7002"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                     {"id": "rc2", "cpu": "cpu1", "lanes": 16}],
    "slots": [{"id": "s1", "parent": "rc0", "gen": 4, "width": 16}, {"id": "s2", "parent": "rc1", "gen": 4, "width": 16},
              {"id": "s3", "parent": "rc2", "gen": 4, "width": 16}],
    "gpus": [{"id": "g0", "model": "mi210", "slot": "s1"}, {"id": "g1", "model": "mi210", "slot": "s2"},
             {"id": "g2", "model": "mi210", "slot": "s3"}]})");
  const RocmTopo r = rocm_smi_topo(t);
  EXPECT_EQ(r.hops[0][0], 0);
  EXPECT_EQ(r.type[0][0], "0");
  EXPECT_EQ(r.hops[0][1], 2);
  EXPECT_EQ(r.weight[0][1], 2 * 20) << "same socket: two PCIe segments";
  EXPECT_EQ(r.hops[0][2], 3);
  EXPECT_EQ(r.weight[2][0], 2 * 20 + kRocmInterSocketWeight) << "two sockets: segments plus the socket link";
  EXPECT_EQ(kRocmInterSocketWeight + 40, 52);
  EXPECT_EQ(r.type[1][2], "PCIE");
  EXPECT_EQ(r.numa, (std::vector<int>{0, 0, 1}));
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(r.weight[i][j], r.weight[j][i]);
}

// Four MI210 on one EPYC; {XGMI} is the layout's "xgmi" section.
std::string four_mi210(const std::string& xgmi) {
  return R"({"name": "amd", "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16}, {"id": "rc3", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "mi210", "parent": "rc0"}, {"id": "g1", "model": "mi210", "parent": "rc1"},
             {"id": "g2", "model": "mi210", "parent": "rc2"}, {"id": "g3", "model": "mi210", "parent": "rc3"}],
    "xgmi": )" +
         xgmi + "}";
}

// An Infinity Fabric Link bridge over four MI210 (3 links each) joins every pair with one 50 GB/s link
// (ROCm MI250 guide: 25 GT/s x16 = 50 GB/s); rocm-smi calls it XGMI, one hop, weight 15.
TEST(Xgmi, AFourCardBridgeJoinsEveryPairWithOneLink) {
  const Topology t = layout_from_text(four_mi210(R"([{"gpus": ["g0", "g1", "g2", "g3"]}])"));
  const RocmTopo r = rocm_smi_topo(t);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      if (i == j) continue;
      EXPECT_EQ(r.type[i][j], "XGMI") << i << "-" << j;
      EXPECT_EQ(r.hops[i][j], 1);
      EXPECT_EQ(r.weight[i][j], 15);
      const Path p = t.path(t.gpus()[i], t.gpus()[j]);
      EXPECT_EQ(p.nccl, PathClass::NVL);
      ASSERT_EQ(p.links.size(), 1u);
      EXPECT_DOUBLE_EQ(t.link(p.links[0]).bandwidth.gb_per_s(), 50.0);
    }
  // A two-card bridge gives the pair all three links.
  const Topology two = layout_from_text(four_mi210(R"([{"gpus": ["g0", "g1"]}, {"gpus": ["g2", "g3"]}])"));
  const Path p = two.path(two.find("g0"), two.find("g1"));
  EXPECT_DOUBLE_EQ(two.link(p.links[0]).bandwidth.gb_per_s(), 150.0);
  EXPECT_EQ(rocm_smi_topo(two).type[0][2], "PCIE");
}

TEST(Xgmi, LinksACardDoesNotHaveAreRejected) {
  using testing::input_error_of;
  auto [where, what] = input_error_of(
      [] { layout_from_text(four_mi210(R"([{"gpus": ["g0", "g1"]}, {"gpus": ["g0", "g2"]}])")); });
  EXPECT_EQ(where, "/xgmi/1/gpus");
  EXPECT_NE(what.find("would use 6 xGMI links, but a"), std::string::npos) << what;
  std::tie(where, what) = input_error_of([] { layout_from_text(four_mi210(R"([{"gpus": ["g0"]}])")); });
  EXPECT_EQ(where, "/xgmi/0/gpus");
  std::tie(where, what) = input_error_of([] {
    layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 20}],
      "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}, {"id": "g1", "model": "mi210", "parent": "rc0"}],
      "xgmi": [{"gpus": ["g0", "g1"]}]})");
  });
  EXPECT_EQ(where, "/xgmi/0/gpus/0");
  EXPECT_NE(what.find("has no Infinity Fabric GPU links"), std::string::npos) << what;
}

TEST(NumaNodes, Nps4MakesQuadrantsSysAndNumbersTheirNodes) {
  const Topology t = layout_from_text(epyc_quadrants(4));
  const auto smi = [&](const char* a, const char* b) { return t.path(t.find(a), t.find(b)).smi; };
  EXPECT_EQ(smi("g0", "g1"), "NODE");  // one quadrant, two root ports
  EXPECT_EQ(smi("g0", "g2"), "SYS");   // NCCL's CPU nodes are NUMA nodes
  EXPECT_EQ(t.path(t.find("g0"), t.find("g2")).nccl, PathClass::SYS);
  EXPECT_EQ(t.device(t.find("g0")).numa, 1);
  EXPECT_EQ(t.device(t.find("g2")).numa, 2);
  EXPECT_EQ(t.device(t.find("g3")).numa, 3);
}

TEST(NumaNodes, Nps2PairsQuadrantsAndNps1IsOneNode) {
  const Topology two = layout_from_text(epyc_quadrants(2));
  EXPECT_EQ(two.path(two.find("g0"), two.find("g2")).smi, "SYS");   // quadrant 1 -> node 0, 2 -> node 1
  EXPECT_EQ(two.path(two.find("g2"), two.find("g3")).smi, "NODE");  // quadrants 2 and 3 -> node 1
  const Topology one = layout_from_text(epyc_quadrants(1));
  for (const char* g : {"g1", "g2", "g3"}) EXPECT_EQ(one.path(one.find("g0"), one.find(g)).smi, "NODE") << g;
}

TEST(NumaNodes, TwoNps4SocketsNumberTheirNodesAsTheOciCaptureShows) {
  // data/nvidia-smi-topo/UNATTRIBUTED-oci-gpu87-8xa100-nv12-18nic-8numa.txt: 2 x EPYC Rome in NPS4,
  // GPU NUMA affinity 3 3 1 1 7 7 5 5 (GPU pairs on quadrants 3 and 1 of each socket).
  const Topology t = layout_from_text(R"({"name": "t",
    "cpus": [{"id": "cpu0", "model": "epyc-7002", "nps": 4}, {"id": "cpu1", "model": "epyc-7002", "nps": 4}],
    "host_bridges": [{"id": "a", "cpu": "cpu0", "lanes": 16, "quadrant": 3}, {"id": "b", "cpu": "cpu0", "lanes": 16, "quadrant": 1},
                     {"id": "c", "cpu": "cpu1", "lanes": 16, "quadrant": 3}, {"id": "d", "cpu": "cpu1", "lanes": 16, "quadrant": 1}],
    "switches": [{"id": "sa", "model": "pex8747", "parent": "a"}, {"id": "sb", "model": "pex8747", "parent": "b"},
                 {"id": "sc", "model": "pex8747", "parent": "c"}, {"id": "sd", "model": "pex8747", "parent": "d"}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "sa"}, {"id": "g1", "model": "a100-pcie-40gb", "parent": "sa"},
             {"id": "g2", "model": "a100-pcie-40gb", "parent": "sb"}, {"id": "g3", "model": "a100-pcie-40gb", "parent": "sb"},
             {"id": "g4", "model": "a100-pcie-40gb", "parent": "sc"}, {"id": "g5", "model": "a100-pcie-40gb", "parent": "sc"},
             {"id": "g6", "model": "a100-pcie-40gb", "parent": "sd"}, {"id": "g7", "model": "a100-pcie-40gb", "parent": "sd"}]})");
  std::vector<int> numa;
  for (const char* g : {"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"})
    numa.push_back(t.device(t.find(g)).numa);
  EXPECT_EQ(numa, (std::vector<int>{3, 3, 1, 1, 7, 7, 5, 5}));
}

TEST(NumaNodes, ImpossibleNpsAndQuadrantsAreRejected) {
  using testing::input_error_of;
  auto [where, what] = input_error_of([] { layout_from_text(epyc_quadrants(4, "epyc-9005")); });
  EXPECT_TRUE(where.empty()) << where << ": " << what;  // Turin has quadrants too: accepted
  std::tie(where, what) = input_error_of([] {
    layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-scalable-3", "nps": 2}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}],
      "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}]})");
  });
  EXPECT_EQ(where, "/cpus/0/nps");
  EXPECT_NE(what.find("1 memory domain(s) per socket"), std::string::npos) << what;
  std::tie(where, what) = input_error_of([] {
    layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "threadripper-1000"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16, "quadrant": 2}],
      "gpus": [{"id": "g0", "model": "rtx-3090", "parent": "rc0"}]})");
  });
  EXPECT_EQ(where, "/host_bridges/0/quadrant");
  // A bridge wider than x16 stands for several root ports of one quadrant, up to the quadrant's lanes.
  const auto wide = [](int lanes, bool quadrant) {
    return R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": )" +
           std::to_string(lanes) + (quadrant ? R"(, "quadrant": 0)" : "") +
           R"(}], "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}]})";
  };
  EXPECT_NO_THROW(layout_from_text(wide(32, true)));
  std::tie(where, what) = input_error_of([&] { layout_from_text(wide(32, false)); });
  EXPECT_EQ(where, "/host_bridges/0/lanes");
  EXPECT_NE(what.find("give it a \"quadrant\" (up to 32 lanes)"), std::string::npos) << what;
  std::tie(where, what) = input_error_of([&] { layout_from_text(wide(48, true)); });
  EXPECT_EQ(where, "/host_bridges/0/lanes");
}

// NCCL's default P2P level by release (ncclTopoCheckP2p at every tag v2.18.1 ... v2.30.7): before
// 2.23.4 "int p2pLevel = PATH_SYS", PXB on Intel; from 2.23.4 PXB, SYS on AMD with <= 2 GPUs per host.
TEST(P2pLevelByNcclRelease, DefaultsFollowTheReleasesRule) {
  const Topology amd = layout_from_text(epyc_quadrants(1));
  const Topology intel =
      layout_from_text(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "xeon-scalable-3"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"}]})");
  EXPECT_EQ(default_p2p_level(amd, 4, 21803), PathClass::SYS);  // 2.18.3: AMD stays SYS at any count
  EXPECT_EQ(default_p2p_level(amd, 4, 22203), PathClass::SYS);  // 2.22.3
  EXPECT_EQ(default_p2p_level(amd, 4, 22304), PathClass::PXB);  // 2.23.4: PXB above 2 GPUs
  EXPECT_EQ(default_p2p_level(amd, 2, 22304), PathClass::SYS);
  EXPECT_EQ(default_p2p_level(amd, 4), PathClass::PXB);  // the release rigsim follows (2.30.7)
  EXPECT_EQ(default_p2p_level(intel, 2, 21803), PathClass::PXB);
  EXPECT_EQ(default_p2p_level(intel, 2, 23007), PathClass::PXB);
  // Four A100 PCIe on four EPYC root ports (NODE): P2P under NCCL 2.21, SHM under 2.30.
  P2pPolicy old_nccl;
  old_nccl.nccl_version = parse_nccl_version("2.21.5");
  EXPECT_TRUE(decide_p2p(amd, amd.find("g0"), amd.find("g2"), old_nccl, 4).allowed);
  EXPECT_FALSE(decide_p2p(amd, amd.find("g0"), amd.find("g2"), P2pPolicy{}, 4).allowed);
  // A user level wins over every release's default.
  old_nccl.level = PathClass::PXB;
  EXPECT_FALSE(decide_p2p(amd, amd.find("g0"), amd.find("g2"), old_nccl, 4).allowed);
}

TEST(P2pLevelByNcclRelease, VersionsParseAsNcclVersionCode) {
  EXPECT_EQ(parse_nccl_version("2.21.5"), 22105);
  EXPECT_EQ(parse_nccl_version("2.23"), 22300);
  EXPECT_EQ(kNcclVersion, parse_nccl_version("2.30.7"));
  // The forms NCCL's tools print: libnccl2's package version, nccl-tests' "NCCL version" line.
  EXPECT_EQ(parse_nccl_version("2.8.4-1"), 20804);
  EXPECT_EQ(parse_nccl_version("2.18.3+cuda12.2"), 21803);
  EXPECT_EQ(parse_nccl_version("2.18.3-1+cuda12.2"), 21803);
  EXPECT_EQ(parse_nccl_version("2.30.4+cuda13"), 23004);
  EXPECT_EQ(nccl_release_of(22803), "2.28.3");
  EXPECT_EQ(nccl_release_of(2804), "2.8.4");  // before 2.9: major x 1000 + minor x 100 + patch
  for (const int code : {2804, 20903, 22105, 23007})
    EXPECT_EQ(parse_nccl_version(nccl_release_of(code)), code >= 10000 ? code : 20804) << code;
  for (const char* bad :
       {"2", "2.x", "1.9.0", "2.21.5.1", "2.21.5a", "", "2.100", "2.21.5-", "2.21.5+cuda", "2.21.5+cuda12.",
        "2.21.5+rocm6", "2.21.5-1-2", "2.21.5 ", "2.1234567890.1", "2.21.99999999999"})
    EXPECT_THROW(parse_nccl_version(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace rigsim::topology
