// NCCL's tuning tables by release (model/nccl_tuning.hpp): NCCL decides with its release's llMaxBws,
// perChMaxRingLL128Bws, perChMaxTreeBws and perChMaxTreeLL128Bws (src/graph/tuning.cc at each tag),
// and across servers reads llMaxBws by the host's CPU vendor; the simulation moves at the default
// release's figures whatever the release.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/collectives.hpp"
#include "model/nccl_tuning.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/p2p.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

using testing::expect_closed_form;

Platform catalog(const std::string& name, int servers = 1) {
  return Platform(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/" + name + ".json", servers),
      calibration::default_cost_model());
}

CollectivePlan plan_at(const Platform& p, CollectiveOp op, const std::vector<topology::DeviceId>& ranks,
                       double bytes, const std::string& release) {
  CollectiveOptions o;
  o.p2p.nccl_version = topology::parse_nccl_version(release);
  return plan_collective(p, op, ranks, Bytes{bytes}, o);
}

constexpr std::size_t kLl = 0, kLl128 = 1, kSimple = 2;

TEST(NcclReleases, BlackwellRingLl128CapIsTheReleasesAndDecidesTheProtocol) {
  // 8x B200, all_gather 16 MiB. LL128's bus bandwidth in NCCL's choice is min(0.92 B, ch x
  // perChMaxRingLL128Bw): 34.5 GB/s per channel at 2.29.2, 40.0 from 2.29.7, 73.4 at 2.27.7 (tuning.cc).
  // NCCL's estimate then picks Simple at 2.29.2 (LL128 27.3 us + S 7/8 / (ch x 34.5 x 8/7) against
  // Simple's 32.2 us + S 7/8 / B), LL128 at 2.30.7; the simulated LL128 rate is the same under both.
  const Platform p = catalog("hgx-b200");
  const auto gpus = p.topology().gpus();
  const double s = 16.0 * 1024 * 1024;
  const CollectivePlan old = plan_at(p, CollectiveOp::AllGather, gpus, s, "2.29.2");
  const CollectivePlan now = plan_at(p, CollectiveOp::AllGather, gpus, s, "2.30.7");
  const CollectivePlan before = plan_at(p, CollectiveOp::AllGather, gpus, s, "2.27.7");
  const double bus = now.protocol_choice.bus_bw[kSimple].value, ch = now.nccl.graph;
  expect_closed_form("2.29.2: min(0.92 B, ch x 34.5 GB/s)", std::min(0.92 * bus, ch * 34.5e9),
                     old.protocol_choice.bus_bw[kLl128].value, "B/s");
  expect_closed_form("2.30.7: min(0.92 B, ch x 40.0 GB/s)", std::min(0.92 * bus, ch * 40.0e9),
                     now.protocol_choice.bus_bw[kLl128].value, "B/s");
  expect_closed_form("2.27.7: min(0.92 B, ch x 73.4 GB/s)", std::min(0.92 * bus, ch * 73.4e9),
                     before.protocol_choice.bus_bw[kLl128].value, "B/s");
  EXPECT_EQ(old.protocol, Protocol::Simple);
  EXPECT_EQ(now.protocol, Protocol::LL128);
  EXPECT_DOUBLE_EQ(old.protocol_choice.wire_factor[kLl128], now.protocol_choice.wire_factor[kLl128])
      << "the release decides; the simulated rate is the default release's";
}

TEST(NcclReleases, HopperLlCapWasAmperesBefore2215) {
  // 4x H100, all_gather 1 MiB: LL's bus bandwidth in NCCL's choice is min(llMaxBw, B / 3) up to 2.20.5
  // and min(llMaxBw, B / 2) from 2.21.5; llMaxBw for Hopper on one server is 87.7 GB/s up to 2.20.5 and
  // 141.0 from 2.21.5 (tuning.cc).
  const Platform p = catalog("hgx-h100");
  const auto all = p.topology().gpus();
  const std::vector<topology::DeviceId> four(all.begin(), all.begin() + 4);
  const double s = 1024.0 * 1024;
  const CollectivePlan old = plan_at(p, CollectiveOp::AllGather, four, s, "2.18.3");
  const CollectivePlan now = plan_at(p, CollectiveOp::AllGather, four, s, "2.21.5");
  const double bus = now.protocol_choice.bus_bw[kSimple].value;
  ASSERT_GT(bus / 3, 87.7e9) << "2.18.3's cap binds";
  expect_closed_form("2.18.3: min(87.7 GB/s, B / 3)", std::min(87.7e9, bus / 3),
                     old.protocol_choice.bus_bw[kLl].value, "B/s");
  expect_closed_form("2.21.5: min(141.0 GB/s, B / 2)", std::min(141.0e9, bus / 2),
                     now.protocol_choice.bus_bw[kLl].value, "B/s");
  EXPECT_GT(old.protocol_choice.time[kLl].value, now.protocol_choice.time[kLl].value)
      << "the lower cap makes NCCL's LL estimate slower";
}

TEST(NcclReleases, BlackwellReadsHoppersRowBefore2251) {
  // tuning.cc compCapIndex has a Blackwell row from 2.25.1; before, sm100 reads Hopper's: llMaxBw on one
  // server 141.0 GB/s at 2.24.3, 282.0 at 2.25.1 (LL's bus bandwidth in the choice min(llMaxBw, B / 2)).
  const Platform p = catalog("hgx-b200");
  const auto gpus = p.topology().gpus();
  const double s = 4.0 * 1024 * 1024;
  const CollectivePlan old = plan_at(p, CollectiveOp::AllGather, gpus, s, "2.24.3");
  const CollectivePlan now = plan_at(p, CollectiveOp::AllGather, gpus, s, "2.25.1");
  const double bus = now.protocol_choice.bus_bw[kSimple].value;
  expect_closed_form("2.24.3: min(141.0 GB/s, B / 2)", std::min(141.0e9, bus / 2),
                     old.protocol_choice.bus_bw[kLl].value, "B/s");
  expect_closed_form("2.25.1: min(282.0 GB/s, B / 2)", std::min(282.0e9, bus / 2),
                     now.protocol_choice.bus_bw[kLl].value, "B/s");
}

TEST(NcclReleases, LlCapAcrossServersIsTheHostCpusRow) {
  // Across servers NCCL indexes llMaxBws by CPU vendor, not by GPU (tuning.cc: "for multi-node, we look
  // at CPU type"): row 0 (Intel) {39.0, 39.0, 20.4}, row 1 (AMD) {87.7, 22.5, 19.0}, columns 1 / 2 / 4+
  // servers. all_reduce 64 KiB on the ring, LL's bus bandwidth in the choice min(llMaxBw, B / 2):
  // 2 HGX H100 (Xeon) 39.0, 4 of them 20.4; 2 G482 (EPYC Rome, PCIe GPUs) 22.5.
  CollectiveOptions ring;
  ring.algorithm = Algorithm::Ring;
  const double s = 64.0 * 1024;
  const auto check = [&](const std::string& layout, int servers, double cap_gbs, const char* what) {
    const Platform p = catalog(layout, servers);
    const CollectivePlan plan =
        plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{s}, ring);
    const double bus = plan.protocol_choice.bus_bw[kSimple].value;
    expect_closed_form(what, std::min(cap_gbs * 1e9, bus / 2), plan.protocol_choice.bus_bw[kLl].value, "B/s");
  };
  check("hgx-h100", 2, 39.0, "2 Intel servers: min(39.0 GB/s, B / 2)");
  check("hgx-h100", 4, 20.4, "4 Intel servers: min(20.4 GB/s, B / 2)");
  check("gigabyte-g482-z52", 2, 22.5, "2 AMD servers: min(22.5 GB/s, B / 2)");
  EXPECT_FALSE(nccl_amd_host(catalog("hgx-h100").topology()));
  EXPECT_TRUE(nccl_amd_host(catalog("gigabyte-g482-z52").topology()));
}

TEST(NcclReleases, AProfilesFigureHoldsForEveryRelease) {
  // A calibration profile that sets a table pins it: the release's rows do not replace it.
  calibration::CostModel c = calibration::default_cost_model();
  c.nccl_ll128_channel_bw_gbs[3] = 50.0;
  const NcclTables t = nccl_tables_at(c, topology::parse_nccl_version("2.29.2"));
  for (double v : t.ring_ll128_channel_bw[3]) EXPECT_DOUBLE_EQ(v, 50.0);
  const NcclTables d =
      nccl_tables_at(calibration::default_cost_model(), topology::parse_nccl_version("2.29.2"));
  EXPECT_DOUBLE_EQ(d.ring_ll128_channel_bw[3][0], 34.5);
  EXPECT_DOUBLE_EQ(d.ring_ll128_channel_bw[3][1], 34.6);
}

}  // namespace
}  // namespace rigsim::model
