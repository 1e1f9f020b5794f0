// Broadcast and reduce chains run in SimGrid against closed forms: Simple's pipelined chunks, LL and
// LL128 forwarding line by line, and time that never falls as NCCL's model switches protocol.
#include <gtest/gtest.h>

#include <string>

#include "calibration/cost_model.hpp"
#include "tests/engine/bench_outcome.hpp"
#include "tests/model/collective_layouts.hpp"
#include "topology/layout_json.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

using testing::closed;
using testing::hop_route;
using testing::kGiB;
using testing::Outcome;
using testing::run;
using topology::testing::layout_from_text;

TEST(BenchClosedForm, BroadcastChainPipelinesItsChunks) {
  const calibration::CostModel cost = testing::round_cost_model();
  const Platform p(layout_from_text(testing::kFourBehindOneUplink), cost);
  const double S = kGiB;
  const Outcome o = run(p, CollectiveOp::Broadcast, S, PlanModel::Step);
  const Route r = hop_route(p, o);
  const double n = 4, M = S / o.plan.chunk.value;
  // Chunk j leaves hop h once chunk j arrived over hop h-1 and chunk j-1 left over hop h. Chunk 0 pays
  // NCCL's step latency on each hop and its route's link latencies (not the P2P transport's setup: the
  // chain runs on connections NCCL set up at init); the chunks behind it stream, their link latency
  // hidden behind the chunk in flight before them (NCCL_STEPS slots), so the link never idles.
  const double links = r.latency.value - cost.p2p_latency.value;
  const double expected = cost.nccl_base_latency.value + (n - 1) * cost.nccl_step_latency_pcie.value +
                          (n - 1) * links + (M + n - 2) * o.plan.chunk.value / r.bottleneck.value;
  EXPECT_NEAR(o.seconds, expected, 0.002 * expected)
      << closed("base + (n-1)·(step + link latencies) + (M+n-2)·S/M/B", expected, o.seconds);
  // The form rigsim had, every chunk waiting its links' latency on the idle link, is longer by
  // (M - 1) x link latencies, more than the tolerance: the test tells the two apart.
  EXPECT_GT((M - 1) * links, 0.002 * expected);
  EXPECT_GT(o.busbw, 0.95 * r.bottleneck.value / 1e9) << "busbw of a pipelined chain -> B";
}

TEST(BenchClosedForm, BroadcastChainOnLlProtocolsForwardsLineByLine) {
  // LL and LL128 read each line (polling its flag) and store it to the next peer in the same loop
  // (prims_ll.h, prims_ll128.h), so a chain's hops run at once: the last hop ends NCCL's base plus the
  // n-1 per-step latencies, its route's link latencies and one hop's wire bytes after the start, not
  // n-1 hops' worth (store and forward, as rigsim had it: 4-5x slower than Simple at 2-8 MiB).
  const calibration::CostModel cost = testing::round_cost_model();
  const Platform p(layout_from_text(testing::kEightOnNvswitch), cost);
  const double S = 8.0 * 1024 * 1024;
  for (Protocol proto : {Protocol::LL, Protocol::LL128}) {
    CollectiveOptions force;
    force.protocol = proto;
    const Outcome o = run(p, CollectiveOp::Broadcast, S, PlanModel::Step, {}, force);
    ASSERT_EQ(o.plan.protocol, proto);
    const Route r = hop_route(p, o);
    const double n = static_cast<double>(o.plan.ranks.size());
    const double links = r.latency.value - r.setup.value;
    const bool ll = proto == Protocol::LL;
    const double base = (ll ? cost.nccl_ll_base_latency : cost.nccl_ll128_base_latency).value;
    const double step = (ll ? cost.nccl_ll_step_latency_nvlink : cost.nccl_ll128_step_latency_nvlink).value;
    const double wire = o.plan.chunk.value * o.plan.protocol_choice.wire_factor[ll ? 0 : 1];
    const double expected = base + (n - 1) * step + links + wire / r.bottleneck.value;
    EXPECT_NEAR(o.seconds, expected, 0.002 * expected)
        << closed("base + (n-1)·step + link latencies + wire(S/R)/B", expected, o.seconds) << " ("
        << to_string(proto) << ")";
  }
}

TEST(BenchMonotonic, BroadcastTimeNeverFallsAcrossProtocolSwitches) {
  // NCCL's model moves broadcast from LL to LL128 to Simple as the size grows; the simulated time must
  // still grow with the size on every NVSwitch and PCIe layout.
  for (const char* name : {"dgx-a100", "hgx-h100", "dgx1-v100", "wrx90-2sw-8x-rtx-pro-6000"}) {
    const Platform p(
        topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/" + name + ".json"),
        calibration::default_cost_model());
    double last = 0;
    for (double s = 64.0 * 1024; s <= 256.0 * 1024 * 1024; s *= 2) {
      const Outcome o = run(p, CollectiveOp::Broadcast, s, PlanModel::Auto);
      EXPECT_GE(o.seconds, last * 0.9999)
          << name << " at " << s << " B (" << to_string(o.plan.protocol) << ")";
      last = o.seconds;
    }
  }
}

}  // namespace
}  // namespace rigsim::model
