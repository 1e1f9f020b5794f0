// What one NCCL channel's thread block moves (CostModel::nccl_block_gbs, DECISIONS "A Blackwell NCCL
// block moves 21.7 GB/s"): within one server over NVLink, a Simple ring, chain or send moves at most
// NCCL's channels x the block rate, where the GPU generation has a measured figure; elsewhere a block
// carries NCCL's share of the links, which the links bound already.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/input.hpp"
#include "engine/executor.hpp"
#include "model/bench.hpp"
#include "tests/fidelity/fidelity_fixture.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::model {
namespace {

using testing::expect_closed_form;
using testing::kGiB;

Platform catalog(const std::string& name) {
  return Platform(
      topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/" + name + ".json"),
      calibration::default_cost_model());
}

/// busbw (GB/s) of one nccl-tests row of `op` at `bytes` on every GPU, one process per GPU (no host
/// floor), with NCCL_MAX_NCHANNELS `max_channels` (32: unset).
double busbw(const Platform& p, CollectiveOp op, double bytes, int max_channels = 32) {
  BenchOptions o;
  o.op = op;
  const auto b = static_cast<std::uint64_t>(bytes);
  o.sweep = {b, b, 2, 0};
  o.gpus_per_thread = 1;
  o.collective.nccl_max_channels = max_channels;
  o.collective.nvls_enable = false;  // the ring, as NCCL_NVLS_ENABLE=0
  return run_bench(p, engine::run, o).rows.at(0).row.busbw;
}

constexpr double kBlackwellBlock = 695.0 / 32;  // GB/s, NVIDIA/nccl#2140 over NCCL's 32 channels

TEST(BlockRate, BlackwellRingsMoveChannelsTimesTheBlockRate) {
  // 8x B200, ring all_reduce 16 GiB: the links carry 18 x 50 x 0.802 = 721.8 GB/s, NCCL runs 32 channels;
  // busbw = min(links, 32 x 21.72) = 695.0 GB/s (the latency term is 56 us of 43 ms).
  const Platform p = catalog("hgx-b200");
  ASSERT_DOUBLE_EQ(p.cost_model().nccl_block_gbs[3], kBlackwellBlock);
  const double links = 18 * 50 * p.cost_model().nvlink_sxm_efficiency[4];
  ASSERT_GT(links, 32 * kBlackwellBlock) << "the blocks, not the links, bind";
  const double s = 16.0 * kGiB;
  expect_closed_form("32 x 695/32 GB/s", 32 * kBlackwellBlock, busbw(p, CollectiveOp::AllReduce, s), "GB/s");
  expect_closed_form("32 x 695/32 GB/s (all_gather)", 32 * kBlackwellBlock,
                     busbw(p, CollectiveOp::AllGather, s), "GB/s");
  // A broadcast chain pipelines its chunks, (M + n - 2) / M of one pass, with or without the blocks: the
  // blocks scale it by 32 x 21.72 / 721.8.
  calibration::CostModel open = p.cost_model();
  open.nccl_block_gbs[3] = 0;
  const Platform unbound(p.topology(), open);
  expect_closed_form("broadcast: (32 x 695/32) / 721.8 of the links' chain",
                     busbw(unbound, CollectiveOp::Broadcast, s) * 32 * kBlackwellBlock / links,
                     busbw(p, CollectiveOp::Broadcast, s), "GB/s");
}

TEST(BlockRate, FewerChannelsMoveProportionallyLessOnBlackwellButNotOnHopper) {
  // NCCL_MAX_NCHANNELS=16 on 8x B200: 16 x 21.72 = 347.5 GB/s, half the default; on 8x H100, which has
  // no measured block rate, the links still bind (NCCL's share: 370.8 / 24 per block).
  const double s = 16.0 * kGiB;
  const Platform b200 = catalog("hgx-b200");
  expect_closed_form("16 x 695/32 GB/s", 16 * kBlackwellBlock, busbw(b200, CollectiveOp::AllReduce, s, 16),
                     "GB/s");
  const Platform h100 = catalog("hgx-h100");
  ASSERT_EQ(h100.cost_model().nccl_block_gbs[2], 0.0);
  const double all = busbw(h100, CollectiveOp::AllReduce, s);
  expect_closed_form("H100, 16 channels: the links", all, busbw(h100, CollectiveOp::AllReduce, s, 16),
                     "GB/s");
  // More channels are never slower.
  double last = 0;
  for (int ch : {4, 8, 16, 24, 32}) {
    const double bw = busbw(b200, CollectiveOp::AllReduce, s, ch);
    EXPECT_GE(bw, last * 0.999) << ch << " channels";
    last = bw;
  }
}

TEST(BlockRate, BlackwellSendsUseTheMeasuredBlockRate) {
  // sendrecv on 8x B200 at 256 MiB: NCCL splits each send over 16 channels (2.30's p2p rule), so
  // busbw = 16 x 21.72 = 347.5 GB/s (NCCL's share would give 16 x 22.56 = 360.9).
  const Platform p = catalog("hgx-b200");
  BenchOptions o;
  o.op = CollectiveOp::SendRecv;
  o.sweep = {256ull << 20, 256ull << 20, 2, 0};
  o.gpus_per_thread = 1;
  const BenchResult r = run_bench(p, engine::run, o);
  ASSERT_EQ(r.largest.p2p_op_channels, 16);
  EXPECT_DOUBLE_EQ(r.largest.p2p_cta_gbs, kBlackwellBlock);
  // The latency term (about 12 us of 770 us) keeps the row a little under the rate.
  const double rate = 16 * kBlackwellBlock;
  EXPECT_LE(r.rows[0].row.busbw, rate * 1.001);
  EXPECT_GE(r.rows[0].row.busbw, rate * 0.97) << "expected about 16 x 695/32 = " << rate << " GB/s";
}

TEST(BlockRate, TheBlockIsTheGpusNotTheLinksSoPcieRingsHaveItToo) {
  // Two RTX 5090 (Blackwell) with the P2P driver on Gen5 x16 root ports of one EPYC 9005, NCCL_P2P_LEVEL
  // SYS: a P2P ring over PCIe, whose links move about 53 GB/s of a kernel's 128-byte stores. With
  // NCCL_MAX_NCHANNELS=2 the ring's two blocks carry 2 x 21.72 = 43.4 GB/s, less: busbw = 43.4 at 1 GiB.
  // With 4 channels the links bind, as they do without the block figure.
  calibration::CostModel open = calibration::default_cost_model();
  open.nccl_block_gbs[3] = 0;
  const std::string layout = fidelity::pair_layout("rtx-5090", "epyc-9005", 5, 1, true);
  const Platform p = testing::platform_of(layout);
  const Platform unbound = testing::platform_of(layout, open);
  const auto ring = [](const Platform& on, int channels) {
    BenchOptions o;
    o.op = CollectiveOp::AllReduce;
    o.sweep = {1ull << 30, 1ull << 30, 2, 0};
    o.gpus_per_thread = 1;
    o.collective.nccl_max_channels = channels;
    o.collective.p2p.level = topology::PathClass::SYS;
    const BenchResult r = run_bench(on, engine::run, o);
    EXPECT_EQ(r.largest.algorithm, Algorithm::Ring);
    EXPECT_EQ(r.largest.connections.at(0).transport, Transport::P2p);
    return r.rows.at(0).row.busbw;
  };
  const double links = ring(unbound, 2);
  ASSERT_LT(2 * kBlackwellBlock, links) << "the two blocks, not the links, bind";
  expect_closed_form("2 x 695/32 GB/s over PCIe", 2 * kBlackwellBlock, ring(p, 2), "GB/s");
  expect_closed_form("4 channels: the links", ring(unbound, 4), ring(p, 4), "GB/s");
}

TEST(BlockRate, AProfileMaySetOrClearIt) {
  // A measured rig's profile can give any generation a block rate, or take Blackwell's away (0: none).
  const calibration::CostModel m =
      calibration::apply_overrides(calibration::default_cost_model(),
                                   nlohmann::json::parse(R"({"nccl_block_gbs": [0, 0, 10.0, 0]})"), "p.json");
  EXPECT_EQ(m.nccl_block_gbs[2], 10.0);
  EXPECT_EQ(m.nccl_block_gbs[3], 0.0);
  EXPECT_THROW(
      calibration::apply_overrides(calibration::default_cost_model(),
                                   nlohmann::json::parse(R"({"nccl_block_gbs": [0, 0, -1, 0]})"), "p.json"),
      InputError);
  // Blackwell without the figure: its rings fill the links again (721.8 GB/s at 16 GiB).
  const Platform p(topology::read_layout(std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/hgx-b200.json"),
                   m);
  EXPECT_GT(busbw(p, CollectiveOp::AllReduce, 16.0 * kGiB), 32 * kBlackwellBlock * 1.02);
}

}  // namespace
}  // namespace rigsim::model
