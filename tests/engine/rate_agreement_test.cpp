// One routing authority (issue 6): the rate, setup and latency that planning reads from
// Platform::connect for a hop — the figures NCCL's protocol choice and the ring search use — are the
// ones the simulation then gives a lone flow on that hop. Checked for every GPU pair of every catalog
// layout, with P2P allowed and with it disabled (so both P2P and SHM hops are covered).
#include <gtest/gtest.h>

#include "calibration/cost_model.hpp"
#include "engine/executor.hpp"
#include "model/collectives.hpp"
#include "tests/golden/catalog_layouts.hpp"
#include "tests/model/sim_fixture.hpp"

namespace rigsim::model {
namespace {

using testing::catalog_layout;

constexpr double kBytes = 1e9;

/// Every ordered GPU pair's connection, simulated one at a time on one stream (so no two share a link).
void expect_rates_agree(const Platform& p, const topology::P2pPolicy& policy, const std::string& label) {
  const auto gpus = p.topology().gpus();
  std::vector<Connection> hops;
  std::vector<Transfer> tasks;
  for (auto a : gpus)
    for (auto b : gpus) {
      if (a == b) continue;
      hops.push_back(p.connect(a, b, policy, gpus.size()));
      Transfer t;
      t.src = a;
      t.dst = b;
      t.bytes = Bytes{kBytes};
      t.transport = hops.back().transport;
      t.connected = true;  // a collective step: no setup, only the links' latencies
      t.stream = 0;
      tasks.push_back(t);
    }
  const RunResult r = engine::run(p, tasks, policy);
  for (std::size_t i = 0; i < hops.size(); ++i) {
    const Connection& c = hops[i];
    const double links_latency = c.latency.value - c.setup.value;
    const double flow = r.transfers[i].finish.value - r.transfers[i].start.value - links_latency;
    const double simulated = kBytes / flow;
    EXPECT_NEAR(simulated, c.rate.value, c.rate.value * 1e-6)
        << label << ": " << p.topology().device(c.src).name << " -> " << p.topology().device(c.dst).name
        << " (" << to_string(c.transport) << "): the plans assume " << c.rate.gb_per_s()
        << " GB/s, the simulation gives " << simulated / 1e9 << " GB/s";
  }
}

class RateAgreement : public ::testing::TestWithParam<std::string> {};

TEST_P(RateAgreement, ConnectionRateIsTheSimulatedLoneFlowRate) {
  const auto topo = catalog_layout(GetParam());
  ASSERT_TRUE(topo);
  const Platform p(*topo, calibration::default_cost_model());
  expect_rates_agree(p, {}, GetParam());
  topology::P2pPolicy off;
  off.disable = true;
  expect_rates_agree(p, off, GetParam() + " (P2P disabled)");
}

TEST_P(RateAgreement, ProtocolChoiceUsesTheConnectionRates) {
  const auto topo = catalog_layout(GetParam());
  ASSERT_TRUE(topo);
  const Platform p(*topo, calibration::default_cost_model());
  const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{1e9});
  if (plan.ranks.size() < 2) GTEST_SKIP() << "one GPU";
  // NVLS (NVSwitch reduction, the DGX H100) is chosen before the ring/tree protocols and has its own
  // bus bandwidth (tests/fidelity/nvls_test.cpp); this test is about the ring's choice.
  if (plan.algorithm == Algorithm::Nvls) GTEST_SKIP() << "NVLS";
  double slowest = 1e300;
  for (const Connection& c : plan.connections) slowest = std::min(slowest, c.rate.value);
  const double simple = plan.protocol_choice.bus_bw[static_cast<int>(Protocol::Simple)].value;
  EXPECT_NEAR(simple, plan.channels * slowest, simple * 1e-9)
      << "expected Simple busBw = channels x slowest connection rate = " << plan.channels << " x "
      << slowest / 1e9 << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(Layouts, RateAgreement, ::testing::ValuesIn(rigsim::testing::catalog_layout_names()),
                         rigsim::testing::LayoutTestName());

}  // namespace
}  // namespace rigsim::model
