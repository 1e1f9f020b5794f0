// Collective plans and ring order, without SimGrid: step counts, bytes per step, balance of what
// each GPU sends and receives, well-formed dependencies, and rings that follow the topology.
#include "model/collectives.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "common/input.hpp"
#include "tests/model/collective_layouts.hpp"

namespace rigsim::model {
namespace {

using topology::DeviceId;
using topology::PathClass;
using topology::testing::layout_from_text;

const calibration::CostModel kCost = testing::round_cost_model();
constexpr double kS = 64.0 * 1024 * 1024;  // bytes

std::vector<DeviceId> first_gpus(const topology::Topology& t, std::size_t n) {
  auto g = t.gpus();
  g.resize(n);
  return g;
}

CollectivePlan plan(const topology::Topology& t, CollectiveOp op, std::size_t n, PlanModel model,
                    double size = kS) {
  CollectiveOptions o;
  o.model = model;
  return plan_collective(Platform(t, kCost), op, first_gpus(t, n), Bytes{size}, o);
}

/// A zero-byte transfer of a GPU to itself: a step latency, not data.
bool is_delay(const Transfer& t) {
  return t.src == t.dst && t.bytes.value == 0;
}

/// Indices of the transfers that move data.
std::vector<std::size_t> flows(const CollectivePlan& p) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < p.transfers.size(); ++i)
    if (!is_delay(p.transfers[i])) out.push_back(i);
  return out;
}

void expect_well_formed(const CollectivePlan& p) {
  for (std::size_t i = 0; i < p.transfers.size(); ++i) {
    const Transfer& t = p.transfers[i];
    if (!is_delay(t)) {
      EXPECT_NE(t.src, t.dst) << "transfer " << i;
      EXPECT_GT(t.bytes.value, 0) << "transfer " << i;
    }
    for (std::size_t a : t.after) EXPECT_LT(a, i) << "transfer " << i << " depends on a later one";
  }
}

std::map<DeviceId, double> sent(const CollectivePlan& p) {
  std::map<DeviceId, double> m;
  for (std::size_t i : flows(p)) m[p.transfers[i].src] += p.transfers[i].bytes.value;
  return m;
}
std::map<DeviceId, double> received(const CollectivePlan& p) {
  std::map<DeviceId, double> m;
  for (std::size_t i : flows(p)) m[p.transfers[i].dst] += p.transfers[i].bytes.value;
  return m;
}

class FourUnderOneSwitch : public ::testing::Test {
 protected:
  topology::Topology t = layout_from_text(testing::kFourBehindOneUplink);
};

TEST_F(FourUnderOneSwitch, AllReduceStepPlanHasTwoNMinusOneStepsOfSOverN) {
  const CollectivePlan p = plan(t, CollectiveOp::AllReduce, 4, PlanModel::Step);
  expect_well_formed(p);
  EXPECT_EQ(p.algorithm, Algorithm::Ring);
  ASSERT_EQ(p.channels, 1);
  const std::size_t n = 4, steps = 2 * (n - 1);
  // Each step moves a slice S/n per rank, cut into L pipelined loops (1 <= L <= max_ring_loops).
  const std::size_t moved = flows(p).size();
  ASSERT_EQ(moved % (steps * n), 0u);
  const std::size_t loops = moved / (steps * n);
  EXPECT_GE(loops, 1u);
  EXPECT_LE(loops, 8u);
  EXPECT_NEAR(p.chunk.value * loops, kS / n, 1e-6)
      << "bytes per step per rank = S/n, split in " << loops << " loops";
  std::set<std::string> step_tags;
  for (std::size_t i : flows(p)) step_tags.insert(p.transfers[i].tag);
  EXPECT_EQ(step_tags.size(), steps) << "expected 2(n-1) = " << steps << " distinct steps";
  for (auto [gpu, bytes] : sent(p))
    EXPECT_NEAR(bytes, 2.0 * (n - 1) / n * kS, 1e-6 * kS) << "2(n-1)/n·S sent by each GPU";
  for (auto [gpu, bytes] : received(p)) EXPECT_NEAR(bytes, 2.0 * (n - 1) / n * kS, 1e-6 * kS);
}

TEST_F(FourUnderOneSwitch, StepsWaitForTheirDataAndCarryTheStepLatency) {
  const CollectivePlan p = plan(t, CollectiveOp::AllReduce, 4, PlanModel::Step);
  const auto f = flows(p);
  // Step 0 of hop r: a delay of base + NCCL's step latency, then the flow, on a connection NCCL set up
  // at init (connected: the P2P transport's cold setup is not charged).
  for (std::size_t r = 0; r < 4; ++r) {
    const Transfer& flow = p.transfers[f[r]];
    ASSERT_EQ(flow.after.size(), 1u);
    const Transfer& delay = p.transfers[flow.after[0]];
    EXPECT_TRUE(is_delay(delay));
    EXPECT_TRUE(delay.after.empty());
    EXPECT_DOUBLE_EQ(delay.latency.value, (kCost.nccl_base_latency + kCost.nccl_step_latency_pcie).value);
    EXPECT_TRUE(flow.connected);
  }
  // Step 1 of hop 1: its delay waits for step 0 of hop 0 (the data it forwards); its flow waits for the
  // delay and for step 0 of hop 1 (one flow at a time per connection).
  const Transfer& step1 = p.transfers[f[4 + 1]];
  ASSERT_EQ(step1.after.size(), 2u);
  EXPECT_EQ(p.transfers[step1.after[0]].after, (std::vector<std::size_t>{f[0]}));
  EXPECT_EQ(step1.after[1], f[1]);
  EXPECT_DOUBLE_EQ(p.latency.value, (kCost.nccl_base_latency.value + 6 * kCost.nccl_step_latency_pcie.value));
}

TEST_F(FourUnderOneSwitch, SteadyAllReduceIsOneFlowPerHop) {
  const CollectivePlan p = plan(t, CollectiveOp::AllReduce, 4, PlanModel::Steady);
  expect_well_formed(p);
  ASSERT_EQ(p.transfers.size(), 4u);
  for (const auto& tr : p.transfers) {
    EXPECT_DOUBLE_EQ(tr.bytes.value, 2.0 * 3 / 4 * kS) << "2(n-1)/n·S per ring edge";
    EXPECT_TRUE(tr.after.empty());
    EXPECT_DOUBLE_EQ(tr.latency.value, 10e-6 + 6 * 5e-6) << "base + 2(n-1)·step latency";
    EXPECT_TRUE(tr.connected) << "no transport setup on top";
  }
}

TEST_F(FourUnderOneSwitch, AllGatherAndReduceScatterHaveNMinusOneSteps) {
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter}) {
    const CollectivePlan p = plan(t, op, 4, PlanModel::Step);
    expect_well_formed(p);
    std::set<std::string> tags;
    for (std::size_t i : flows(p)) tags.insert(p.transfers[i].tag);
    EXPECT_EQ(tags.size(), 3u) << "n-1 steps, " << to_string(op);
    for (auto [gpu, bytes] : sent(p))
      EXPECT_NEAR(bytes, 3.0 / 4 * kS, 1e-6 * kS) << "(n-1)/n·S, " << to_string(op);
  }
}

TEST_F(FourUnderOneSwitch, AlltoallIsNTimesNMinusOneFlowsOfSOverN) {
  const CollectivePlan p = plan(t, CollectiveOp::AllToAll, 4, PlanModel::Auto);
  expect_well_formed(p);
  EXPECT_EQ(p.algorithm, Algorithm::Pairwise);
  ASSERT_EQ(p.transfers.size(), 12u);
  std::set<std::pair<DeviceId, DeviceId>> pairs;
  for (const auto& tr : p.transfers) {
    EXPECT_DOUBLE_EQ(tr.bytes.value, kS / 4);
    pairs.insert({tr.src, tr.dst});
  }
  EXPECT_EQ(pairs.size(), 12u) << "every ordered pair exactly once";
}

TEST_F(FourUnderOneSwitch, SendRecvSendsSToTheNextRank) {
  const CollectivePlan p = plan(t, CollectiveOp::SendRecv, 4, PlanModel::Auto);
  ASSERT_EQ(p.transfers.size(), 4u);
  const auto g = t.gpus();
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.transfers[i].src, g[i]);
    EXPECT_EQ(p.transfers[i].dst, g[(i + 1) % 4]);
    EXPECT_DOUBLE_EQ(p.transfers[i].bytes.value, kS);
  }
}

TEST_F(FourUnderOneSwitch, BroadcastChainStartsAtTheRootAndReduceEndsThere) {
  CollectiveOptions o;
  o.model = PlanModel::Step;
  o.root = 2;
  const auto ranks = first_gpus(t, 4);
  const CollectivePlan b = plan_collective(Platform(t, kCost), CollectiveOp::Broadcast, ranks, Bytes{kS}, o);
  expect_well_formed(b);
  EXPECT_EQ(b.rings[0].order.front(), ranks[2]);
  EXPECT_EQ(b.rings[0].hops.size(), 3u);
  auto in = received(b);
  EXPECT_EQ(in.count(ranks[2]), 0u) << "the root receives nothing";
  for (auto [gpu, bytes] : in) EXPECT_NEAR(bytes, kS, 1e-6 * kS) << "every other GPU receives S";
  const CollectivePlan r = plan_collective(Platform(t, kCost), CollectiveOp::Reduce, ranks, Bytes{kS}, o);
  EXPECT_EQ(r.rings[0].order.back(), ranks[2]);
  EXPECT_EQ(sent(r).count(ranks[2]), 0u) << "the root sends nothing";
}

TEST_F(FourUnderOneSwitch, ZeroBytesOrOneGpuPlanNothing) {
  EXPECT_TRUE(plan(t, CollectiveOp::AllReduce, 4, PlanModel::Step, 0).transfers.empty());
  EXPECT_TRUE(plan(t, CollectiveOp::AllReduce, 1, PlanModel::Step).transfers.empty());
  EXPECT_TRUE(plan(t, CollectiveOp::AllToAll, 1, PlanModel::Step).transfers.empty());
}

TEST_F(FourUnderOneSwitch, BadRankListsAreInputErrors) {
  const auto g = t.gpus();
  EXPECT_THROW(plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, {}, Bytes{kS}), InputError);
  EXPECT_THROW(plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, {g[0], g[0]}, Bytes{kS}),
               InputError);
  EXPECT_THROW(plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, {t.find("plx0")}, Bytes{kS}),
               InputError);
  CollectiveOptions o;
  o.root = 4;
  EXPECT_THROW(plan_collective(Platform(t, kCost), CollectiveOp::Broadcast, g, Bytes{kS}, o), InputError);
  o.root = 0;
  o.algorithm = Algorithm::Tree;
  EXPECT_THROW(plan_collective(Platform(t, kCost), CollectiveOp::AllGather, g, Bytes{kS}, o), InputError);
}

TEST(RingOrder, TwoSocketsTwoSwitchesEachCrossTheInterSocketLinkExactlyTwice) {
  const auto t = layout_from_text(topology::testing::kDualRootPlx);
  CollectiveOptions o;
  o.model = PlanModel::Steady;
  const CollectivePlan p =
      plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, t.gpus(), Bytes{kS}, o);
  int sys = 0, pix = 0;
  for (const Connection& h : p.rings[0].hops) {
    sys += h.path == PathClass::SYS;
    pix += h.path == PathClass::PIX;
  }
  EXPECT_EQ(sys, 2) << "a ring over two sockets needs exactly two crossings";
  EXPECT_EQ(pix, 4) << "each switch's pair should be neighbours";
  EXPECT_EQ(ring_order(Platform(t, kCost), t.gpus()), ring_order(Platform(t, kCost), t.gpus()))
      << "deterministic";
  EXPECT_EQ(ring_order(Platform(t, kCost), t.gpus()).front(), t.gpus().front());
}

TEST(RingOrder, HybridCubeMeshFollowsNvlink) {
  const auto t = layout_from_text(testing::kDgx1Like);
  // Put the GPUs in an order whose neighbours are not all NVLink-connected (g0 -> g5 is PCIe only).
  std::vector<DeviceId> g;
  for (const char* name : {"g0", "g5", "g2", "g7", "g4", "g1", "g6", "g3"}) g.push_back(t.find(name));
  const auto rings = ring_channels(Platform(t, kCost), g, {}, 16);
  ASSERT_FALSE(rings.empty());
  for (const auto& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Connection h = Platform(t, kCost).connect(ring[i], ring[(i + 1) % ring.size()], {}, g.size());
      EXPECT_EQ(h.path, PathClass::NVL) << t.device(h.src).name << " -> " << t.device(h.dst).name;
    }
  EXPECT_GE(rings.size(), 2u) << "disjoint NVLink directions give more than one channel";
}

/// Two servers, each two GPUs of `gpu` on two root ports of an EPYC 7003 (NODE) and a ConnectX-6.
topology::Topology two_epyc_servers(const std::string& gpu) {
  return topology::build_cluster(testing::spec_from_text(R"({"name": "t",
    "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": ")" + gpu + R"(", "parent": "rc0"}, {"id": "g1", "model": ")" + gpu +
                                                                     R"(", "parent": "rc1"}],
    "nics": [{"id": "nic0", "model": "connectx-6-200g", "parent": "rc2"}]})"),
                                 2);
}

TEST(ClusterPlans, NcclCountsTheCommunicatorsGpusPerHostForItsP2pLevel) {
  // Two servers, each two A100 PCIe on two EPYC root ports (NODE): NCCL 2.23+ counts 2 GPUs on the
  // host (not 4 in the communicator), so AMD's <= 2 rule keeps level SYS and the pair uses P2P.
  const auto t = two_epyc_servers("a100-pcie-40gb");
  CollectiveOptions o;
  o.algorithm = Algorithm::Ring;
  const CollectivePlan p =
      plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, t.gpus(), Bytes{kS}, o);
  int p2p = 0, shm = 0;
  for (const Connection& h : p.rings[0].hops) {
    p2p += h.transport == Transport::P2p;
    shm += h.transport == Transport::Shm;
  }
  EXPECT_EQ(p2p, 2) << "one intra-server hop per server";
  EXPECT_EQ(shm, 0);
}

TEST(ClusterPlans, RingsCrossTheNetworkOncePerServerAndTreesSplitTheData) {
  const auto t = topology::build_cluster(testing::spec_from_text(topology::testing::kDualRootPlx), 2);
  CollectiveOptions o;
  o.model = PlanModel::Step;
  o.algorithm = Algorithm::Ring;
  const CollectivePlan ring =
      plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, t.gpus(), Bytes{kS}, o);
  int net = 0;
  for (const Connection& h : ring.rings[0].hops) net += h.transport == Transport::Net;
  EXPECT_EQ(net, 2) << "a ring over two servers leaves and enters each once";
  o.algorithm = Algorithm::Tree;
  const CollectivePlan tree =
      plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, t.gpus(), Bytes{kS}, o);
  expect_well_formed(tree);
  ASSERT_EQ(tree.tree_parents.size(), 2u);
  for (const auto& parents : tree.tree_parents)
    EXPECT_EQ(std::count(parents.begin(), parents.end(), -1), 1) << "one root per tree";
  // Each tree moves S/2 up and S/2 down every edge: 2 trees x 2 x (R-1) x S/2 bytes in all.
  double total = 0;
  for (const auto& tr : tree.transfers) total += tr.bytes.value;
  EXPECT_DOUBLE_EQ(total, 2.0 * 15 * kS);
}

TEST(ClusterPlans, EachServersConnectionsNameItsOwnGpus) {
  // Connections of one shape are computed once per cluster; a copy in another server names that
  // server's devices in its reason ("n1/g0 (GeForce RTX 3090) has no PCIe P2P ..."), not the first's.
  const auto t = two_epyc_servers("rtx-3090");
  CollectiveOptions o;
  o.algorithm = Algorithm::Ring;
  const CollectivePlan p = plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, t.gpus(), Bytes{kS}, o);
  int named = 0;
  for (const Connection& h : p.connections) {
    if (h.transport == Transport::Net) continue;
    const std::string server = t.device(h.src).name.substr(0, 3);  // "n0/" or "n1/"
    const std::string other = server == "n0/" ? "n1/" : "n0/";
    EXPECT_NE(h.reason.find(server + "g"), std::string::npos) << h.reason;
    EXPECT_EQ(h.reason.find(other), std::string::npos) << t.device(h.src).name << ": " << h.reason;
    named += server == "n1/";
  }
  EXPECT_GT(named, 0);
}

TEST(ClusterPlans, AutoModelGoesSteadyAboveSixteenRanks) {
  const auto t = topology::build_cluster(testing::spec_from_text(topology::testing::kDualRootPlx), 3);
  const CollectivePlan p = plan_collective(Platform(t, kCost), CollectiveOp::AllReduce, t.gpus(), Bytes{kS});
  EXPECT_EQ(p.model, PlanModel::Steady);
  EXPECT_LE(p.transfers.size(), 2 * 3 * 8u * 2);
}

}  // namespace
}  // namespace rigsim::model
