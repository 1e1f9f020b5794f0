// The executor on analytic cases: each test states its closed form (bytes / bandwidth + latency) and
// checks the simulated time within 1 %. Bandwidths are wire rate x CostModel efficiency.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "engine/executor.hpp"
#include "tests/model/sim_fixture.hpp"
#include "tests/topology/layout_fixture.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

/// Link bytes per payload byte of NCCL's SM-issued PCIe traffic: 128-byte TLPs against the 256-byte ones
/// the PCIe rates were measured with, 5 dwords of overhead each (Platform::route).
const double kSmTlp = (256.0 / 276) / (128.0 / 148);

using namespace testing;
using topology::testing::epyc_quadrants;

TEST(Transfers, OneCopyOverGen3x16) {
  const Platform p = platform_of(kOneGen3);
  const auto& c = p.cost_model();
  const RunResult r = engine::run(p, {copy(p, "cpu0", "g0", kGiB)});
  const double bw = 16 * 0.985e9 * c.pcie_efficiency;  // Gen3: 0.985 GB/s per lane (hardware.md §2.1)
  const double lat = c.host_copy_latency.value + c.pcie_hop_latency.value;
  expect_closed_form("S/(15.76 GB/s x pcie_eff) + host_copy + 1 hop", kGiB / bw + lat,
                     duration(r.transfers[0]).value, "s");
  EXPECT_DOUBLE_EQ(r.makespan.value, r.transfers[0].finish.value);
}

TEST(Transfers, OneCopyOverGen4x16) {
  const Platform p = platform_of(kOneGen4);
  const auto& c = p.cost_model();
  const RunResult r = engine::run(p, {copy(p, "g0", "cpu0", kGiB)});
  const double bw = 16 * 1.969e9 * c.pcie_efficiency;  // Gen4: 1.969 GB/s per lane
  const double lat = c.host_copy_latency.value + c.pcie_hop_latency.value;
  expect_closed_form("S/(31.5 GB/s x pcie_eff) + host_copy + 1 hop", kGiB / bw + lat,
                     duration(r.transfers[0]).value, "s");
}

TEST(Transfers, MoreTransfersInFlightThanActorsIsAClearErrorNotAnAbort) {
  // Each transfer in flight runs on a SimGrid actor with its own stack; past the process's limit (half
  // the available memory) rigsim stops with a message (RIGSIM_MAX_ACTORS stands in for that limit).
  const Platform p = platform_of(kFourBehindOneUplink);
  std::vector<Transfer> h2d;
  for (int i = 0; i < 8; ++i)
    for (const char* g : {"g0", "g1", "g2", "g3"}) h2d.push_back(copy(p, "cpu0", g, kGiB / 64));
  ::setenv("RIGSIM_MAX_ACTORS", "5", 1);
  std::string message;
  try {
    engine::run(p, h2d);
  } catch (const std::exception& e) {
    message = e.what();
  }
  ::unsetenv("RIGSIM_MAX_ACTORS");
  EXPECT_NE(message.find("needs more than 5 transfers in flight at once"), std::string::npos) << message;
  EXPECT_NE(message.find("Simulate fewer GPUs or nodes"), std::string::npos) << message;
  EXPECT_NO_THROW(engine::run(p, h2d));  // the default limit holds them all
}

TEST(Transfers, FourGpusShareOneSwitchUplink) {
  const Platform p = platform_of(kFourBehindOneUplink);
  std::vector<Transfer> h2d;
  for (const char* g : {"g0", "g1", "g2", "g3"}) h2d.push_back(copy(p, "cpu0", g, kGiB));
  const RunResult r = engine::run(p, h2d);
  const double uplink = 16 * 0.985e9 * p.cost_model().pcie_efficiency;
  for (const auto& t : r.transfers)
    expect_closed_form("S/(B_uplink/4)", kGiB / (uplink / 4), duration(t).value, "s");
  const double aggregate = 4 * kGiB / r.makespan.value;
  expect_closed_form("aggregate = uplink bandwidth", uplink / 1e9, aggregate / 1e9, "GB/s");
  ASSERT_FALSE(r.busiest.empty());
  EXPECT_EQ(r.busiest.front().link, "rc0->plx0");
  EXPECT_NEAR(r.busiest.front().utilization, 1.0, 0.01);
}

TEST(Transfers, StagedCopyIsBoundedByTheSlowerLeg) {
  const calibration::CostModel cost = calibration::default_cost_model();
  const Platform p = platform_of(kStagedUnequalLegs, cost);
  const RunResult r = engine::run(p, {copy(p, "g0", "g1", kGiB)});  // GeForce: Auto gives SHM
  const Route route = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::Shm);
  const double x8 = 8 * 0.985e9 * cost.pcie_efficiency;
  // NCCL's SHM pipelines the D2H and H2D legs chunk by chunk: one flow at the slower leg's rate.
  expect_closed_form("SHM (pipelined, 128-byte TLPs): 1.072 S/B_x8 + route latency", kSmTlp * kGiB / x8 + route.latency.value,
                     duration(r.transfers[0]).value, "s");
}

TEST(Transfers, StagedCopiesShareTheSocketsMemory) {
  const calibration::CostModel cost = calibration::default_cost_model();
  const Platform p = platform_of(kSlowMemory, cost);  // 10 GB/s of memory, legs at Gen3 x8 (6.5 GB/s)
  const double mem = 10e9 * cost.memory_efficiency;
  // Alone: memory is written and read, so the copy gets half of it (below the x8 legs). An SHM flow's
  // bytes are charged 1.072 on every link it crosses, host memory included (DECISIONS: the TLP factor
  // is a per-flow one; memory does not see TLPs, an approximation when memory is the bottleneck).
  const RunResult one = engine::run(p, {copy(p, "g0", "g1", kGiB)});
  expect_closed_form("1.072 S/(B_mem/2)", kSmTlp * kGiB / (mem / 2), duration(one.transfers[0]).value, "s");
  // Two at once over disjoint PCIe links: a quarter each.
  const RunResult two = engine::run(p, {copy(p, "g0", "g1", kGiB), copy(p, "g2", "g3", kGiB)});
  for (const auto& t : two.transfers)
    expect_closed_form("1.072 S/(B_mem/4)", kSmTlp * kGiB / (mem / 4), duration(t).value, "s");
  EXPECT_EQ(two.busiest.front().link, "cpu0/dram");
  EXPECT_NEAR(two.busiest.front().utilization, 1.0, 0.01);
}


TEST(Transfers, Nps4GivesEachNumaNodeAQuarterOfTheSocketsMemory) {
  const calibration::CostModel cost = calibration::default_cost_model();
  const double pcie = 16 * 1.969e9 * cost.pcie_efficiency;   // Gen4 x16, about 25.8 GB/s
  const double node = 204.8e9 / 4 * cost.memory_efficiency;  // 2 of Rome's 8 DDR4-3200 channels
  // NPS4: g0 and g1 copy from their own node's memory at once and share its 2 channels.
  const Platform nps4 = platform_of(epyc_quadrants(4), cost);
  const RunResult shared =
      engine::run(nps4, {copy(nps4, "cpu0", "g0", kGiB), copy(nps4, "cpu0", "g1", kGiB)});
  ASSERT_LT(node / 2, pcie);
  for (const auto& t : shared.transfers)
    expect_closed_form("S/(B_socket/4 x mem_eff / 2)", kGiB / (node / 2), duration(t).value, "s", 0.01);
  EXPECT_EQ(shared.busiest.front().link, "cpu0/node1/dram");
  // Copies to GPUs in different quadrants use different nodes: each runs at its PCIe rate.
  const RunResult apart = engine::run(nps4, {copy(nps4, "cpu0", "g0", kGiB), copy(nps4, "cpu0", "g2", kGiB)});
  for (const auto& t : apart.transfers)
    expect_closed_form("S/B_pcie", kGiB / pcie, duration(t).value, "s", 0.01);
  // NPS1 interleaves all 8 channels: the first pair runs at its PCIe rate too.
  const Platform nps1 = platform_of(epyc_quadrants(1), cost);
  const RunResult one = engine::run(nps1, {copy(nps1, "cpu0", "g0", kGiB), copy(nps1, "cpu0", "g1", kGiB)});
  for (const auto& t : one.transfers)
    expect_closed_form("S/B_pcie", kGiB / pcie, duration(t).value, "s", 0.01);
}

TEST(Transfers, MoreNumaNodesNeverSpeedUpCopiesThatShareAQuadrant) {
  double previous = 0;
  for (const int nps : {1, 2, 4}) {
    const Platform p = platform_of(epyc_quadrants(nps));
    const RunResult r = engine::run(p, {copy(p, "cpu0", "g0", kGiB), copy(p, "cpu0", "g1", kGiB)});
    EXPECT_GE(r.makespan.value, previous) << "NPS" << nps;
    previous = r.makespan.value;
  }
}

TEST(Transfers, AnXgmiBridgeCarriesACopyAtItsLinkRate) {
  // Two MI210 joined by a two-card Infinity Fabric Link bridge: 3 links x 50 GB/s per direction, at
  // the payload share of AMD's xGMI socket links (the same Infinity Fabric SerDes).
  const calibration::CostModel cost = calibration::default_cost_model();
  const Platform p = platform_of(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
    "gpus": [{"id": "g0", "model": "mi210", "parent": "rc0"}, {"id": "g1", "model": "mi210", "parent": "rc1"}],
    "xgmi": [{"gpus": ["g0", "g1"]}]})",
                                 cost);
  const RunResult r = engine::run(p, {copy(p, "g0", "g1", kGiB)});
  const double bw = 3 * 50e9 * cost.xgmi_efficiency;
  expect_closed_form("S/(3 x 50 GB/s x xgmi_eff)", kGiB / bw, duration(r.transfers[0]).value, "s", 0.01);
}

TEST(Transfers, OneDirectionOfHostDmaIsUnaffectedByTheDuplexLimit) {
  for (double d : {0.42, 0.57, 1.0}) {  // any duplex efficiency with 2d > pcie_efficiency
    calibration::CostModel cost = calibration::default_cost_model();
    cost.pcie_duplex_efficiency = d;
    const Platform p = platform_of(kOneGen3, cost);
    const RunResult r = engine::run(p, {copy(p, "cpu0", "g0", kGiB)});
    const double bw = 16 * 0.985e9 * cost.pcie_efficiency;
    const double lat = cost.host_copy_latency.value + cost.pcie_hop_latency.value;
    expect_closed_form("H2D alone: S/(wire x pcie_eff) + latency", kGiB / bw + lat,
                       duration(r.transfers[0]).value, "s");
  }
}

TEST(Transfers, OppositeHostCopiesOnOneLinkShareItsDuplexLimit) {
  const calibration::CostModel cost = calibration::default_cost_model();
  const Platform p = platform_of(kOneGen3, cost);
  const double wire = 16 * 0.985e9;
  ASSERT_LT(cost.pcie_duplex_efficiency, cost.pcie_efficiency);
  // H2D and D2H at once: together at most pcie_duplex_efficiency x 2 x wire, so each gets
  // pcie_duplex_efficiency x wire (nvbandwidth's bidirectional host copies).
  const RunResult r = engine::run(p, {copy(p, "cpu0", "g0", kGiB), copy(p, "g0", "cpu0", kGiB)});
  const double lat = cost.host_copy_latency.value + cost.pcie_hop_latency.value;
  for (const auto& t : r.transfers)
    expect_closed_form("S/(pcie_duplex_eff x wire) + latency",
                       kGiB / (cost.pcie_duplex_efficiency * wire) + lat, duration(t).value, "s");
  EXPECT_EQ(r.busiest.front().link, "rc0<->g0/both");
  EXPECT_NEAR(r.busiest.front().utilization, 1.0, 0.01);
}

TEST(Transfers, DuplexLimitIsMonotone) {
  // A higher duplex efficiency never slows opposite host copies; each direction gets
  // min(pcie_duplex_efficiency, pcie_efficiency) x wire.
  double previous = 0;
  for (double d : {0.3, 0.45, 0.57, 0.7, 0.82, 1.0}) {
    calibration::CostModel cost = calibration::default_cost_model();
    cost.pcie_duplex_efficiency = d;
    const Platform p = platform_of(kOneGen3, cost);
    const RunResult r = engine::run(p, {copy(p, "cpu0", "g0", kGiB), copy(p, "g0", "cpu0", kGiB)});
    const double lat = cost.host_copy_latency.value + cost.pcie_hop_latency.value;
    const double rate = kGiB / (duration(r.transfers[0]).value - lat);
    expect_closed_form("min(pcie_duplex_eff, pcie_eff) x wire",
                       std::min(d, cost.pcie_efficiency) * 16 * 0.985, rate / 1e9, "GB/s");
    EXPECT_GE(rate, previous * 0.999) << d;
    previous = rate;
  }
}

TEST(Transfers, StagedFlowsThroughASwitchUplinkUseBothDirections) {
  // A staged (SHM) copy between two GPUs under one switch goes up the switch's uplink (D2H writes)
  // and down it (H2D reads) at once, so the uplink's duplex limit applies even to one flow.
  const calibration::CostModel cost = calibration::default_cost_model();
  const Platform p = platform_of(kFourBehindOneUplink, cost);
  const double wire = 16 * 0.985e9;
  const double d = cost.pcie_duplex_efficiency * wire;
  ASSERT_LT(d, wire * cost.pcie_efficiency);
  const Route route = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::Shm);
  const RunResult one = engine::run(p, {copy(p, "g0", "g1", kGiB, Transport::Shm)});
  expect_closed_form("1.072 S/(pcie_duplex_eff x wire) + route latency", kSmTlp * kGiB / d + route.latency.value,
                     duration(one.transfers[0]).value, "s");
  // What limits it, as validate and p2p name it: the uplink's both-directions link, not the uplink
  // (whose directions each carry the flow once).
  const auto limit = p.route_limit(route);
  ASSERT_TRUE(limit.has_value());
  EXPECT_NE(limit->name.find("/both"), std::string::npos) << limit->name;
  EXPECT_NEAR(limit->rate.value, route.bottleneck.value * route.wire_per_byte, 1e-6 * limit->rate.value);
  // Two opposite staged flows (a 2-GPU SHM all_reduce step): the uplink's limit is crossed 4 times.
  const RunResult two =
      engine::run(p, {copy(p, "g0", "g1", kGiB, Transport::Shm), copy(p, "g1", "g0", kGiB, Transport::Shm)});
  for (const auto& t : two.transfers)
    expect_closed_form("1.072 S/(2 x pcie_duplex_eff x wire / 4) + route latency",
                       kSmTlp * kGiB / (d / 2) + route.latency.value, duration(t).value, "s");
  // P2P between the same GPUs (posted writes) is not limited: both directions at the link rate.
  const RunResult p2p =
      engine::run(p, {copy(p, "g0", "g1", kGiB, Transport::P2p), copy(p, "g1", "g0", kGiB, Transport::P2p)});
  const Route pr = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::P2p);
  for (const auto& t : p2p.transfers)
    expect_closed_form("1.072 S/(wire x pcie_eff) + latency",
                       kSmTlp * kGiB / (wire * cost.pcie_efficiency) + pr.latency.value, duration(t).value, "s");
}

TEST(Transfers, CrossSocketIsBoundedByTheInterSocketLink) {
  calibration::CostModel slow = calibration::default_cost_model();
  slow.qpi_efficiency = 0.2;  // 2 links x 19.2 GB/s x 0.2 = 7.68 GB/s, below the Gen3 x16 links
  const Platform p = platform_of(kTwoSockets, slow);
  const auto& c = p.cost_model();
  const double qpi = 2 * 19.2e9 * c.qpi_efficiency;  // Xeon E5 v4: two QPI links at 9.6 GT/s
  // Host memory of socket 0 into the GPU of socket 1.
  const RunResult h2d = engine::run(p, {copy(p, "cpu0", "g1", kGiB)});
  const double lat = c.host_copy_latency.value + c.inter_socket_latency.value + c.pcie_hop_latency.value;
  expect_closed_form("S/B_qpi + latency", kGiB / qpi + lat, duration(h2d.transfers[0]).value, "s");
  // A forced GPU-to-GPU copy between the sockets (Intel: no P2P across QPI, but the route is the same).
  // It turns in Intel root complexes, which forward peer traffic as 64-byte TLPs: every payload byte
  // costs (256/276)/(64/84) = 1.217 link bytes (Platform::route).
  const RunResult p2p = engine::run(p, {copy(p, "g0", "g1", kGiB, Transport::P2p)});
  const double tlp = (256.0 / 276) / (64.0 / 84);
  EXPECT_GE(duration(p2p.transfers[0]).value, kGiB / qpi);
  expect_closed_form("1.217 S/B_qpi + latency", tlp * kGiB / qpi, duration(p2p.transfers[0]).value, "s");
}

TEST(Transfers, IntelRootComplexSplitsPeerTrafficInto64ByteTlps) {
  // Two P100 on Gen3 x16 root ports of one Xeon E5 v4: NCCL's P2P at (64/84)/(256/276) of the PCIe
  // rate; the same pair on an EPYC at the SMs' 128-byte TLPs, (128/148)/(256/276). NCCL plans the Intel
  // case with 5/6 (topo.h).
  const auto pair = [](const std::string& cpu) {
    return R"({"name": "rc-pair", "cpus": [{"id": "cpu0", "model": ")" + cpu + R"("}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
      "slots": [{"id": "s0", "parent": "rc0", "gen": 3, "width": 16}, {"id": "s1", "parent": "rc1", "gen": 3, "width": 16}],
      "gpus": [{"id": "g0", "model": "tesla-p100-pcie-16gb", "slot": "s0"}, {"id": "g1", "model": "tesla-p100-pcie-16gb", "slot": "s1"}]})";
  };
  const Platform intel = platform_of(pair("xeon-e5-v4"));
  const Platform amd = platform_of(pair("epyc-7002"));
  const double link = 16 * 0.985e9 * intel.cost_model().pcie_efficiency;
  const double tlp = (256.0 / 276) / (64.0 / 84);
  const auto seconds = [](const Platform& p) {
    return duration(engine::run(p, {copy(p, "g0", "g1", kGiB, Transport::P2p)}).transfers[0]).value;
  };
  expect_closed_form("1.217 S / B_gen3x16 (Intel)", tlp * kGiB / link, seconds(intel), "s");
  expect_closed_form("1.072 S / B_gen3x16 (AMD: the SMs' 128-byte TLPs)", kSmTlp * kGiB / link, seconds(amd), "s");
}

TEST(Transfers, DependenciesAndLatencyDelayTheStart) {
  const Platform p = platform_of(kFourBehindOneUplink);
  std::vector<Transfer> ts = {copy(p, "g0", "g1", 1e8), copy(p, "g1", "g2", 1e8), copy(p, "g2", "g3", 0)};
  ts[1].after = {0};
  ts[1].latency = microseconds(5);
  ts[2].after = {0, 1};
  const RunResult r = engine::run(p, ts);
  EXPECT_DOUBLE_EQ(r.transfers[0].start.value, 0.0);
  expect_closed_form("finish(t0) + 5 us", r.transfers[0].finish.value + 5e-6, r.transfers[1].start.value, "s",
                     1e-9);
  // A zero-byte transfer takes exactly its route's latency.
  const Route route = p.route(p.topology().find("g2"), p.topology().find("g3"), Transport::P2p);
  expect_closed_form("route latency", route.latency.value, duration(r.transfers[2]).value, "s", 1e-9);
  EXPECT_DOUBLE_EQ(r.transfers[2].start.value, r.transfers[1].finish.value);
}

TEST(Transfers, APhaseThatEndsInNoTimeDoesNotEndTheNextEarly) {
  // Phases of one simulation (the bench sweep's sizes): the task that finishes a phase wakes the main
  // actor once. A phase of instant tasks can finish while the main actor is still releasing its roots;
  // it must still consume that one wake-up, or the next phase would be taken as done at once.
  const Platform p = platform_of(kFourBehindOneUplink);
  const auto g = [&](const char* name) { return p.topology().find(name); };
  const std::vector<Transfer> two = {copy(p, "g0", "g1", 1e6), copy(p, "g2", "g3", 1e6)};  // two workers
  const std::vector<Transfer> instant = {compute_task(g("g0"), Seconds{}, -1, {}, "a"),
                                         compute_task(g("g1"), Seconds{}, -1, {}, "b"),
                                         compute_task(g("g2"), Seconds{}, -1, {}, "c")};
  const std::vector<Transfer> last = {copy(p, "g0", "g1", 1e8)};
  const std::vector<RunResult> r = engine::run_phases_async(p, {&two, &instant, &two, &instant, &last})();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_DOUBLE_EQ(r[1].makespan.value, 0.0);
  EXPECT_DOUBLE_EQ(r[3].makespan.value, 0.0);
  expect_closed_form("a later phase as a run alone", engine::run(p, last).makespan.value, r[4].makespan.value,
                     "s", 1e-9);
}

TEST(Transfers, MalformedInputIsRejected) {
  const Platform p = platform_of(kOneGen3);
  std::vector<Transfer> ts = {copy(p, "cpu0", "g0", 1e6)};
  ts[0].after = {0};
  EXPECT_THROW(engine::run(p, ts), std::invalid_argument);
  ts[0].after.clear();
  ts[0].bytes = Bytes{-1};
  EXPECT_THROW(engine::run(p, ts), std::invalid_argument);
  ts[0].bytes = Bytes{1};
  ts[0].dst = 999;
  EXPECT_THROW(engine::run(p, ts), std::invalid_argument);
  EXPECT_TRUE(engine::run(p, {}).transfers.empty());
}

TEST(Transfers, ManyRunsInOneProcessAreIdentical) {
  const Platform p = platform_of(kSlowMemory);
  const std::vector<Transfer> ts = {copy(p, "g0", "g1", 1e8), copy(p, "g2", "g3", 3e8),
                                    copy(p, "cpu0", "g2", 2e8)};
  const RunResult first = engine::run(p, ts);
  for (int i = 0; i < 20; ++i) {
    const RunResult again = engine::run(p, ts);
    for (std::size_t k = 0; k < ts.size(); ++k)
      EXPECT_EQ(again.transfers[k].finish.value, first.transfers[k].finish.value);
  }
}

/// A pipelined ring on 8 GPUs: `steps` rounds, each GPU sends to its neighbour after receiving.
std::vector<Transfer> ring(const Platform& p, int steps) {
  const auto gpus = p.topology().gpus();
  const std::size_t n = gpus.size();
  std::vector<Transfer> ts;
  for (int s = 0; s < steps; ++s)
    for (std::size_t g = 0; g < n; ++g) {
      Transfer t;
      t.src = gpus[g];
      t.dst = gpus[(g + 1) % n];
      t.bytes = Bytes{1e6 * (1 + (g % 3))};
      t.latency = microseconds(5.7);
      if (s > 0) t.after = {(s - 1) * n + (g + n - 1) % n, (s - 1) * n + g};
      ts.push_back(t);
    }
  return ts;
}

TEST(Transfers, ThousandsOfTransfersRunQuickly) {
  const Platform p(topology::testing::layout_from_text(topology::testing::kDualRootPlx),
                   calibration::default_cost_model());
  for (int steps : {125, 1250}) {
    const auto ts = ring(p, steps);
    const auto t0 = std::chrono::steady_clock::now();
    const RunResult r = engine::run(p, ts);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "[ timing ] " << ts.size() << " transfers (ring on 8 GPUs): " << ms << " ms wall, "
              << r.makespan.value * 1e3 << " ms simulated\n";
    RecordProperty("wall_ms_" + std::to_string(ts.size()), static_cast<int>(ms));
    EXPECT_LT(ms, ts.size() < 5000 ? 1000.0 : 10000.0);
    for (std::size_t i = 0; i < ts.size(); ++i)
      for (std::size_t d : ts[i].after) ASSERT_GE(r.transfers[i].start.value, r.transfers[d].finish.value);
  }
}

TEST(Transfers, RoutesSpreadOverManyZonesEachKeepTheirOwnLinks) {
  // The engine puts each route on its own (source host, sink host) pair, 1,024 routes to a zone: 6
  // HGX H100 servers give 48 x 47 = 2,256 GPU pairs, so three zones. Run one after another (nothing
  // shares a link), every copy takes about what a copy of its kind takes alone: over NVLink inside a server,
  // over the NICs between servers (the two differ about sevenfold), whichever zone and host pair its
  // route landed on.
  const Platform p(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/hgx-h100.json", 6),
      calibration::default_cost_model());
  const auto gpus = p.topology().gpus();
  ASSERT_EQ(gpus.size(), 48u);
  const auto& topo = p.topology();
  const auto alone = [&](topology::DeviceId a, topology::DeviceId b) {
    Transfer t;
    t.src = a;
    t.dst = b;
    t.bytes = Bytes{1e6};
    return duration(engine::run(p, {t}).transfers[0]).value;
  };
  const double nvlink = alone(gpus[0], gpus[1]), network = alone(gpus[0], gpus[8]);
  ASSERT_GT(network, 2 * nvlink);
  std::vector<Transfer> chain;
  for (topology::DeviceId a : gpus)
    for (topology::DeviceId b : gpus) {
      if (a == b) continue;
      Transfer t;
      t.src = a;
      t.dst = b;
      t.bytes = Bytes{1e6};
      if (!chain.empty()) t.after = {chain.size() - 1};
      chain.push_back(t);
    }
  ASSERT_EQ(chain.size(), 2256u);
  const RunResult all = engine::run(p, chain);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const bool inside = topo.device(chain[i].src).node == topo.device(chain[i].dst).node;
    // Within 2 %: the routes of one kind differ by a hop or so (a relay over NVLink to the NIC NCCL
    // would use), 0.2 us of 24; the other kind is sevenfold away.
    const double expected = inside ? nvlink : network;
    ASSERT_NEAR(duration(all.transfers[i]).value, expected, 0.02 * expected)
        << "copy " << i << " of 2,256 (" << topo.device(chain[i].src).name << " -> "
        << topo.device(chain[i].dst).name << ") against one of its kind run alone";
  }
}

TEST(Transfers, ConnectedTransfersSkipTheTransportSetup) {
  const Platform p = platform_of(kStagedUnequalLegs);
  Transfer cold = copy(p, "g0", "g1", 8, Transport::Shm), warm = cold;
  warm.connected = true;
  const RunResult r = engine::run(p, {cold, warm});
  const Route route = p.route(p.topology().find("g0"), p.topology().find("g1"), Transport::Shm);
  const double bytes = 8 / route.bottleneck.value;
  expect_closed_form("route latency + S/B", route.latency.value + bytes, duration(r.transfers[0]).value, "s");
  expect_closed_form("route latency - setup + S/B (connected)",
                     route.latency.value - route.setup.value + bytes, duration(r.transfers[1]).value, "s");
}

}  // namespace
}  // namespace rigsim::model
