// NVLS (issue 9, rule 6): NVLink SHARP all_reduce on NVLink4+ NVSwitch systems with Hopper or newer
// GPUs, chosen as NCCL's tuning model chooses it, with the NVSwitch's reduction and multicast as the
// data path: each GPU sends and receives S(n+1)/n instead of the ring's 2(n-1)/n S, so busbw rises above
// the per-GPU NVLink rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/executor.hpp"
#include "model/bench.hpp"
#include "model/collectives.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/layout_json.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

using testing::expect_closed_form;

Platform h200_box(const calibration::CostModel& cost = calibration::default_cost_model()) {
  return Platform(topology::load_layout(std::string(RIGSIM_SOURCE_DIR) +
                                        "/scenarios/dev-cases/layouts/mleng-8xh200-nvswitch.json"),
                  cost);
}

double seconds_of(const Platform& p, const CollectivePlan& plan) {
  return simulate_plan(p, engine::run, plan).value;
}

TEST(Nvls, AllReduceClosedFormOnHopperNvswitch) {
  const Platform p = h200_box();
  const auto gpus = p.topology().gpus();
  const double s = 1024.0 * 1024 * 1024;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s});
  ASSERT_EQ(plan.algorithm, Algorithm::Nvls);
  const auto n = static_cast<double>(gpus.size());
  const double b = plan.connections.front().rate.value;  // per-GPU NVLink rate through the switch
  const double eff = p.cost_model().nccl_nvls_efficiency[2];
  // The pipeline's fill and drain: 2 loops of 16 channels x 8 heads x 128 KiB = 2 x 16 MiB.
  const double fill = 2 * 16 * n * 131072;
  EXPECT_DOUBLE_EQ(plan.nvls.fill.value, fill);
  const double expected = p.cost_model().nccl_nvls_latency.value + (s + fill) * (n + 1) / n / (eff * b);
  expect_closed_form("lat + (S + 2 loop)(n+1)/n / (nvlsEfficiency x B)", expected, seconds_of(p, plan), "s");
}

// NCCL's NVLS kernel is a pipeline of scatter, switch reduce and gather over loops of channels x heads x
// chunk (src/device/all_reduce.h); enqueue.cc shrinks the chunk below 64, 8 and 2 loops of it, and the
// first and last loops add two loop-times (NvlsPipeline).
TEST(Nvls, PipelineLoopsFollowNcclsChunkRuleAndAddTwoLoops) {
  const Platform p = h200_box();
  const auto gpus = p.topology().gpus();  // 8 heads
  CollectiveOptions o;
  o.algorithm = Algorithm::Nvls;
  const auto pipeline = [&](double bytes, const CollectiveOptions& opt) {
    return plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{bytes}, opt).nvls;
  };
  const double mib = 1024.0 * 1024;
  // 16 channels x 8 heads = 128 concurrent chunks: 16 MiB at 128 KiB.
  struct Case {
    double size, chunk;
  };
  for (const Case c :
       {Case{2 * mib, 16384}, Case{4 * mib, 16384}, Case{8 * mib, 32768}, Case{63 * mib, 32768},
        Case{64 * mib, 65536}, Case{512 * mib, 65536}, Case{1024 * mib, 131072}}) {
    const NvlsPipeline n = pipeline(c.size, o);
    EXPECT_EQ(n.channels, 16);
    EXPECT_DOUBLE_EQ(n.chunk.value, c.chunk) << c.size / mib << " MiB";
    EXPECT_DOUBLE_EQ(n.loop.value, 128 * c.chunk);
    EXPECT_DOUBLE_EQ(n.fill.value, 2 * std::min(c.size, 128 * c.chunk));
  }
  // A size below one loop fills and drains itself: 2 S.
  EXPECT_DOUBLE_EQ(pipeline(1 * mib, o).fill.value, 2 * mib);
  // NCCL_NVLS_CHUNKSIZE raises the cap (up to the 512 KiB Simple step), NCCL_NVLS_NCHANNELS the channels.
  CollectiveOptions big = o;
  big.nvls_chunk = Bytes{1024 * 1024.0};
  big.nvls_channels = 8;
  const NvlsPipeline n = pipeline(8192 * mib, big);
  EXPECT_EQ(n.channels, 8);
  EXPECT_DOUBLE_EQ(n.chunk.value, 512 * 1024.0);
  // Closed form at 8 MiB: chunk 32 KiB, loop 4 MiB, lat + (S + 8 MiB)(n+1)/n / (eff B).
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{8 * mib}, o);
  const double k = static_cast<double>(gpus.size());
  const double b = plan.connections.front().rate.value;
  const double eff = p.cost_model().nccl_nvls_efficiency[2];
  const double expected =
      p.cost_model().nccl_nvls_latency.value + (8 * mib + 8 * mib) * (k + 1) / k / (eff * b);
  expect_closed_form("lat + (S + 2 loop)(n+1)/n / (eff B) at 8 MiB", expected, seconds_of(p, plan), "s");
  // More bytes never take less time, across every chunk threshold.
  double last = 0;
  for (double s : {1 * mib, 2 * mib - 1, 2 * mib, 8 * mib - 1, 8 * mib, 64 * mib - 1, 64 * mib,
                   1024 * mib - 1, 1024 * mib}) {
    const double t = seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, o));
    EXPECT_GE(t, last) << s << " B";
    last = t;
  }
}

// Blackwell: 32 NVLS channels from NCCL 2.25.1, 24 within one NVLink domain from 2.27.3; 16 before.
TEST(Nvls, BlackwellChannelsFollowTheRelease) {
  const Platform p(topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/hgx-b200.json"),
                   calibration::default_cost_model());
  const auto gpus = p.topology().gpus();
  CollectiveOptions o;
  o.algorithm = Algorithm::Nvls;
  for (const auto& [version, channels] : {std::pair{22304, 16}, std::pair{22501, 32}, std::pair{22703, 24}}) {
    o.p2p.nccl_version = version;
    EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1e9}, o).nvls.channels, channels)
        << version;
  }
}

TEST(Nvls, BusBandwidthRisesAboveTheLinkRate) {
  const Platform p = h200_box();
  const auto gpus = p.topology().gpus();
  const double s = 1024.0 * 1024 * 1024, n = static_cast<double>(gpus.size());
  const CollectivePlan nvls = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s});
  const double b = nvls.connections.front().rate.value;
  const double busbw = 2 * (n - 1) / n * s / seconds_of(p, nvls);
  EXPECT_GT(busbw, b) << "NVLS busbw " << busbw / 1e9 << " GB/s, link " << b / 1e9 << " GB/s";
  // The ring on the same links stays below the link rate (busbw <= B for a ring).
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  const double ring_busbw =
      2 * (n - 1) / n * s / seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, ring));
  EXPECT_LE(ring_busbw, b * 1.001);
  EXPECT_GT(busbw, ring_busbw);
}

TEST(Nvls, NcclChoiceSmallSizesStayOnTheRingAndTheSwitchCanBeTurnedOff) {
  const Platform p = h200_box();
  const auto gpus = p.topology().gpus();
  // 25 us of NVLS latency lose to LL's on small messages (tuning.cc).
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{32768}).algorithm, Algorithm::Ring);
  CollectiveOptions off;
  off.nvls_enable = false;  // NCCL_NVLS_ENABLE=0
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1e9}, off).algorithm, Algorithm::Ring);
  // Only all_reduce has NVLS here.
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllGather, gpus, Bytes{1e9}).algorithm, Algorithm::Ring);
}

TEST(Nvls, AnotherProtocolThanSimpleLeavesTheRing) {
  // tuning.cc skips NVLS for LL and LL128 (it runs Simple only), so NCCL_PROTO=LL or LL128 on an H200
  // box runs the ring; the same size with the default protocols is NVLS. Asking for NVLS with LL is
  // NCCL's "no algorithm/protocol available"; the tree runs every protocol (NCCL_ALGO=Tree).
  const Platform p = h200_box();
  const auto gpus = p.topology().gpus();
  const double s = 1024.0 * 1024 * 1024;
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}).algorithm, Algorithm::Nvls);
  for (Protocol proto : {Protocol::LL, Protocol::LL128}) {
    CollectiveOptions o;
    o.protocol = proto;
    const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, o);
    EXPECT_EQ(plan.algorithm, Algorithm::Ring) << to_string(proto);
    EXPECT_EQ(plan.protocol, proto);
    o.algorithm = Algorithm::Nvls;
    EXPECT_THROW(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, o), InputError);
    o.algorithm = Algorithm::Tree;
    const CollectivePlan tree = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, o);
    EXPECT_EQ(tree.algorithm, Algorithm::Tree) << to_string(proto);
    EXPECT_EQ(tree.protocol, proto);
  }
  // LL moves 8 data bytes per 16-byte line: on the ring it is at least twice Simple's time.
  CollectiveOptions ll, simple;
  ll.protocol = Protocol::LL;
  simple.protocol = Protocol::Simple;
  simple.nvls_enable = false;
  const double t_ll = seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, ll));
  const double t_simple = seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, simple));
  EXPECT_GE(t_ll, 2 * t_simple * 0.99) << "LL " << t_ll << " s, Simple " << t_simple << " s";
}

TEST(Nvls, TwoGpusGetNvlsOnlyFromNccl2287) {
  // NCCL's nvls.cc: "gpuCount <= 2" turns NVLS off up to 2.28.3, "gpuCount < 2" from 2.28.7.
  const Platform p = h200_box();
  const auto all = p.topology().gpus();
  const std::vector<topology::DeviceId> two(all.begin(), all.begin() + 2);
  const double s = 1024.0 * 1024 * 1024;
  CollectiveOptions o;
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, two, Bytes{s}, o).algorithm, Algorithm::Nvls);
  o.p2p.nccl_version = topology::parse_nccl_version("2.28.3");
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, two, Bytes{s}, o).algorithm, Algorithm::Ring);
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, all, Bytes{s}, o).algorithm, Algorithm::Nvls);
  o.algorithm = Algorithm::Nvls;
  EXPECT_THROW(plan_collective(p, CollectiveOp::AllReduce, two, Bytes{s}, o), InputError);
}

TEST(Nvls, UpToNccl227ItsGraphDecidesAndFourGpusKeepTheRing) {
  // tuning.cc up to 2.27.7: NVLS algbw = n channels x speed x 5/6, speed the fastest SM90 table entry
  // with (n+1) x speed <= the GPU's 370.8 GB/s of NVLink (each channel pulls twice from its head).
  // 4 GPUs: 5 x 60 <= 370.8, NVLS 4 x 60 x 5/6 = 200 GB/s < ring 370.8 x 4/6 = 247: ring.
  // 6 GPUs: 7 x 50, NVLS 250 > ring 370.8 x 6/10 = 222; 8 GPUs: 9 x 40, NVLS 266.7 > ring 211.9.
  const Platform p = h200_box();
  const auto all = p.topology().gpus();
  const double s = 1024.0 * 1024 * 1024;
  CollectiveOptions old;
  old.p2p.nccl_version = topology::parse_nccl_version("2.18.3");
  auto first = [&](std::size_t n) { return std::vector<topology::DeviceId>(all.begin(), all.begin() + n); };
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, first(4), Bytes{s}, old).algorithm, Algorithm::Ring);
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, first(6), Bytes{s}, old).algorithm, Algorithm::Nvls);
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, first(8), Bytes{s}, old).algorithm, Algorithm::Nvls);
  old.p2p.nccl_version = topology::parse_nccl_version("2.27.7");
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, first(4), Bytes{s}, old).algorithm, Algorithm::Ring);
  // From 2.28.3 the nvlsEfficiency model: 2 x 0.85 x 370.8 x 15/16 bus bandwidth, NVLS for 4 GPUs.
  old.p2p.nccl_version = topology::parse_nccl_version("2.28.3");
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, first(4), Bytes{s}, old).algorithm, Algorithm::Nvls);
}

TEST(Nvls, NotOnAmpereAndForcingItThereIsAnError) {
  const auto dgx = testing::catalog_layout("dgx-a100");
  ASSERT_TRUE(dgx);
  const Platform p(*dgx, calibration::default_cost_model());
  const auto gpus = p.topology().gpus();
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1e9}).algorithm, Algorithm::Ring);
  CollectiveOptions force;
  force.algorithm = Algorithm::Nvls;
  EXPECT_THROW(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1e9}, force), InputError);
}

TEST(Nvls, HigherSwitchEfficiencyNeverSlower) {
  double last = 1e30;
  for (double eff : {0.5, 0.7, 0.85, 1.0}) {
    calibration::CostModel c = calibration::default_cost_model();
    c.nccl_nvls_efficiency[2] = eff;
    const Platform p = h200_box(c);
    CollectiveOptions force;
    force.algorithm = Algorithm::Nvls;
    const double t = seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{1e9}, force));
    EXPECT_LE(t, last * 1.0001) << "efficiency " << eff;
    last = t;
  }
}

// ---- NVLS_TREE across servers (NCCL 2.18 and later) --------------------------------------------------

/// `servers` DGX H100s (catalog hgx-h100) joined by their ConnectX-7s.
Platform h100_cluster(int servers, const calibration::CostModel& cost = calibration::default_cost_model()) {
  return Platform(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/hgx-h100.json", servers),
      cost);
}

/// The rates the closed forms use: a GPU's NVLink rate through its server's switch, and the network route
/// of GPU 0 to GPU 0 of the next server (its NIC).
struct ClusterRates {
  double nvlink, nic;
};
ClusterRates rates_of(const CollectivePlan& plan) {
  ClusterRates r{0, 0};
  for (const Connection& c : plan.connections)
    (c.transport == Transport::Net ? r.nic : r.nvlink) = c.rate.value;
  return r;
}

TEST(NvlsTree, TwoServersClosedForm) {
  // NVLS inside each server (S(n+1)/n per GPU over its NVLinks, divided by nvlsEfficiency) at the same
  // time as each GPU's shard crossing its NIC (S/n per direction between 2 servers); NCCL's latency term
  // is NVLS's 25 us + 2 log2(2) x 14 us.
  const Platform p = h100_cluster(2);
  const auto gpus = p.topology().gpus();
  const double s = 4.0 * 1024 * 1024 * 1024, n = 8;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s});
  ASSERT_EQ(plan.algorithm, Algorithm::NvlsTree);
  const ClusterRates r = rates_of(plan);
  ASSERT_GT(r.nvlink, 0);
  ASSERT_GT(r.nic, 0);
  const double eff = p.cost_model().nccl_nvls_efficiency[2];
  const double lat = p.cost_model().nccl_nvls_latency.value + 2 * p.cost_model().nccl_step_latency_net.value;
  EXPECT_NEAR(plan.latency.value, lat, 1e-12);
  // NVLS_TREE's chunk (2.23 on): NCCL_NVLS_CHUNKSIZE, 128 KiB at 4 GiB; its scatter and gather fill and
  // drain 2 loops of 16 channels x 8 heads x 128 KiB, carried by every flow.
  const double fill = 2 * 16 * n * 131072;
  EXPECT_DOUBLE_EQ(plan.nvls.fill.value, fill);
  // Each of the n heads' channels moves at most perChMaxNVLSTreeBws (Hopper, 2 servers: 57.7 GB/s) of
  // bus bandwidth, the pipeline's slowest stage; its fill and drain (2 loops) pass the NVLS stages at
  // the NVLS rate on top: 2(N-1)/N S / (n x 57.7 GB/s) + 2 loop (n+1)/n / (eff B_nvlink), N = 16
  // ranks, binds here over the routes.
  const double heads = n * p.cost_model().nccl_nvls_tree_channel_bw_gbs[2][1] * 1e9;
  EXPECT_EQ(plan.block_channels, 8);
  EXPECT_DOUBLE_EQ(plan.block_channel_gbs, 57.7);
  EXPECT_EQ(plan.block_figure, "perChMaxNVLSTreeBw");
  const double expected = lat + std::max({(s + fill) * (n + 1) / n / (eff * r.nvlink), (s + fill) / n / r.nic,
                                          s * 2 * 15 / 16 / heads + fill * (n + 1) / n / (eff * r.nvlink)});
  expect_closed_form(
      "lat + max(F(n+1)/n / (eff B_nvlink), F/n / B_nic, 2(N-1)/N S / (n perCh) + 2 loop (n+1)/n / "
      "(eff B_nvlink)), F = S + 2 loop",
      expected, seconds_of(p, plan), "s");
  // Above the ring on the same cluster, which carries 2(N-1)/N S over the NICs.
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  EXPECT_LT(seconds_of(p, plan),
            seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, ring)));
}

TEST(NvlsTree, MidSizesPayTheFillOnTopOfTheChannelRate) {
  // A pipeline moves its data at its slowest stage's rate and pays the fill and drain at the others':
  // at 256 MiB on 2 HGX H100 servers the heads' channel figure (perChMaxNVLSTreeBws) binds, and the
  // two loops of 16 channels x 8 heads x 128 KiB (32 MiB) pass the NVLS stages at the NVLS rate on top.
  const Platform p = h100_cluster(2);
  const auto gpus = p.topology().gpus();
  const double s = 256.0 * 1024 * 1024, n = 8;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s});
  ASSERT_EQ(plan.algorithm, Algorithm::NvlsTree);
  const ClusterRates r = rates_of(plan);
  const double fill = 2 * 16 * n * 131072;
  ASSERT_DOUBLE_EQ(plan.nvls.fill.value, fill);
  const double eff = p.cost_model().nccl_nvls_efficiency[2];
  const double heads = n * p.cost_model().nccl_nvls_tree_channel_bw_gbs[2][1] * 1e9;
  const double steady = s * 2 * 15 / 16 / heads, fill_time = fill * (n + 1) / n / (eff * r.nvlink);
  const double links = std::max((s + fill) * (n + 1) / n / (eff * r.nvlink), (s + fill) / n / r.nic);
  ASSERT_GT(steady + fill_time, links);  // the channel figure binds at this size
  expect_closed_form("lat + 2(N-1)/N S / (n perCh) + 2 loop (n+1)/n / (eff B_nvlink)",
                     plan.latency.value + steady + fill_time, seconds_of(p, plan), "s");
  // The fill is not absorbed into the channel's rate: the time is above max(links, steady) by its
  // share, about 11 % here.
  EXPECT_GT(seconds_of(p, plan), 1.05 * (plan.latency.value + std::max(links, steady)));
}

TEST(NvlsTree, BeyondTwoServersEachNicCarriesTwiceTheShard) {
  // An inner server of a double binary tree receives from two children and sends to two: 2S/n per NIC
  // and direction; the latency term grows by 2 log2(servers) network steps.
  const Platform p = h100_cluster(4);
  const auto gpus = p.topology().gpus();
  const double s = 4.0 * 1024 * 1024 * 1024, n = 8;
  CollectiveOptions force;
  force.algorithm = Algorithm::NvlsTree;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, force);
  const ClusterRates r = rates_of(plan);
  const double eff = p.cost_model().nccl_nvls_efficiency[2];
  const double lat =
      p.cost_model().nccl_nvls_latency.value + 2 * 2 * p.cost_model().nccl_step_latency_net.value;
  // On 4 servers NVLS_TREE's chunk is at most 64 KiB (NCCL_NVLSTREE_MAX_CHUNKSIZE's default, 2.19 on).
  const double fill = 2 * 16 * n * 65536;
  EXPECT_DOUBLE_EQ(plan.nvls.fill.value, fill);
  // Beyond 2 servers the heads' channel figure is perChMaxNVLSTreeBws' last column (Hopper: 45.5 GB/s).
  const double heads = n * p.cost_model().nccl_nvls_tree_channel_bw_gbs[2][2] * 1e9;
  const double expected =
      lat + std::max({(s + fill) * (n + 1) / n / (eff * r.nvlink), 2 * (s + fill) / n / r.nic,
                      s * 2 * 31 / 32 / heads + fill * (n + 1) / n / (eff * r.nvlink)});
  expect_closed_form(
      "lat + max(F(n+1)/n / (eff B_nvlink), 2F/n / B_nic, 2(N-1)/N S / (n perCh) + 2 loop (n+1)/n / "
      "(eff B_nvlink)), F = S + 2 loop",
      expected, seconds_of(p, plan), "s");
}

TEST(ClusterTree, EveryRingsNicCarriesItsPairOfTrees) {
  // NCCL builds a tree per channel on the channel's NIC; rigsim one double binary tree per distinct ring,
  // whose chain in each server starts at the GPU the ring enters at. 4 HGX H100 servers: 8 rings, one
  // per NIC, so 16 trees of S/16. Each server is an inner node (2 children) of one of a ring's two trees
  // and a leaf of the other: its NIC sends 1 + 2 + 1 = 4 of S/16 per direction, S/4. Inside a server
  // every GPU is a chain's head once, its tail once and in its middle 6 times: (1 + 1 + 6 x 2) x 2 trees
  // x S/16 = 1.75 S over its NVLinks per direction.
  // The routes alone: tree channels without their block rate (NCCL's perChMaxTreeBws), which binds on
  // 4 servers (TreeChannels.ATreeMovesAtNcclsPerChannelRate).
  calibration::CostModel unbound = calibration::default_cost_model();
  for (auto& row : unbound.nccl_tree_channel_bw_gbs) row.fill(1e6);
  const Platform p = h100_cluster(4, unbound);
  const auto gpus = p.topology().gpus();
  const double s = 4.0 * 1024 * 1024 * 1024;
  CollectiveOptions force;
  force.algorithm = Algorithm::Tree;
  force.model = PlanModel::Steady;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, force);
  ASSERT_EQ(plan.rings.size(), 8u);
  ASSERT_EQ(plan.tree_parents.size(), 16u);
  EXPECT_DOUBLE_EQ(plan.chunk.value, s / 16);
  std::set<std::string> nics;
  for (const Connection& c : plan.connections)
    if (c.transport == Transport::Net) nics.insert(p.topology().device(c.src).name);
  EXPECT_EQ(nics.size(), gpus.size()) << "every GPU of every server heads one ring's trees on its NIC";
  const ClusterRates r = rates_of(plan);
  const double expected = plan.latency.value + std::max(s / 4 / r.nic, 1.75 * s / r.nvlink);
  expect_closed_form("lat + max(S/4 / B_nic, 1.75 S / B_nvlink)", expected, seconds_of(p, plan), "s");
  // The pair of trees on the first ring alone (rigsim before) put 4 x S/2 = 2S through one NIC per server.
  EXPECT_LT(seconds_of(p, plan), 2 * s / r.nic / 7);
}

TEST(NvlsTree, OnlyWhereNcclRunsIt) {
  const Platform two = h100_cluster(2);
  const auto gpus = two.topology().gpus();
  // Not before NCCL 2.18 (tuning.cc has no NVLS_TREE at v2.17.1), nor with NCCL_NVLS_ENABLE=0.
  CollectiveOptions old;
  old.p2p.nccl_version = topology::parse_nccl_version("2.17.1");
  EXPECT_NE(plan_collective(two, CollectiveOp::AllReduce, gpus, Bytes{4e9}, old).algorithm,
            Algorithm::NvlsTree);
  CollectiveOptions off;
  off.nvls_enable = false;
  EXPECT_NE(plan_collective(two, CollectiveOp::AllReduce, gpus, Bytes{4e9}, off).algorithm,
            Algorithm::NvlsTree);
  // Only all_reduce; small sizes keep the ring's low latency.
  EXPECT_EQ(plan_collective(two, CollectiveOp::AllGather, gpus, Bytes{4e9}).algorithm, Algorithm::Ring);
  EXPECT_NE(plan_collective(two, CollectiveOp::AllReduce, gpus, Bytes{1024}).algorithm, Algorithm::NvlsTree);
  // One server is NVLS, not NVLS_TREE; forcing NVLS_TREE there, on Ampere, or with LL is an error.
  const Platform one = h100_cluster(1);
  EXPECT_EQ(plan_collective(one, CollectiveOp::AllReduce, one.topology().gpus(), Bytes{4e9}).algorithm,
            Algorithm::Nvls);
  CollectiveOptions force;
  force.algorithm = Algorithm::NvlsTree;
  EXPECT_THROW(plan_collective(one, CollectiveOp::AllReduce, one.topology().gpus(), Bytes{4e9}, force),
               InputError);
  const Platform a100(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/dgx-a100.json", 2),
      calibration::default_cost_model());
  EXPECT_NE(plan_collective(a100, CollectiveOp::AllReduce, a100.topology().gpus(), Bytes{4e9}).algorithm,
            Algorithm::NvlsTree);
  EXPECT_THROW(plan_collective(a100, CollectiveOp::AllReduce, a100.topology().gpus(), Bytes{4e9}, force),
               InputError);
  force.protocol = Protocol::LL;
  EXPECT_THROW(plan_collective(two, CollectiveOp::AllReduce, gpus, Bytes{4e9}, force), InputError);
}

TEST(NvlsTree, TwoFlowsPerGpuSoLargeClustersStaySmall) {
  // Inside a server one flow per GPU to the next GPU carries the NVLS load (the switch is non-blocking,
  // so every GPU link carries what the n(n-1) pair flows would), plus one network flow per GPU: a
  // cluster of 512 servers (4,096 GPUs) plans 8,192 flows, no per-pair blow-up.
  const Platform p = h100_cluster(512);
  const auto gpus = p.topology().gpus();
  CollectiveOptions force;
  force.algorithm = Algorithm::NvlsTree;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1e9}, force);
  EXPECT_EQ(plan.transfers.size(), 2 * gpus.size());
}

TEST(NvlsTree, MoreServersNeverFaster) {
  // The same all_reduce over more servers: the NICs carry twice the shard beyond 2 servers and the tree
  // adds network steps, so it never takes less time.
  double last = 0;
  for (int servers : {2, 4, 8}) {
    const Platform p = h100_cluster(servers);
    const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{1e9});
    const double t = seconds_of(p, plan);
    EXPECT_GE(t, last * 0.9999) << servers << " servers (" << to_string(plan.algorithm) << ")";
    last = t;
  }
}

}  // namespace
}  // namespace rigsim::model
