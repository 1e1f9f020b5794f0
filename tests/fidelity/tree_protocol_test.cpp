// The tree all_reduce across servers on NCCL's three protocols (tuning.cc: every (algorithm, protocol)
// pair is estimated and the fastest runs): closed forms of NCCL's tree estimate and of the simulated
// time, and the choice it makes by size.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/executor.hpp"
#include "model/bench.hpp"
#include "model/collectives.hpp"
#include "report/bench.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/p2p.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

using testing::expect_closed_form;

/// `servers` DGX A100s (catalog dgx-a100: 8 GPUs on NVSwitch, 8 HDR NICs each).
Platform a100_cluster(int servers) {
  return Platform(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/dgx-a100.json", servers),
      calibration::default_cost_model());
}

double seconds_of(const Platform& p, const CollectivePlan& plan) {
  return simulate_plan(p, engine::run, plan).value;
}

TEST(TreeProtocols, SmallAllReduceAcrossServersRunsTheTreeOnLl) {
  // 8 servers x 8 GPUs, 8 bytes: NCCL's Tree LL estimate is 6.8 + 2((8-1) x 0.6 + log2(8) x 5.0) = 45.2 us
  // (tuning.cc Tree rows), below the ring's 2(64-1) steps and NVLS-less A100s' tree on Simple; the tree's
  // flows run at once after it (LL forwards lines as they arrive), so the simulated time is that term
  // plus one route's latency.
  const Platform p = a100_cluster(8);
  const auto gpus = p.topology().gpus();
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{8});
  ASSERT_EQ(plan.algorithm, Algorithm::Tree);
  ASSERT_EQ(plan.protocol, Protocol::LL);
  const auto& c = p.cost_model();
  const double lat = c.nccl_tree_ll_base_latency.value + 2 * (7 * c.nccl_tree_ll_step_latency_nvlink.value +
                                                              3 * c.nccl_tree_ll_step_latency_net.value);
  expect_closed_form("6.8 + 2((8-1) 0.6 + log2(8) 5.0) us", lat, plan.latency.value, "s");
  const double t = seconds_of(p, plan);
  EXPECT_GE(t, lat);
  EXPECT_LT(t, lat + 3e-6) << "the tree's latency term and one route's, not a step per hop";
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  EXPECT_GT(seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{8}, ring)), 2 * t)
      << "the ring's 126 steps";
}

TEST(TreeProtocols, NcclsTreeEstimateClosedForm) {
  // The estimate per protocol: bus bandwidth Simple min(0.92 B, ch x perChMaxTreeBw), LL min(B / 3.8,
  // llMaxBw), LL128 min(B x 120/128, ch x perChMaxTreeLL128Bw); algorithm bandwidth half of it times
  // treeCorrectionFactor[protocol][log2(S / 64)]. At 1 MiB, log2(16384) = 14: 0.5 (LL), 0.6 (LL128),
  // 0.5 (Simple).
  const Platform p = a100_cluster(4);
  const auto gpus = p.topology().gpus();
  const double s = 1024.0 * 1024;
  CollectiveOptions force;
  force.algorithm = Algorithm::Tree;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, force);
  const ProtocolChoice& e = plan.protocol_choice;
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  const double b =
      plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, ring).protocol_choice.bus_bw[2].value;
  const double ch = plan.nccl.graph;  // Ampere, more than 2 servers: perChMaxTreeBw 17.8, LL128 20.0 GB/s
  expect_closed_form("Simple bus = min(0.92 B, ch x 17.8 GB/s)", std::min(0.92 * b, ch * 17.8e9),
                     e.bus_bw[2].value, "B/s");
  expect_closed_form("LL bus = min(B / 3.8, 19.0 GB/s)", std::min(b / 3.8, 19.0e9), e.bus_bw[0].value, "B/s");
  expect_closed_form("LL128 bus = min(B x 120/128, ch x 20.0 GB/s)", std::min(b * 120 / 128, ch * 20.0e9),
                     e.bus_bw[1].value, "B/s");
  const double correction[3] = {0.5, 0.6, 0.5};
  for (Protocol proto : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    const auto i = static_cast<std::size_t>(proto);
    expect_closed_form(std::string(to_string(proto)) + ": latency + S / (0.5 bus x correction)",
                       e.latency[i].value + s / (0.5 * e.bus_bw[i].value * correction[i]), e.time[i].value,
                       "s");
  }
  // LL puts at least its flag bytes on the wire; LL128 one flag line in 16.
  EXPECT_GE(e.wire_factor[0], 2.0);
  EXPECT_GE(e.wire_factor[1], 128.0 / 120.0);
  EXPECT_DOUBLE_EQ(e.wire_factor[2], 1.0);
}

TEST(TreeProtocols, ProtocolFollowsSizeAndLlNeverBeatsSimpleOnLargeMessages) {
  const Platform p = a100_cluster(4);
  const auto gpus = p.topology().gpus();
  CollectiveOptions force;
  force.algorithm = Algorithm::Tree;
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1024}, force).protocol, Protocol::LL);
  // At 1 GB the per-channel caps decide: LL128's 20.0 GB/s per channel above Simple's 17.8 (Ampere, more
  // than 2 servers), and LL's bus / 3.8 far below either.
  EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{1e9}, force).protocol, Protocol::LL128);
  // Forced LL on 256 MiB moves at least twice Simple's bytes over the same links.
  const double s = 256.0 * 1024 * 1024;
  CollectiveOptions ll = force, simple = force;
  ll.protocol = Protocol::LL;
  simple.protocol = Protocol::Simple;
  const double t_ll = seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, ll));
  const double t_simple = seconds_of(p, plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, simple));
  EXPECT_GT(t_ll, 1.8 * t_simple) << "LL " << t_ll << " s, Simple " << t_simple << " s";
}

TEST(TreeProtocols, MoreServersNeverMakeASmallAllReduceFaster) {
  // log2(servers) network steps up and down: 8 B over 2, 4, 8, 16 servers never gets faster.
  double last = 0;
  for (int servers : {2, 4, 8, 16}) {
    const Platform p = a100_cluster(servers);
    const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{8});
    const double t = seconds_of(p, plan);
    EXPECT_GE(t, last) << servers << " servers (" << to_string(plan.algorithm) << ", "
                       << to_string(plan.protocol) << ")";
    last = t;
  }
}

TEST(TreeChannels, ATreeMovesAtNcclsPerChannelRate) {
  // A tree channel's block moves NCCL's perChMaxTreeBws per channel (Blackwell: 70.0 / 42.8 / 24.0 GB/s
  // on 1 / 2 / 4+ servers), so a large Simple tree all_reduce over 2 and 4 DGX B200s takes
  // lat + S / (0.5 x graph channels x perCh): half, as the tree carries S up and S down. Measured on
  // 8-NIC B200 clusters at 16 GiB (together-nccl-tests baselines): 335 GB/s busbw on 2 servers, 191 on
  // 4, against 718 and 372 on the links alone.
  const double s = 16.0 * 1024 * 1024 * 1024;
  CollectiveOptions force;
  force.algorithm = Algorithm::Tree;
  force.protocol = Protocol::Simple;
  force.model = PlanModel::Steady;
  calibration::CostModel unbound = calibration::default_cost_model();
  for (auto& row : unbound.nccl_tree_channel_bw_gbs) row.fill(1e6);
  const std::string layout = std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/hgx-b200.json";
  double last = 0;
  for (int servers : {2, 4}) {
    const Platform p(topology::read_layout(layout, servers), calibration::default_cost_model());
    const Platform links(topology::read_layout(layout, servers), unbound);
    const auto gpus = p.topology().gpus();
    const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, force);
    const double per_channel = p.cost_model().nccl_tree_channel_bw_gbs[3][servers == 2 ? 1 : 2] * 1e9;
    const double expected = plan.latency.value + s / (0.5 * plan.nccl.graph * per_channel);
    expect_closed_form("lat + S / (0.5 x graph channels x perChMaxTreeBw)", expected, seconds_of(p, plan),
                       "s");
    const double t_links =
        seconds_of(links, plan_collective(links, CollectiveOp::AllReduce, gpus, Bytes{s}, force));
    EXPECT_LT(t_links, 0.8 * expected) << servers << " servers: the block rate, not the links, binds";
    const double t = seconds_of(p, plan);
    EXPECT_GT(t, last) << "more servers (" << servers << ") never give a tree channel more";
    last = t;
  }
  // bench says why: the blocks, their figure and the bound.
  const Platform two(topology::read_layout(layout, 2), calibration::default_cost_model());
  BenchOptions bo;
  bo.sweep = {1ull << 34, 1ull << 34, 2, 0};
  bo.collective = force;
  const BenchResult br = run_bench(two, engine::run, bo);
  EXPECT_EQ(br.largest.block_channels, br.largest.nccl.graph);
  EXPECT_DOUBLE_EQ(br.largest.block_channel_gbs, 42.8);
  EXPECT_NE(report::bench_text(two, bo, br).find("x 42.80 GB/s (NCCL's perChMaxTreeBw"), std::string::npos);
  const auto j = report::bench_json(two, bo, br);
  EXPECT_EQ(j["blocks"]["figure"], "perChMaxTreeBw");
  EXPECT_DOUBLE_EQ(j["blocks"]["channel_gbs"].get<double>(), 42.8);
  // LL128's block has its own figure (perChMaxTreeLL128Bws, Blackwell on 2 servers: 31.67 GB/s) and
  // its wire carries only the flag line (128/120).
  CollectiveOptions ll128 = force;
  ll128.protocol = Protocol::LL128;
  const CollectivePlan p128 =
      plan_collective(two, CollectiveOp::AllReduce, two.topology().gpus(), Bytes{s}, ll128);
  EXPECT_DOUBLE_EQ(p128.protocol_choice.wire_factor[1], 128.0 / 120.0);
  const double ll128_expected =
      p128.latency.value +
      s / (0.5 * p128.nccl.graph * two.cost_model().nccl_tree_ll128_channel_bw_gbs[3][1] * 1e9);
  expect_closed_form("lat + S / (0.5 x graph channels x perChMaxTreeLL128Bw)", ll128_expected,
                     seconds_of(two, p128), "s");
  // LL's tree keeps the wire-bytes rule (prims_ll.h) and has no per-block figure.
  CollectiveOptions ll = force;
  ll.protocol = Protocol::LL;
  for (const Transfer& t :
       plan_collective(two, CollectiveOp::AllReduce, two.topology().gpus(), Bytes{s}, ll).transfers)
    EXPECT_EQ(t.rate_cap.value, 0.0);
}

TEST(RingAcrossServers, EveryStepPaysNcclsNetOverheadFrom218) {
  // tuning.cc getNetOverhead (2.18.1 on): a ring step inside a server costs at least 1 us (Intel hosts) or
  // 2 us (AMD), x3 for Simple, once the ring spans servers. 2 HGX H100 (Xeon), 16 ranks, LL forced on the
  // ring: 6.6 + (30 - 2) max(0.6, 1.0) + 2 x 2.7 = 40.0 us; NCCL 2.17.1: 6.6 + 28 x 0.6 + 5.4 = 28.8 us.
  const Platform p(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/hgx-h100.json", 2),
      calibration::default_cost_model());
  CollectiveOptions o;
  o.algorithm = Algorithm::Ring;
  o.protocol = Protocol::LL;
  const auto gpus = p.topology().gpus();
  expect_closed_form("6.6 + 28 x 1.0 + 2 x 2.7 us", 40.0e-6,
                     plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{8}, o).latency.value, "s");
  o.p2p.nccl_version = topology::parse_nccl_version("2.17.1");
  expect_closed_form("6.6 + 28 x 0.6 + 2 x 2.7 us", 28.8e-6,
                     plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{8}, o).latency.value, "s");
  // AMD host (EPYC Rome, 8 GPUs on PCIe): 2 us per step; Simple 6 us, above PCIe's 5.7.
  const Platform amd(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/gigabyte-g482-z52.json", 2),
      calibration::default_cost_model());
  const auto ranks = amd.topology().gpus();
  CollectiveOptions ll;
  ll.algorithm = Algorithm::Ring;
  ll.protocol = Protocol::LL;
  expect_closed_form("6.6 + 28 x 2.0 + 2 x 2.7 us", 68.0e-6,
                     plan_collective(amd, CollectiveOp::AllReduce, ranks, Bytes{8}, ll).latency.value, "s");
  ll.protocol = Protocol::Simple;
  expect_closed_form("8.4 + 28 x 6.0 + 2 x 14.0 us", 204.4e-6,
                     plan_collective(amd, CollectiveOp::AllReduce, ranks, Bytes{8}, ll).latency.value, "s");
  // One server: no overhead.
  const std::vector<topology::DeviceId> one(ranks.begin(), ranks.begin() + 8);
  ll.protocol = Protocol::LL;
  expect_closed_form("6.6 + 14 x 1.0 us", 20.6e-6,
                     plan_collective(amd, CollectiveOp::AllReduce, one, Bytes{8}, ll).latency.value, "s");
}

TEST(RingAcrossServers, NcclsEstimateCountsTheRingLatencyOnePointFourTimesOnceItPlateaus) {
  // ncclTopoGetAlgoTime: a Simple ring all_reduce across servers counts its latency 1.4 times (Ampere and
  // newer) once S / (channels x ranks) >= 64 B; the plan's latency term stays NCCL's.
  const Platform p = a100_cluster(2);
  CollectiveOptions o;
  o.algorithm = Algorithm::Ring;
  o.protocol = Protocol::Simple;
  const double s = 64.0 * 1024 * 1024;
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{s}, o);
  const ProtocolChoice& c = plan.protocol_choice;
  const double n = 16;
  expect_closed_form("1.4 lat + S 2(n-1)/n / bus",
                     1.4 * c.latency[2].value + s * 2 * (n - 1) / n / c.bus_bw[2].value, c.time[2].value,
                     "s");
  EXPECT_DOUBLE_EQ(plan.latency.value, c.latency[2].value);
}

}  // namespace
}  // namespace rigsim::model
