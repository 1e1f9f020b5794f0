// NCCL's channel count (rule 5 of issue 9): the ring search packs rings at a table speed, doubles
// rings of 25 GB/s or more (ncclTopoDupChannels), connect.cc doubles every channel, then
// NCCL_MAX_NCHANNELS and NCCL_MIN_NCHANNELS bound it. Each expectation is worked from NCCL's code
// (search.cc, connect.cc at v2.21.5 and v2.30.7) and the layout's links in NCCL's figures.
#include "model/nccl_channels.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "common/input.hpp"
#include "model/collectives.hpp"
#include "model/nccl_env.hpp"
#include "tests/model/collective_layouts.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/build.hpp"

namespace rigsim::model {
namespace {

using testing::catalog_layout;
using testing::platform_of;

/// Two GPUs of `model`, each in its own gen x16 slot of one CPU (the ring crosses both slots once
/// each way).
std::string pair_layout(const std::string& cpu, const std::string& model, int gen) {
  return R"({"name": "pair", "cpus": [{"id": "cpu0", "model": ")" + cpu + R"("}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
    "slots": [{"id": "s0", "parent": "rc0", "gen": )" +
         std::to_string(gen) + R"(, "width": 16},
              {"id": "s1", "parent": "rc1", "gen": )" +
         std::to_string(gen) + R"(, "width": 16}],
    "gpus": [{"id": "g0", "model": ")" +
         model + R"(", "slot": "s0"},
             {"id": "g1", "model": ")" +
         model + R"(", "slot": "s1"}]})";
}

NcclChannels channels_of(const Platform& p, const std::vector<std::string>& env = {}) {
  CollectiveOptions o;
  o.nvls_enable = false;  // the ring graph
  apply_nccl_env(parse_nccl_env_args(env), o);
  return plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{1 << 30}, o).nccl;
}

TEST(NcclChannels, PcieFiguresAreLanesTimesLaneRateOver80) {
  const Platform p = platform_of(pair_layout("epyc-7002", "rtx-a6000", 4));
  const auto& topo = p.topology();
  int pcie = 0;
  for (std::size_t i = 0; i < topo.links().size(); ++i) {
    if (topo.links()[i].kind != topology::LinkKind::Pcie) continue;
    ++pcie;
    EXPECT_DOUBLE_EQ(nccl_link_gbs(p, i), 16 * 120 / 80.0) << "Gen4 x16: 16 lanes x 120 / 80 = 24 GB/s";
  }
  EXPECT_EQ(pcie, 2);
}

TEST(NcclChannels, Gen3PairIsOneRingDuplicatedOnce) {
  // 12 GB/s path: one ring at 12 covers it, below 25 no ncclTopoDupChannels, connect.cc doubles: 2.
  const NcclChannels c = channels_of(platform_of(pair_layout("xeon-e5-v4", "tesla-p40", 3)));
  EXPECT_EQ(c.graph, 1);
  EXPECT_DOUBLE_EQ(c.graph_gbs, 12.0);
  EXPECT_EQ(c.comm, 2) << c.reason;
}

TEST(NcclChannels, Gen4AmperePairSplitsIntoTwoRingsAtTwelve) {
  // 24 GB/s: 20, 18, 15 carry one ring each (below 24); 12 carries two (24, covers the path, the
  // largest channels x speed): 2 rings at 12, no duplication (< 25), x2 in connect.cc: 4.
  const NcclChannels c = channels_of(platform_of(pair_layout("epyc-7002", "rtx-a6000", 4)));
  EXPECT_EQ(c.graph, 2);
  EXPECT_DOUBLE_EQ(c.graph_gbs, 12.0);
  EXPECT_EQ(c.comm, 4) << c.reason;
}

TEST(NcclChannels, Gen4HopperPairUsesTheSm90TableWhichHas24) {
  // The sm90 table has 24 GB/s: one ring covers the path; 24 < 25 is not duplicated: 2 channels.
  const NcclChannels c = channels_of(platform_of(pair_layout("epyc-7002", "h100-pcie", 4)));
  EXPECT_EQ(c.graph, 1);
  EXPECT_DOUBLE_EQ(c.graph_gbs, 24.0);
  EXPECT_EQ(c.comm, 2) << c.reason;
}

TEST(NcclChannels, A100NvswitchIsTwentyFourChannels) {
  // 12 NVLink3 x 20 GB/s = 240 per GPU: 6 rings at 40 (the table's top) cover it; 40 >= 25 doubles
  // to 12 at 20; connect.cc: 24 (NCCL's "24 coll channels" on a DGX A100).
  const NcclChannels c = channels_of(platform_of(testing::kEightOnNvswitch));
  EXPECT_EQ(c.graph, 12);
  EXPECT_DOUBLE_EQ(c.graph_gbs, 20.0);
  EXPECT_EQ(c.comm, 24) << c.reason;
}

TEST(NcclChannels, H100NvswitchPacksSixRingsAtSixty) {
  // 18 NVLink4 x 20.6 = 370.8 GB/s: at 60, 6 rings (360); 50 gives 7 (350), 40 gives 9 (360, not
  // more), 30 gives 12 (360); 24/60 < 0.49 ends the search: 6 at 60, doubled to 12 at 30, then 24.
  const auto t = catalog_layout("hgx-h100");
  if (!t) GTEST_SKIP() << "hgx-h100 layout not written";
  const NcclChannels c = channels_of(Platform(*t, calibration::default_cost_model()));
  EXPECT_EQ(c.graph, 12);
  EXPECT_DOUBLE_EQ(c.graph_gbs, 30.0);
  EXPECT_EQ(c.comm, 24) << c.reason;
}

TEST(NcclChannels, DistinctNvlinkRingsKeepTheirCount) {
  // DGX-1: six distinct rings over single NVLink2 links (20 GB/s each in NCCL's figures): below 25,
  // no duplication; connect.cc: 12.
  const NcclChannels c = channels_of(platform_of(testing::kDgx1Like));
  EXPECT_EQ(c.graph, 6);
  EXPECT_DOUBLE_EQ(c.graph_gbs, 20.0);
  EXPECT_EQ(c.comm, 12) << c.reason;
}

TEST(NcclChannels, FourGpuMeshFillsEveryLinkAsNcclsBacktrackingSearchDoes) {
  // Four A100 fully connected, 80 GB/s per pair: each GPU's links take 240. At 40 (the SM80 table's
  // top) every directed pair holds two rings. Two rings each way over 0-1-2-3 use up the outer pairs
  // and leave the diagonals, which alone close no ring (the complete directed graph on four nodes has
  // no decomposition into Hamiltonian cycles, Tillson 1980); NCCL's search backtracks to the six
  // directed Hamiltonian cycles, each once: 6 x 40 = 240. 40 >= 25 doubles to 12 at 20; connect.cc: 24.
  const Platform p = platform_of(testing::kFourA100Mesh);
  const NcclChannels c = channels_of(p);
  EXPECT_EQ(c.graph, 12) << c.reason;
  EXPECT_DOUBLE_EQ(c.graph_gbs, 20.0);
  EXPECT_EQ(c.comm, 24) << c.reason;
  const auto rings = ring_channels(p, p.topology().gpus(), {}, 16);
  ASSERT_EQ(rings.size(), 6u) << "the six directed Hamiltonian cycles of four GPUs";
  std::map<std::pair<topology::DeviceId, topology::DeviceId>, int> uses;
  for (const auto& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) ++uses[{ring[i], ring[(i + 1) % ring.size()]}];
  EXPECT_EQ(uses.size(), 12u) << "every ordered GPU pair carries rings";
  for (const auto& [pair, n] : uses) EXPECT_EQ(n, 2) << "each ordered pair carries two rings of 40 in its 80";
}

TEST(NcclChannels, TheTreeGraphRaisesItsBwIntraWhileItsChainsCarryIt) {
  // Two servers of four NVLink-meshed A100, one 200 Gb/s NIC per GPU: the ring graph runs 4 channels at
  // 24 GB/s (the NIC, SM80's inter table). The tree search's second pass raises bwIntra from 24 while it
  // is below 2 x 24: 28, 30, then 48, which fails: each channel's chain crosses three ordered GPU pairs
  // and no pair carries more than two chains, so a chain gets 80 / 2 = 40 GB/s of a pair's 80.
  const Platform two(topology::build_cluster(testing::spec_from_text(testing::four_a100_mesh_nics()), 2),
                     calibration::default_cost_model());
  const NcclChannels c = channels_of(two);
  EXPECT_EQ(c.graph, 4) << c.reason;
  EXPECT_DOUBLE_EQ(c.graph_gbs, 24.0) << c.reason;
  EXPECT_DOUBLE_EQ(c.tree_gbs, 30.0) << "expected the largest of 28, 30, 48 within min(2 x 24, 40); "
                                     << c.reason;
  // One server: no tree graph across servers, bwIntra is the ring's.
  const NcclChannels one = channels_of(platform_of(testing::four_a100_mesh_nics()));
  EXPECT_DOUBLE_EQ(one.tree_gbs, one.graph_gbs) << one.reason;
}

TEST(NcclChannels, MaxThenMinBoundTheCountAsConnectDoes) {
  const Platform nvs = platform_of(testing::kEightOnNvswitch);
  const NcclChannels capped = channels_of(nvs, {"NCCL_MAX_NCHANNELS=8"});
  EXPECT_EQ(capped.comm, 8);
  EXPECT_EQ(capped.graph, 8);  // tuning never counts more graph channels than run
  const Platform pair = platform_of(pair_layout("xeon-e5-v4", "tesla-p40", 3));
  EXPECT_EQ(channels_of(pair, {"NCCL_MIN_NCHANNELS=16"}).comm, 16);
  EXPECT_EQ(channels_of(pair, {"NCCL_MIN_NCHANNELS=1"}).comm, 2);  // a minimum below the count: no change
  EXPECT_EQ(channels_of(nvs, {"NCCL_MAX_NCHANNELS=4", "NCCL_MIN_NCHANNELS=16"}).comm, 16);  // max, then min
}

TEST(NcclChannels, FasterPcieNeverGivesFewerChannels) {
  int last = 0;
  for (int gen = 1; gen <= 5; ++gen) {
    const NcclChannels c = channels_of(platform_of(pair_layout("epyc-9004", "rtx-a6000", gen)));
    EXPECT_GE(c.comm, last) << "Gen" << gen << ": " << c.reason;
    last = c.comm;
  }
}

TEST(NcclChannels, SendRecvChannelsFollowTheCollectivesAndNvlinkLinks) {
  // paths.cc: p2p = pow2(min(comm, 32)), per peer = pow2(min over pairs of 2 x NVLink links, else 2).
  auto p2p = [](const Platform& p) {
    return plan_collective(p, CollectiveOp::SendRecv, p.topology().gpus(), Bytes{1 << 30}).nccl;
  };
  // A100 NVSwitch: 24 collective channels -> 32; 12 links per pair -> 24 -> 32 ("32 p2p channels, 32 p2p
  // channels per peer" in NCCL's log of a DGX A100).
  const NcclChannels a100 = p2p(platform_of(testing::kEightOnNvswitch));
  EXPECT_EQ(a100.p2p, 32);
  EXPECT_EQ(a100.p2p_per_peer, 32) << a100.reason;
  // DGX-1: 12 -> 16; some pairs have no NVLink (PCIe: 2) -> 2 per peer.
  const NcclChannels dgx1 = p2p(platform_of(testing::kDgx1Like));
  EXPECT_EQ(dgx1.p2p, 16);
  EXPECT_EQ(dgx1.p2p_per_peer, 2);
  // A Gen3 PCIe pair: 2 and 2.
  const NcclChannels pcie = p2p(platform_of(pair_layout("xeon-e5-v4", "tesla-p40", 3)));
  EXPECT_EQ(pcie.p2p, 2);
  EXPECT_EQ(pcie.p2p_per_peer, 2);
}

TEST(NcclChannels, OneSendIsSplitOverChannelsBySize) {
  // enqueue.cc (calcP2pChunkSize; addP2pToPlan from 2.23): nChannelsMin = per peer halved until
  // min x ranks <= p2p; n = min(nChannelsMin, ceil(S / (step/8))); doubled while S / n > 32 steps, up to
  // the per-peer count. A DGX A100: p2p 32, per peer 32, step 512 KiB (all NVLink).
  NcclChannels c;
  c.p2p = 32;
  c.p2p_per_peer = 32;
  const double step = nccl_p2p_chunk(false, true, 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(step, 512.0 * 1024);
  const double MiB = 1024.0 * 1024;
  // 2 ranks: min 16 (32 x 2 > 32).
  EXPECT_EQ(nccl_p2p_op_channels(256 * 1024, 2, c, false, step, 22105), 4);  // 256 KiB / 64 KiB
  EXPECT_EQ(nccl_p2p_op_channels(128 * MiB, 2, c, false, step, 22105), 16);  // 8 MiB parts <= 16 MiB
  EXPECT_EQ(nccl_p2p_op_channels(256 * MiB, 2, c, false, step, 22105), 16);  // 16 MiB, not above
  EXPECT_EQ(nccl_p2p_op_channels(512 * MiB, 2, c, false, step, 22105), 32);  // 32 MiB > 16: doubled
  // 8 ranks: min 4; 128 MiB: 32 MiB parts -> 8 channels of 16 MiB; 1 GiB: 32.
  EXPECT_EQ(nccl_p2p_op_channels(128 * MiB, 8, c, false, step, 22105), 8);
  EXPECT_EQ(nccl_p2p_op_channels(1024 * MiB, 8, c, false, step, 22105), 32);
  // 2.14-2.19 within a server also halve the max until max x ranks <= 4 x p2p: 8 ranks -> 16.
  EXPECT_EQ(nccl_p2p_op_channels(1024 * MiB, 8, c, false, step, 21803), 16);
  // 2.18-2.19 skip both halvings across servers: min stays 32 (the max) whatever the ranks.
  EXPECT_EQ(nccl_p2p_op_channels(1024 * MiB, 8, c, true, 128 * 1024, 21803), 32);
  // Across servers from 2.20: 128 KiB steps, parts of 64 KiB to 128 KiB: 1 MiB on 2 ranks -> 16 at 64 KiB.
  EXPECT_EQ(nccl_p2p_op_channels(1 * MiB, 2, c, true, 128 * 1024, 22105), 16);
  // Never fewer channels for more bytes.
  int last = 0;
  for (double s = 1024; s <= 4096 * MiB; s *= 2) {
    const int n = nccl_p2p_op_channels(s, 2, c, false, step, 22105);
    EXPECT_GE(n, last) << s << " B";
    last = n;
  }
  // The step: 128 KiB across servers or off NVLink; at most NCCL_BUFFSIZE / 8.
  EXPECT_DOUBLE_EQ(nccl_p2p_chunk(true, true, 4.0 * MiB), 128.0 * 1024);
  EXPECT_DOUBLE_EQ(nccl_p2p_chunk(false, false, 4.0 * MiB), 128.0 * 1024);
  EXPECT_DOUBLE_EQ(nccl_p2p_chunk(false, true, 1.0 * MiB), 128.0 * 1024);
}

// ---- NCCL_GRAPH_FILE -----------------------------------------------------------------------------

std::string write_graph(const std::string& name, const std::string& channels, int nchannels,
                        int pattern = 4) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path)
      << R"(<graphs version="1"><graph id="0" pattern=")" << pattern << R"(" crossnic="0" nchannels=")"
      << nchannels
      << R"(" speedintra="12" speedinter="12" latencyinter="0" typeintra="PHB" typeinter="PIX" samechannels="1">)"
      << channels << "</graph></graphs>";
  return path;
}

CollectivePlan graph_plan(const Platform& p, const std::string& path) {
  CollectiveOptions o;
  o.nvls_enable = false;
  apply_nccl_env({{"NCCL_GRAPH_FILE", path}}, o);
  return plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{1 << 30}, o);
}

TEST(NcclGraphFile, ItsChannelsAreTheRingsAndItsCountIsNotDoubledBySearch) {
  // Three channels loaded at 12 GB/s: rings in the file's order (the second reversed); a loaded graph
  // skips the search's doubling, connect.cc's x2 still applies: 6.
  const Platform p = platform_of(pair_layout("epyc-7002", "rtx-a6000", 4));
  const std::string path = write_graph("three.xml",
                                       R"(<channel><gpu dev="0"/><gpu dev="1"/></channel>)"
                                       R"(<channel><gpu dev="1"/><gpu dev="0"/></channel>)"
                                       R"(<channel><gpu dev="0"/><gpu dev="1"/></channel>)",
                                       3);
  const CollectivePlan plan = graph_plan(p, path);
  ASSERT_EQ(plan.rings.size(), 3u);
  const auto g = p.topology().gpus();
  EXPECT_EQ(plan.rings[1].order, (std::vector<topology::DeviceId>{g[1], g[0]}));
  EXPECT_EQ(plan.nccl.graph, 3);
  EXPECT_DOUBLE_EQ(plan.nccl.graph_gbs, 12.0);
  EXPECT_EQ(plan.nccl.comm, 6) << plan.nccl.reason;
  // Only nchannels of the listed channels are NCCL's.
  EXPECT_EQ(graph_plan(p, write_graph("one.xml",
                                      R"(<channel><gpu dev="0"/><gpu dev="1"/></channel>)"
                                      R"(<channel><gpu dev="1"/><gpu dev="0"/></channel>)",
                                      1))
                .rings.size(),
            1u);
}

TEST(NcclGraphFile, AGraphThatDoesNotFitTheRunIsAnError) {
  const Platform p = platform_of(pair_layout("epyc-7002", "rtx-a6000", 4));
  EXPECT_THROW(graph_plan(p, write_graph("far.xml", R"(<channel><gpu dev="0"/><gpu dev="2"/></channel>)", 1)),
               InputError);
  EXPECT_THROW(graph_plan(p, write_graph("short.xml", R"(<channel><gpu dev="0"/></channel>)", 1)),
               InputError);
  EXPECT_THROW(
      graph_plan(p, write_graph("tree.xml", R"(<channel><gpu dev="0"/><gpu dev="1"/></channel>)", 1, 1)),
      InputError);
  CollectiveOptions o;
  EXPECT_THROW(apply_nccl_env({{"NCCL_GRAPH_FILE", "/nonexistent.xml"}}, o), InputError);
}

}  // namespace
}  // namespace rigsim::model
