// Which NIC a collective's flows leave a server by, across servers: one NIC per channel, a ring out
// through the NIC it came in by (NCCL's crossNic 0), relayed over NVLink where PXN applies. Closed forms
// are stated in the failure messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "report/bench.hpp"
#include "tests/engine/bench_outcome.hpp"
#include "tests/model/collective_layouts.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"

namespace rigsim::model {
namespace {

using testing::closed;
using testing::kGiB;
using testing::Outcome;
using testing::run;

TEST(BenchNics, InterNodeFlowsLeaveThroughDistinctNics) {
  const std::string dgx =
      (std::filesystem::path(RIGSIM_SOURCE_DIR) / "scenarios" / "layouts" / "dgx-a100.json").string();
  if (!std::filesystem::exists(dgx)) GTEST_SKIP() << "no catalog layout " << dgx;
  const auto spec = topology::parse_layout(load_json_file(dgx), dgx);
  const Platform p(topology::build_cluster(spec, 2), calibration::default_cost_model());
  const auto& topo = p.topology();
  std::set<topology::DeviceId> nics;
  for (topology::DeviceId g : topo.gpus())
    if (topo.device(g).node == 0) {
      const auto nic = nearest_nic(topo, g);
      ASSERT_TRUE(nic.has_value());
      EXPECT_EQ(topo.pcie_path(g, *nic).nccl, topology::PathClass::PIX) << topo.device(g).name;
      nics.insert(*nic);
    }
  EXPECT_EQ(nics.size(), 8u) << "one NIC per GPU";
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  const Outcome o = run(p, CollectiveOp::AllReduce, kGiB, PlanModel::Auto, {}, ring);
  std::set<std::string> senders;
  for (const Connection& c : o.plan.connections) {
    if (c.transport != Transport::Net) continue;
    const Route r = p.route(c.src, c.dst, Transport::Net);
    for (const Crossing& h : r.crossings) {
      const std::string name = p.crossing_name(h);
      if (name.find("->network") != std::string::npos) senders.insert(name);
    }
  }
  EXPECT_EQ(senders.size(), 16u) << "8 NICs per server, each sending";
  // 8 rails of 25 GB/s x network_efficiency, each carrying 2(n-1)/n·S/8 of one ring channel.
  const double rail = 25e9 * p.cost_model().network_efficiency;
  EXPECT_GT(o.busbw, 0.9 * 8 * rail / 1e9) << "busbw -> 8 x NIC rate";
}

TEST(BenchNics, AMeshRingLeavesThroughTheNicItEnteredByRelayedOverNvlink) {
  // Two servers of four NVLink-meshed A100, one NIC per GPU under its own switch. NCCL's rings differ
  // per channel here, so the last GPU of a channel's ring is not always next to a NIC no other channel
  // leaves by; NCCL leaves through the NIC the ring entered by (crossNic 0), relayed over NVLink to that
  // NIC's GPU (PXN): every NIC sends one channel, and all_gather moves at the four NICs' rate,
  // (n-1)/n·S / (4 R), R one NIC's rate. Leaving through the last GPU's own NIC sent two channels
  // through one NIC and none through another: half of that.
  const Platform p(topology::build_cluster(testing::spec_from_text(testing::four_a100_mesh_nics()), 2),
                   calibration::default_cost_model());
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  const Outcome o = run(p, CollectiveOp::AllGather, kGiB, PlanModel::Steady, {}, ring);
  std::map<std::string, int> sends;
  for (const Connection& c : o.plan.connections) {
    if (c.transport != Transport::Net) continue;
    for (const Crossing& h : p.route(c.src, c.dst, Transport::Net).crossings)
      if (const std::string name = p.crossing_name(h); name.find("->network") != std::string::npos)
        ++sends[name];
  }
  EXPECT_EQ(sends.size(), 8u) << "4 NICs per server, each sending";
  for (const auto& [nic, n] : sends) EXPECT_EQ(n, 1) << nic;
  const double R = 25e9 * p.cost_model().network_efficiency;
  const double expected = 7.0 / 8 * kGiB / (4 * R);
  EXPECT_NEAR(o.seconds, expected, 0.03 * expected) << closed("(n-1)/n·S/(4R)", expected, o.seconds);
}

/// On two servers NCCL counts a tree channel at its graph's bwIntra (tuning.cc: bwIntra for nNodes <= 2,
/// else bwInter), which the tree search raises to twice the NIC's speed where the chains carry it. Two
/// servers of four NVLink-meshed H100 (SURF Snellius, a dev case's layout), one 200 Gb/s NIC per GPU:
/// rings 4 x 24 GB/s, algorithm bandwidth 96 x 8/14 = 54.9 GB/s; the tree 4 x 48, Simple
/// min(0.92 x 192, 4 x 41.4) = 165.6 times 0.85 (Hopper's TREE pattern) = 140.8 of bus bandwidth, 70.4
/// of algorithm bandwidth: the tree at 1 GiB. On three servers it counts bwInter (24) and the ring wins.
TEST(BenchNics, TwoServersCountTheTreeAtItsGraphsRaisedBwIntra) {
  const std::string path = (std::filesystem::path(RIGSIM_SOURCE_DIR) / "scenarios" / "dev-cases" / "layouts" /
                            "odissei-2x4xh100-snellius.json")
                               .string();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no layout " << path;
  const auto spec = topology::parse_layout(load_json_file(path), path);
  const Platform two(topology::build_cluster(spec, 2), calibration::default_cost_model());
  const CollectivePlan plan =
      plan_collective(two, CollectiveOp::AllReduce, two.topology().gpus(), Bytes{kGiB});
  ASSERT_EQ(plan.algorithm, Algorithm::Tree) << "expected the tree: 70.4 GB/s against the ring's 54.9";
  EXPECT_DOUBLE_EQ(plan.nccl.tree_gbs, 48.0) << plan.nccl.reason;
  const double bus = plan.protocol_choice.bus_bw[static_cast<std::size_t>(Protocol::Simple)].value;
  EXPECT_NEAR(bus / 1e9, 0.85 * std::min(0.92 * 4 * 48, 4 * 41.4), 0.01)
      << "expected 0.85 x min(0.92 x 4 x 48, 4 x 41.4) = 140.76 GB/s";
  CollectiveOptions old;  // before 2.18.3 tuning.cc has no 0.85 for the TREE pattern
  old.p2p.nccl_version = 21701;
  const CollectivePlan before =
      plan_collective(two, CollectiveOp::AllReduce, two.topology().gpus(), Bytes{kGiB}, old);
  EXPECT_NEAR(before.protocol_choice.bus_bw[static_cast<std::size_t>(Protocol::Simple)].value / 1e9,
              std::min(0.92 * 4 * 48, 4 * 41.4), 0.01)
      << "expected min(0.92 x 4 x 48, 4 x 41.4) = 165.6 GB/s under NCCL 2.17.1";
  // `bench` says why: the tree graph's bwIntra is in its channel line.
  BenchOptions bo;
  bo.sweep = {1ull << 30, 1ull << 30, 2, 0};
  const std::string text = report::bench_text(two, bo, run_bench(two, engine::run, bo));
  EXPECT_NE(text.find("the tree graph's chains at 48.0 GB/s inside a server"), std::string::npos) << text;
  const Platform three(topology::build_cluster(spec, 3), calibration::default_cost_model());
  EXPECT_EQ(plan_collective(three, CollectiveOp::AllReduce, three.topology().gpus(), Bytes{kGiB}).algorithm,
            Algorithm::Ring)
      << "three servers: the tree at bwInter (24 GB/s) loses to the ring";
}

}  // namespace
}  // namespace rigsim::model
