// NVLS (issue 9, rule 6): NVLink SHARP all_reduce on NVLink4+ NVSwitch systems with Hopper or newer
// GPUs, chosen as NCCL's tuning model chooses it, with the NVSwitch's reduction and multicast as the
// data path: each GPU sends and receives S(n+1)/n instead of the ring's 2(n-1)/n S, so busbw rises above
// the per-GPU NVLink rate.
#include <gtest/gtest.h>

#include "engine/executor.hpp"
#include "model/bench.hpp"
#include "model/collectives.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/layout_json.hpp"

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
  const double expected = p.cost_model().nccl_nvls_latency.value + s * (n + 1) / n / (eff * b);
  expect_closed_form("lat + S(n+1)/n / (nvlsEfficiency x B)", expected, seconds_of(p, plan), "s");
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
  // NCCL's "no algorithm/protocol available", and rigsim's tree runs Simple only.
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
    EXPECT_THROW(plan_collective(p, CollectiveOp::AllReduce, gpus, Bytes{s}, o), InputError);
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

}  // namespace
}  // namespace rigsim::model
