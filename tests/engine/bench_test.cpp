// Collectives run in SimGrid against closed forms (within 1-2 %), step vs steady-state agreement,
// monotonicity across the catalog layouts and sanity bands on real rigs. Every closed form is
// stated in the failure message.
#include "report/bench.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "tests/engine/bench_outcome.hpp"
#include "tests/model/collective_layouts.hpp"
#include "topology/build.hpp"
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

TEST(BenchClosedForm, UniformRingAllReduceTimeAndBusbw) {
  const calibration::CostModel cost = testing::round_cost_model();
  for (const char* layout : {testing::kFourBehindOneUplink, testing::kEightOnNvswitch}) {
    const Platform p(layout_from_text(layout), cost);
    for (PlanModel model : {PlanModel::Step, PlanModel::Steady}) {
      const double S = 8 * kGiB;  // large enough for the latency terms to vanish from busbw (< 0.5 %)
      const Outcome o = run(p, CollectiveOp::AllReduce, S, model);
      const double n = static_cast<double>(o.plan.ranks.size()), B = hop_route(p, o).bottleneck.value;
      const double lat = cost.nccl_base_latency.value + 2 * (n - 1) * cost.nccl_step_latency_pcie.value;
      const double nvl = cost.nccl_base_latency.value + 2 * (n - 1) * cost.nccl_step_latency_nvlink.value;
      const double expected =
          (o.plan.connections[0].path == topology::PathClass::NVL ? nvl : lat) + 2 * (n - 1) / n * S / B;
      EXPECT_NEAR(o.seconds, expected, 0.01 * expected)
          << p.topology().name() << ", " << to_string(model) << ": "
          << closed("base + 2(n-1)·step + 2(n-1)/n·S/B", expected, o.seconds);
      EXPECT_NEAR(o.busbw, B / 1e9, 0.01 * B / 1e9) << "busbw -> B = " << B / 1e9 << " GB/s for large S";
    }
  }
}

TEST(BenchClosedForm, LatencyBoundSizesFollowThePerStepModel) {
  const calibration::CostModel cost = testing::round_cost_model();
  const Platform p(layout_from_text(testing::kFourBehindOneUplink), cost);
  const double S = 8;
  CollectiveOptions simple;
  simple.protocol = Protocol::Simple;  // NCCL_PROTO=Simple: NCCL's own choice at 8 B is LL (test below)
  const Outcome o = run(p, CollectiveOp::AllReduce, S, PlanModel::Step, {}, simple);
  const Route r = hop_route(p, o);
  const double n = 4, K = 2 * (n - 1);
  // Each of the K steps: NCCL's per-step latency, the route's link latencies and S/n bytes at B. The
  // P2P transport's setup (r.latency = setup + link latencies) is not charged: NCCL connected the
  // ranks at init.
  const double links = r.latency.value - cost.p2p_latency.value;
  const double expected =
      cost.nccl_base_latency.value + K * (cost.nccl_step_latency_pcie.value + links + S / n / r.bottleneck.value);
  EXPECT_NEAR(o.seconds, expected, 0.01 * expected)
      << closed("base + 2(n-1)·(step + link latencies + S/n/B)", expected, o.seconds);
}

TEST(BenchClosedForm, ShmStepsPayNcclsPciStepLatencyNotAColdStagedCopy) {
  // NCCL_P2P_DISABLE=1: the ring runs over SHM. NCCL's model prices such a step at its PCI per-step
  // latency (there is no SHM row); the transport's setup (shm_latency, a cold cudaMemcpy through host
  // memory as p2pBandwidthLatencyTest measures it) belongs to a copy that is not on a connection.
  calibration::CostModel cost = testing::round_cost_model();
  cost.shm_latency = microseconds(20);  // well above the step latency, so charging it would show
  const Platform p(layout_from_text(testing::kFourBehindOneUplink), cost);
  CollectiveOptions o;
  o.protocol = Protocol::Simple;
  o.p2p.disable = true;
  const double S = 8;
  const Outcome out = run(p, CollectiveOp::AllReduce, S, PlanModel::Step, {}, o);
  ASSERT_EQ(out.plan.connections.at(0).transport, Transport::Shm);
  const Route r = hop_route(p, out);
  const double n = 4, K = 2 * (n - 1);
  const double links = r.latency.value - cost.shm_latency.value;
  const double expected = cost.nccl_base_latency.value +
                          K * (cost.nccl_step_latency_pcie.value + links + S / n / r.bottleneck.value);
  EXPECT_NEAR(out.seconds, expected, 0.01 * expected)
      << closed("base + 2(n-1)·(PCI step + link latencies + S/n/B)", expected, out.seconds);
  EXPECT_LT(out.seconds, cost.nccl_base_latency.value + K * cost.shm_latency.value)
      << "a step must not cost a cold staged copy";
}

TEST(BenchClosedForm, AllGatherBusbwApproachesTheLinkRate) {
  const Platform p(layout_from_text(testing::kEightOnNvswitch), testing::round_cost_model());
  const Outcome o = run(p, CollectiveOp::AllGather, kGiB, PlanModel::Step);
  const double B = hop_route(p, o).bottleneck.value;
  const double expected = 7.0 / 8 * kGiB / B;
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected) << closed("(n-1)/n·S/B", expected, o.seconds);
}

TEST(BenchClosedForm, FourGpuMeshAllReduceUsesAllThreePeersLinks) {
  // Four GPUs fully connected by NVLink: NCCL's six rings load every ordered pair equally, so each GPU
  // sends over its three peers' links at once: 2(n-1)/n·S / (3B), B one pair's rate.
  const Platform p(layout_from_text(testing::kFourA100Mesh), testing::round_cost_model());
  const Outcome o = run(p, CollectiveOp::AllReduce, kGiB, PlanModel::Steady);
  const double B = hop_route(p, o).bottleneck.value;
  const double expected = 2.0 * 3 / 4 * kGiB / (3 * B);
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected) << closed("2(n-1)/n·S/(3B)", expected, o.seconds);
}

TEST(BenchClosedForm, RingsSharingAGpuPairCountItOnce) {
  // The same mesh: each ordered pair carries two of the six rings, so NCCL's bus bandwidth is 6 x B/2 =
  // 3B, not 6B. LL moves at llMaxBw (Ampere, one server: 87.7 GB/s) while half the bus is above it: the
  // LL ring all_reduce takes 2(n-1)/n·S / 87.7 GB/s after its latency. Counting each ring at the whole
  // pair gave LL half of that.
  const Platform p(layout_from_text(testing::kFourA100Mesh), testing::round_cost_model());
  CollectiveOptions ll;
  ll.protocol = Protocol::LL;
  const Outcome o = run(p, CollectiveOp::AllReduce, 64.0 * 1024 * 1024, PlanModel::Steady, {}, ll);
  const double B = hop_route(p, o).bottleneck.value;
  const double bus = o.plan.protocol_choice.bus_bw[static_cast<std::size_t>(Protocol::Simple)].value;
  EXPECT_NEAR(bus, 3 * B, 1e-6 * B) << closed("6 rings x B/2", 3 * B, bus);
  ASSERT_GT(0.5 * bus, 87.7e9) << "the case needs llMaxBw to bind";
  const double expected = o.plan.latency.value + 2.0 * 3 / 4 * 64.0 * 1024 * 1024 / 87.7e9;
  EXPECT_NEAR(o.seconds, expected, 0.03 * expected) << closed("L + 2(n-1)/n·S/llMaxBw", expected, o.seconds);
}

TEST(BenchClosedForm, SendRecvOverNvlinkMovesAtItsChannelsThreadBlocks) {
  // A send is split over nccl_p2p_op_channels(S) channels, one thread block each, and a block moves the
  // share of the links' bandwidth each of NCCL's ring channels carries: here 12 NVLinks of 25 GB/s
  // (the round cost model), 300 GB/s over 32 ring channels = 9.375 GB/s (NVIDIA/nccl#1703: 2 CTAs per
  // NVLink). 2 ranks at 128 MiB: 16 channels, 150 GB/s, half the links; at 1 GiB 32 channels, the links.
  const Platform p(layout_from_text(testing::kEightOnNvswitch), testing::round_cost_model());
  const std::vector<topology::DeviceId> pair = {p.topology().gpus()[0], p.topology().gpus()[1]};
  const Outcome small = run(p, CollectiveOp::SendRecv, 128.0 * 1024 * 1024, PlanModel::Step, pair);
  ASSERT_EQ(small.plan.p2p_op_channels, 16);
  const double cta = block_rate(small.plan.nccl);
  const Route r = p.route(pair[0], pair[1], Transport::P2p);
  EXPECT_NEAR(cta, r.bottleneck.value / small.plan.nccl.comm, 1e-6 * cta) << small.plan.nccl.reason;
  const double lat = small.plan.latency.value + r.latency.value - r.setup.value;
  const double expected = lat + 128.0 * 1024 * 1024 / (16 * cta);
  EXPECT_NEAR(small.seconds, expected, 0.01 * expected) << closed("lat + S/(16·B_link/2)", expected, small.seconds);
  const Outcome large = run(p, CollectiveOp::SendRecv, kGiB, PlanModel::Step, pair);
  ASSERT_EQ(large.plan.p2p_op_channels, 32);
  const double link = lat + kGiB / r.bottleneck.value;
  EXPECT_NEAR(large.seconds, link, 0.01 * link) << closed("lat + S/B_links", link, large.seconds);
  // Busbw never falls as the size grows.
  double last = 0;
  for (double s = 1 << 20; s <= kGiB; s *= 2) {
    const double bw = run(p, CollectiveOp::SendRecv, s, PlanModel::Step, pair).busbw;
    EXPECT_GE(bw, last * 0.999) << s << " B";
    last = bw;
  }
  // bench's report names them: the text's *why* and the JSON's channels.
  BenchOptions bo;
  bo.op = CollectiveOp::SendRecv;
  bo.gpus = pair;
  bo.sweep = {128ull << 20, 128ull << 20, 2, 0};
  const BenchResult br = run_bench(p, engine::run, bo);
  EXPECT_NE(report::bench_text(p, bo, br).find("each send on 16 at this size"), std::string::npos);
  const auto j = report::bench_json(p, bo, br);
  EXPECT_EQ(j["channels"]["send_channels"], 16);
  EXPECT_NEAR(j["channels"]["channel_gbs_nvlink"].get<double>(), cta / 1e9, 1e-9);
  // Over PCIe no block limit applies (no source bounds one): the P2P route's rate.
  const Platform pcie(layout_from_text(testing::kFourBehindOneUplink), testing::round_cost_model());
  const Outcome o = run(pcie, CollectiveOp::SendRecv, kGiB, PlanModel::Step);
  EXPECT_EQ(o.plan.p2p_cta_gbs, 0.0);
  for (const Transfer& t : o.plan.transfers) EXPECT_EQ(t.rate_cap.value, 0.0);
}

/// Step-level and steady-state plans of the same collective, on large sizes.
void expect_models_agree(const Platform& p, CollectiveOp op, CollectiveOptions o = {},
                         double tolerance = 0.03) {
  const double S = kGiB;
  const Outcome step = run(p, op, S, PlanModel::Step, {}, o);
  const Outcome steady = run(p, op, S, PlanModel::Steady, {}, o);
  EXPECT_NEAR(step.seconds, steady.seconds, tolerance * steady.seconds)
      << p.topology().name() << " " << to_string(op) << " (" << to_string(step.plan.algorithm) << "): step "
      << step.seconds << " s vs steady " << steady.seconds << " s";
}

/// A chain (broadcast) cut into M chunks (NCCL's 512 KiB, at most max_chain_chunks) pays a fill of
/// (n-2) chunk times and its links' latency r per chunk, which the steady state (one flow per hop) has
/// not: the step plan exceeds it by (n-2)/M + M·r·B/Sc, Sc = S / channels; r and B are those of the
/// chain's slowest stage (the largest link latency, the lowest route bottleneck).
void expect_chain_models_agree(const Platform& p) {
  const double S = kGiB;
  const Outcome step = run(p, CollectiveOp::Broadcast, S, PlanModel::Step);
  const Outcome steady = run(p, CollectiveOp::Broadcast, S, PlanModel::Steady);
  double r = 0, B = std::numeric_limits<double>::infinity();
  for (const Connection& c : step.plan.rings.at(0).hops) {
    const Route route = p.route(c.src, c.dst, c.transport);
    r = std::max(r, route.latency.value - route.setup.value);
    B = std::min(B, route.bottleneck.value);
  }
  const double n = static_cast<double>(step.plan.ranks.size()), Sc = S / step.plan.channels;
  const double M = Sc / step.plan.chunk.value;
  const double overhead = (n - 2) / M + M * r * B / Sc;
  EXPECT_GE(step.seconds, steady.seconds * 0.99) << p.topology().name();
  EXPECT_LE(step.seconds, steady.seconds * (1 + overhead + 0.01))
      << p.topology().name() << ": expected steady x (1 + (n-2)/M + M·r·B/Sc) = "
      << steady.seconds * (1 + overhead) << " s, got " << step.seconds << " s";
}

TEST(BenchModels, StepAndSteadyAgreeOnLargeCollectives) {
  const auto cost = calibration::default_cost_model();
  for (const char* layout :
       {topology::testing::kDualRootPlx, testing::kDgx1Like, testing::kFourBehindOneUplink}) {
    const Platform p(layout_from_text(layout), cost);
    for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::ReduceScatter})
      expect_models_agree(p, op);
    expect_chain_models_agree(p);
  }
}

TEST(BenchModels, StepAndSteadyAgreeAcrossServers) {
  const auto spec = testing::spec_from_text(topology::testing::kDualRootPlx);
  const Platform p(topology::build_cluster(spec, 2), calibration::default_cost_model());
  CollectiveOptions o;
  o.algorithm = Algorithm::Ring;
  expect_models_agree(p, CollectiveOp::AllReduce, o);
  // A tree is a pipeline 2·depth stages deep (here a chain of 8 GPUs per server, plus the link between
  // servers, up and down) in chunks of 512 KiB: its fill and the links' latency per chunk cost the step
  // plan a few per cent more than the steady state, which has neither.
  o.algorithm = Algorithm::Tree;
  expect_models_agree(p, CollectiveOp::AllReduce, o, 0.08);
}

TEST(BenchHost, OneThreadLaunchingEveryGpuSetsThePaceOfSmallSizes) {
  // nccl-tests run as one process (-g 8) launches the collective on its 8 GPUs in turn every iteration:
  // an iteration takes max(the collective, 8 x nccl_launch_per_gpu). One process per GPU (-g 1) leaves
  // the simulated time unless it is below one launch.
  const calibration::CostModel cost = testing::round_cost_model();
  const Platform p(layout_from_text(testing::kEightOnNvswitch), cost);
  BenchOptions o;
  o.sweep = {8, 1ull << 30, 1024, 0};  // 8 B, 8 KiB, 8 MiB
  o.gpus_per_thread = 1;
  const BenchResult apart = run_bench(p, engine::run, o);
  o.gpus_per_thread = 0;  // all 8 in one thread
  const BenchResult one = run_bench(p, engine::run, o);
  ASSERT_EQ(one.rows.size(), apart.rows.size());
  EXPECT_EQ(one.gpus_per_thread, 8u);
  const double launch = 8 * cost.nccl_launch_per_gpu.us();
  for (std::size_t k = 0; k < one.rows.size(); ++k) {
    const double gpu = apart.rows[k].row.time_us;
    EXPECT_NEAR(one.rows[k].row.time_us, std::max(gpu, launch), 1e-6)
        << "expected max(collective " << gpu << " us, 8 x launch " << launch << " us) at " << one.rows[k].row.size
        << " B";
    EXPECT_EQ(one.rows[k].host_bound, launch > gpu);
    EXPECT_FALSE(apart.rows[k].host_bound && gpu > cost.nccl_launch_per_gpu.us());
  }
  EXPECT_TRUE(one.rows.front().host_bound) << "8 B on NVSwitch is below 8 launches";
  EXPECT_FALSE(one.rows.back().host_bound) << "8 MiB is the GPUs' time";
  // More GPUs per thread is never faster.
  double previous = 0;
  for (std::size_t g : {1, 2, 4, 8}) {
    o.gpus_per_thread = g;
    const double t = run_bench(p, engine::run, o).rows.front().row.time_us;
    EXPECT_GE(t, previous - 1e-9) << g << " GPUs per thread";
    previous = t;
  }
  o.gpus_per_thread = 64;  // more than the server has: all of them
  EXPECT_EQ(run_bench(p, engine::run, o).gpus_per_thread, 8u);
}

TEST(BenchSweep, SizesSimulatedSideBySideGiveTheSameReport) {
  // rigsim bench deals the sizes to a few simulations (each size a phase of one of them, on an idle
  // network) and runs up to one per core at once: the report must not depend on how many run at once,
  // and each size's time is its own simulation's (a phase starts at a later clock, so only the last
  // bits of a double may differ; the text rounds them away).
  const Platform p(topology::build_cluster(testing::spec_from_text(topology::testing::kDualRootPlx), 2),
                   calibration::default_cost_model());
  BenchOptions o;
  o.sweep = {8, 64ull << 20, 4, 0};
  const BenchResult one = run_bench(p, engine::run, o);
  const BenchResult first = run_bench(p, engine::run_phases_async, o, 1);
  ASSERT_EQ(first.rows.size(), one.rows.size());
  for (std::size_t k = 0; k < one.rows.size(); ++k)
    EXPECT_NEAR(first.rows[k].row.time_us, one.rows[k].row.time_us, 1e-12 * one.rows[k].row.time_us)
        << "size " << one.rows[k].row.size;
  EXPECT_EQ(report::bench_text(p, o, first), report::bench_text(p, o, one));
  for (std::size_t jobs : {2u, 3u, 16u}) {
    const BenchResult many = run_bench(p, engine::run_phases_async, o, jobs);
    EXPECT_EQ(report::bench_text(p, o, many), report::bench_text(p, o, first)) << jobs << " at once";
    EXPECT_EQ(report::bench_json(p, o, many).dump(), report::bench_json(p, o, first).dump()) << jobs << " at once";
  }
}

TEST(BenchSweep, ALaterPhaseStartsFromItsOwnRootsOnly) {
  // Each size after the first of a group is a later phase of one simulation. The task that finished a
  // phase used to release the next phase before walking its own dependents, and so walked the next
  // phase's instead: a 256 MiB all_reduce run after 16 MiB started one of its flows at once, beside the
  // flow its ring step had to wait for, and came out 5 % slower (1195 us against 1137 us alone).
  const Platform p(layout_from_text(testing::kEightOnNvswitch), calibration::default_cost_model());
  BenchOptions o;
  o.gpus = {p.topology().gpus()[0], p.topology().gpus()[1]};
  o.sweep = {16ull << 20, 1ull << 30, 2, 0};  // 7 sizes: groups of two phases
  const BenchResult alone = run_bench(p, engine::run, o);
  const BenchResult phased = run_bench(p, engine::run_phases_async, o, 1);
  ASSERT_EQ(phased.rows.size(), alone.rows.size());
  for (std::size_t k = 0; k < alone.rows.size(); ++k)
    EXPECT_NEAR(phased.rows[k].row.time_us, alone.rows[k].row.time_us, 1e-9 * alone.rows[k].row.time_us)
        << "size " << alone.rows[k].row.size << ": as a later phase vs simulated alone";
}

TEST(BenchSweep, RowsFollowNcclTestsSizesAndRisingBusbw) {
  const Platform p(layout_from_text(testing::kFourBehindOneUplink), calibration::default_cost_model());
  BenchOptions o;
  o.sweep = {8, 128ull << 20, 2, 0};
  const BenchResult r = run_bench(p, engine::run, o);
  ASSERT_EQ(r.rows.size(), 25u);
  // Busbw rises with size; where NCCL's choice switches protocol it may dip a little, as in real runs:
  // NCCL decides with its own bandwidth model (LL at a quarter of the bus), not with the wire's.
  for (std::size_t i = 1; i < r.rows.size(); ++i) {
    const bool switched = r.rows[i].protocol != r.rows[i - 1].protocol;
    EXPECT_GE(r.rows[i].row.busbw, r.rows[i - 1].row.busbw * (switched ? 0.95 : 0.999)) << "size " << r.rows[i].row.size;
  }
  EXPECT_FALSE(r.bottleneck.empty());
  const std::string text = report::bench_text(p, o, r);
  EXPECT_NE(text.find("# Avg bus bandwidth    : "), std::string::npos);
  EXPECT_NE(text.find("# Busiest links"), std::string::npos);
  const auto j = report::bench_json(p, o, r);
  EXPECT_EQ(j["rows"].size(), 25u);
  EXPECT_TRUE(j.contains("avg_busbw"));
}

// ---- catalog layouts (scenarios/layouts/) ------------------------------------------------------

std::filesystem::path catalog() {
  return std::filesystem::path(RIGSIM_SOURCE_DIR) / "scenarios" / "layouts";
}

/// The catalog layout whose file name contains every word, or "" (the test is then skipped).
std::string find_layout(std::initializer_list<const char*> words) {
  if (!std::filesystem::exists(catalog())) return "";
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(catalog()))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    bool all = n.size() > 5 && n.substr(n.size() - 5) == ".json";
    for (const char* w : words) all = all && n.find(w) != std::string::npos;
    if (all) return (catalog() / n).string();
  }
  return "";
}

double busbw_1gib(const std::string& file, const CollectiveOptions& o = {},
                  const calibration::CostModel& cost = calibration::default_cost_model()) {
  const Platform p(topology::load_layout(file), cost);
  return run(p, CollectiveOp::AllReduce, kGiB, PlanModel::Auto, {}, o).busbw;
}

TEST(BenchCatalog, NvlinkPairIsWellAbovePciePair) {
  const std::string nvl = find_layout({"2x3090", "nvlink"}), pcie = find_layout({"consumer-2x4090"});
  if (nvl.empty() || pcie.empty()) GTEST_SKIP() << "catalog layouts not present in " << catalog();
  EXPECT_GT(busbw_1gib(nvl), 2 * busbw_1gib(pcie)) << nvl << " vs " << pcie;
}

TEST(BenchCatalog, MiningRigOnX1RisersStaysUnderOneGBps) {
  const std::string x1 = find_layout({"mining", "x1"});
  if (x1.empty()) GTEST_SKIP() << "no mining x1 layout in " << catalog();
  EXPECT_LT(busbw_1gib(x1), 1.0) << x1;
  const std::string bif = find_layout({"bifurc"});
  if (bif.empty()) GTEST_SKIP() << "no bifurcated layout in " << catalog();
  EXPECT_GT(busbw_1gib(bif), busbw_1gib(x1)) << bif << " vs " << x1;
}

/// Every catalog layout: enabling P2P (default vs NCCL_P2P_DISABLE) and widening every link (all
/// efficiencies to 1) never lower busbw.
TEST(BenchCatalog, WiderLinksAndP2pNeverLowerBusbw) {
  if (find_layout({""}).empty()) GTEST_SKIP() << "no catalog layouts in " << catalog();
  calibration::CostModel wide = calibration::default_cost_model();
  wide.pcie_efficiency = wide.nvlink_efficiency = wide.chipset_efficiency = 1.0;
  wide.memory_efficiency = wide.network_efficiency = wide.pcie_duplex_efficiency = 1.0;
  for (const auto& e : std::filesystem::directory_iterator(catalog())) {
    if (e.path().extension() != ".json") continue;
    const std::string f = e.path().string();
    CollectiveOptions off;
    off.p2p.disable = true;
    const double base = busbw_1gib(f);
    EXPECT_GE(base, busbw_1gib(f, off) * 0.999) << f << ": enabling P2P lowered busbw";
    EXPECT_GE(busbw_1gib(f, {}, wide), base * 0.999) << f << ": widening links lowered busbw";
  }
}


/// Every catalog layout: a sendrecv between the first two GPUs never loses busbw as it grows (NCCL gives
/// a larger send as many channels or more, nccl_p2p_op_channels), and the thread blocks' limit never
/// takes it above the pair's own P2P route.
TEST(BenchCatalog, SendRecvNeverSlowsAsItGrows) {
  if (find_layout({""}).empty()) GTEST_SKIP() << "no catalog layouts in " << catalog();
  for (const auto& e : std::filesystem::directory_iterator(catalog())) {
    if (e.path().extension() != ".json") continue;
    const Platform p(topology::load_layout(e.path().string()), calibration::default_cost_model());
    const auto gpus = p.topology().gpus();
    if (gpus.size() < 2) continue;
    const std::vector<topology::DeviceId> pair = {gpus[0], gpus[1]};
    double last = 0;
    for (double s = 1 << 20; s <= kGiB; s *= 8) {
      const Outcome o = run(p, CollectiveOp::SendRecv, s, PlanModel::Auto, pair);
      EXPECT_GE(o.busbw, last * 0.999) << e.path().filename() << " at " << s << " B";
      last = o.busbw;
      const Connection& c = o.plan.connections.at(0);
      EXPECT_LE(o.busbw, p.route(c.src, c.dst, c.transport).bottleneck.value / 1e9 * 1.001)
          << e.path().filename() << " at " << s << " B";
    }
  }
}

/// Across servers no thread-block limit applies to send/recv: NCCL's channels there follow the
/// network's rings, so their figure says nothing about a block on NVLink.
TEST(BenchCatalog, SendRecvAcrossServersHasNoBlockLimit) {
  const std::string dgx = find_layout({"dgx-a100"});
  if (dgx.empty()) GTEST_SKIP() << "no DGX A100 layout in " << catalog();
  const Platform nodes(topology::read_layout(dgx, 2), calibration::default_cost_model());
  const CollectivePlan a2a =
      plan_collective(nodes, CollectiveOp::AllToAll, nodes.topology().gpus(), Bytes{kGiB}, {});
  ASSERT_FALSE(a2a.transfers.empty());
  for (const Transfer& t : a2a.transfers) EXPECT_EQ(t.rate_cap.value, 0.0) << t.tag;
  // The same server alone: its NVLink sends are limited.
  const Platform one(topology::load_layout(dgx), calibration::default_cost_model());
  const CollectivePlan alone = plan_collective(one, CollectiveOp::AllToAll, one.topology().gpus(), Bytes{kGiB}, {});
  EXPECT_GT(alone.transfers.at(0).rate_cap.value, 0.0);
}

// ---- protocols (LL / LL128 / Simple) and NICs ------------------------------------------------

/// An 8 B ring all_reduce runs NCCL's LL protocol on connections already set up: LL base + 2(n-1) x
/// (LL per-step latency + the route's link latencies, no transport setup) + 2(n-1) x 2·(S/n)/B.
TEST(BenchProtocols, TinyAllReduceIsLlBasePlusLlSteps) {
  const calibration::CostModel cost = calibration::default_cost_model();
  for (const char* layout : {testing::kFourBehindOneUplink, testing::kEightOnNvswitch}) {
    const Platform p(layout_from_text(layout), cost);
    const double S = 8;
    const Outcome o = run(p, CollectiveOp::AllReduce, S, PlanModel::Step);
    ASSERT_EQ(o.plan.protocol, Protocol::LL) << p.topology().name();
    const Route r = hop_route(p, o);
    const bool nvl = o.plan.connections[0].path == topology::PathClass::NVL;
    const double n = static_cast<double>(o.plan.ranks.size()), K = 2 * (n - 1);
    const double step = nvl ? cost.nccl_ll_step_latency_nvlink.value : cost.nccl_ll_step_latency_pcie.value;
    const double links = r.latency.value - r.setup.value;
    const double wire = o.plan.protocol_choice.wire_factor[0];
    EXPECT_GE(wire, 2.0) << "LL moves at least 2 bytes per data byte";
    const double expected = cost.nccl_ll_base_latency.value + K * (step + links + wire * S / n / r.bottleneck.value);
    EXPECT_NEAR(o.seconds, expected, 0.02 * expected)
        << p.topology().name() << ": " << closed("LL base + 2(n-1)·(LL step + link latencies)", expected, o.seconds);
    for (const Transfer& t : o.plan.transfers)
      if (t.src != t.dst) {
        EXPECT_TRUE(t.connected) << "LL steps run on established connections";
      }
  }
}

/// The protocol follows NCCL's time model: LL for small sizes, Simple for large ones, LL128 only on
/// NVLink; the chosen protocol's model time is the smallest of the enabled ones, and a forced protocol
/// (NCCL_PROTO) is honoured.
TEST(BenchProtocols, ChoiceSwitchesFromLlToSimpleAndIsTheFastest) {
  const calibration::CostModel cost = calibration::default_cost_model();
  for (const char* layout : {testing::kFourBehindOneUplink, testing::kEightOnNvswitch}) {
    const auto topo = layout_from_text(layout);
    bool nvlink = false;
    int previous = -1;
    for (double S = 8; S <= 8 * kGiB; S *= 4) {
      const CollectivePlan plan = plan_collective(Platform(topo, cost), CollectiveOp::AllReduce, topo.gpus(), Bytes{S});
      const ProtocolChoice& c = plan.protocol_choice;
      nvlink = c.enabled[1];
      const auto chosen = static_cast<std::size_t>(plan.protocol);
      EXPECT_EQ(plan.protocol, c.chosen);
      for (std::size_t k = 0; k < 3; ++k)
        if (c.enabled[k]) {
          EXPECT_LE(c.time[chosen].value, c.time[k].value) << topo.name() << " size " << S;
        }
      EXPECT_GE(static_cast<int>(chosen), previous) << topo.name() << ": LL -> LL128 -> Simple as size grows";
      previous = static_cast<int>(chosen);
      if (S == 8) {
        EXPECT_EQ(plan.protocol, Protocol::LL) << topo.name();
      }
    }
    EXPECT_EQ(previous, static_cast<int>(Protocol::Simple)) << topo.name() << ": large sizes run Simple";
    EXPECT_EQ(nvlink, std::string(layout) == testing::kEightOnNvswitch)
        << topo.name() << ": LL128 is enabled only when the ring is NVLink (typeIntra <= NVB)";
    CollectiveOptions forced;
    forced.protocol = Protocol::Simple;
    EXPECT_EQ(plan_collective(Platform(topo, cost), CollectiveOp::AllReduce, topo.gpus(), Bytes{8}, forced).protocol,
              Protocol::Simple);
  }
}

/// NCCL decides with LL at a quarter of the bus bandwidth for all_reduce (and across nodes), a third
/// for other single-server collectives, capped by llMaxBw (tuning.cc); the simulation still moves LL at
/// the wire's two bytes per data byte. Deciding with the wire's half made LL win 128 MiB at 512 nodes.
TEST(BenchProtocols, LlIsDecidedAtAQuarterOfTheBusUpTo2205AndAtHalfFrom2215) {
  // tuning.cc, ring LL: min(llMaxBw, busBw x (all_reduce / reduce or across servers ? 1/4 : 1/3)) up to
  // 2.20.5, min(llMaxBw, busBw x .5) from 2.21.5.
  const calibration::CostModel cost = calibration::default_cost_model();
  const auto topo = layout_from_text(testing::kFourBehindOneUplink);
  const Platform p(topo, cost);
  for (const char* release : {"2.20.5", "2.21.5"}) {
    const bool half = std::string(release) == "2.21.5";
    CollectiveOptions o;
    o.p2p.nccl_version = topology::parse_nccl_version(release);
    for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::AllGather}) {
      const CollectivePlan plan = plan_collective(p, op, topo.gpus(), Bytes{1 << 20}, o);
      const ProtocolChoice& c = plan.protocol_choice;
      const double bus = c.bus_bw[static_cast<int>(Protocol::Simple)].value;
      const double ratio = half ? 0.5 : op == CollectiveOp::AllReduce ? 0.25 : 1.0 / 3.0;
      const double cap = cost.nccl_ll_max_bw_gbs[0][0] * 1e9;
      const double expected = std::min(cap, bus * ratio);
      EXPECT_NEAR(c.bus_bw[0].value, expected, expected * 1e-9)
          << release << ": "
          << closed(half ? "min(llMaxBw, busBw x 1/2)"
                         : op == CollectiveOp::AllReduce ? "min(llMaxBw, busBw x 1/4)" : "min(llMaxBw, busBw x 1/3)",
                    expected, c.bus_bw[0].value);
      EXPECT_GE(c.wire_factor[0], 2.0) << "the simulation moves LL at the wire's 2 bytes per data byte";
    }
    // Either way LL loses large messages: at 64 MiB the time model picks Simple.
    EXPECT_EQ(plan_collective(p, CollectiveOp::AllReduce, topo.gpus(), Bytes{64.0 * 1024 * 1024}, o).protocol,
              Protocol::Simple)
        << release;
  }
}

/// NCCL compares ring and tree on the same bus bandwidth (channels x the slowest hop). At 512 DGX-1
/// nodes (4,096 GPUs) the tree's latency advantage (a few hundred microseconds against a ring of 8,190
/// steps) outweighs its 8 % bandwidth handicap at every nccl-tests size up to 1 GiB; comparing a tree
/// on one hop with a ring on all its channels used to switch to the ring at 128 MiB and drop busbw.
TEST(BenchProtocols, TreeStaysChosenForLargeMessagesAtScale) {
  const std::string path = std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/dgx1-v100.json";
  const Platform p(topology::read_layout(path, 512), calibration::default_cost_model());
  for (double S : {64.0 * 1024 * 1024, 128.0 * 1024 * 1024, 1024.0 * 1024 * 1024}) {
    const CollectivePlan plan = plan_collective(p, CollectiveOp::AllReduce, p.topology().gpus(), Bytes{S});
    EXPECT_EQ(plan.algorithm, Algorithm::Tree) << "size " << S;
  }
}

/// Simulated: at each size the chosen protocol is not slower than the others by more than the model's
/// slack (the choice uses NCCL's analytic model, the simulation adds link latencies and contention).
TEST(BenchProtocols, SimulatedChoiceIsNeverMuchWorse) {
  const Platform p(layout_from_text(testing::kEightOnNvswitch), calibration::default_cost_model());
  for (double S : {8.0, 64.0 * 1024, 4.0 * 1024 * 1024, 256.0 * 1024 * 1024}) {
    const Outcome chosen = run(p, CollectiveOp::AllReduce, S, PlanModel::Step);
    for (Protocol proto : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
      CollectiveOptions o;
      o.protocol = proto;
      const Outcome other = run(p, CollectiveOp::AllReduce, S, PlanModel::Step, {}, o);
      EXPECT_LE(chosen.seconds, other.seconds * 1.10)
          << "size " << S << ": " << to_string(chosen.plan.protocol) << " " << chosen.seconds << " s vs "
          << to_string(proto) << " " << other.seconds << " s";
    }
  }
}

}  // namespace
}  // namespace rigsim::model
