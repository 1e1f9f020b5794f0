// nccl-tests arithmetic and output: sizes as its parser reads them, the size/count columns, busbw
// factors, getFloatStr-style numbers, and rows and headers that line up with real nccl-tests logs
// (../shared/data/nccl-tests/).
#include "model/nccl_tests.hpp"

#include <gtest/gtest.h>

#include "common/input.hpp"

namespace rigsim::model::nccl_tests {
namespace {

TEST(NcclTestsSizes, ParseLikeParsesize) {
  EXPECT_EQ(parse_size("8", "-b"), 8u);
  EXPECT_EQ(parse_size("64K", "-b"), 65536u);
  EXPECT_EQ(parse_size("128M", "-e"), 134217728u);
  EXPECT_EQ(parse_size("1G", "-e"), 1073741824u);
  EXPECT_EQ(parse_size("1g", "-e"), 1073741824u);
  EXPECT_EQ(parse_size("1.5M", "-e"), 1572864u);
  EXPECT_EQ(parse_size("128MiB", "-e"), 134217728u);
  EXPECT_EQ(parse_size("1024G", "-e"), std::uint64_t{1} << 40) << "2^40 itself is accepted";
  // A fraction of a byte is refused ("-b 1.5"); a fractional size with a unit is fine when whole.
  for (const char* bad : {"", "abc", "-1", "12X", "1T", "1025G", "nan", "inf", "1e300", "1.5", "0.1K"})
    EXPECT_THROW(parse_size(bad, "-e"), InputError) << bad;
}

TEST(NcclTestsSizes, ErrorNamesTheOptionAndTheRule) {
  try {
    parse_size("lots", "-e");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.location(), "-e");
    EXPECT_NE(std::string(e.what()).find("128M"), std::string::npos) << e.what();
  }
}

TEST(NcclTestsSizes, SweepByFactorAndByStep) {
  const auto f = sweep_sizes({8, 128ull << 20, 2, 0});
  ASSERT_EQ(f.size(), 25u) << "8 B ... 128 MiB by factor 2";
  EXPECT_EQ(f.front(), 8u);
  EXPECT_EQ(f.back(), 128ull << 20);
  const auto i = sweep_sizes({1 << 20, 4 << 20, 1, 1 << 20});
  EXPECT_EQ(i, (std::vector<std::uint64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
  EXPECT_THROW(sweep_sizes({16, 8, 2, 0}), InputError) << "min above max";
  EXPECT_THROW(sweep_sizes({0, 8, 2, 0}), InputError) << "0 x factor never grows";
  EXPECT_THROW(sweep_sizes({8, 1 << 20, 1, 0}), InputError) << "no step";
  EXPECT_THROW(sweep_sizes({1, 1 << 30, 1, 1}), InputError) << "too many sizes";
}

TEST(NcclTestsSizes, ShardedOpsRoundThePerRankCountToSixteenBytes) {
  // autodl-2x2080ti-all_gather-nop2p.txt: requested 8 and 16 print size 0; 32 prints 32 / count 4.
  EXPECT_EQ(sizes_for(CollectiveOp::AllGather, 8, 2).size, 0u);
  EXPECT_EQ(sizes_for(CollectiveOp::AllGather, 16, 2).size, 0u);
  EXPECT_EQ(sizes_for(CollectiveOp::AllGather, 32, 2).size, 32u);
  EXPECT_EQ(sizes_for(CollectiveOp::AllGather, 32, 2).count, 4u);
  EXPECT_EQ(sizes_for(CollectiveOp::AllToAll, 1073741824, 2).count, 134217728u);
  EXPECT_EQ(sizes_for(CollectiveOp::ReduceScatter, 1000, 3).size, 960u) << "83 floats per rank -> 80";
  EXPECT_EQ(sizes_for(CollectiveOp::AllReduce, 8, 8).size, 8u);
  EXPECT_EQ(sizes_for(CollectiveOp::AllReduce, 8, 8).count, 2u);
  EXPECT_EQ(sizes_for(CollectiveOp::AllReduce, 7, 8).size, 4u) << "whole floats only";
}

TEST(NcclTestsBandwidth, BusbwFactors) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::ReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllToAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::Reduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::SendRecv, 8), 1.0);
}

TEST(NcclTestsBandwidth, RowFromTimeMatchesALoggedRow) {
  // galvatron-8xa100: 1073741824 B in 8139.9 us -> algbw 131.91, busbw 230.84.
  const Row r = make_row(CollectiveOp::AllReduce, 8, sizes_for(CollectiveOp::AllReduce, 1073741824, 8),
                         microseconds(8139.9), 0);
  EXPECT_EQ(r.count, 268435456u);
  EXPECT_EQ(r.root, -1);
  EXPECT_NEAR(r.algbw, 131.91, 0.005);
  EXPECT_NEAR(r.busbw, 230.84, 0.005);
  EXPECT_EQ(make_row(CollectiveOp::Broadcast, 8, {8, 2}, microseconds(5), 3).root, 3);
  EXPECT_EQ(make_row(CollectiveOp::AllGather, 2, {0, 0}, Seconds{0}, 0).algbw, 0.0) << "size 0: no division";
}

TEST(NcclTestsFormat, FloatStrFitsTheWidth) {
  EXPECT_EQ(float_str(78.77, 7), "  78.77");
  EXPECT_EQ(float_str(0.33, 7), "   0.33");
  EXPECT_EQ(float_str(1256.7, 7), "1256.70");
  EXPECT_EQ(float_str(10390, 7), "10390.0");
  EXPECT_EQ(float_str(141614, 7), " 141614");
  EXPECT_EQ(float_str(12345678, 7), "1.2e+07");
  EXPECT_EQ(float_str(230.84, 6), "230.84");
  EXPECT_EQ(float_str(1234.5, 6), "1234.5");
  EXPECT_EQ(float_str(123456, 6), "123456");
  EXPECT_EQ(float_str(0, 6), "  0.00");
}

TEST(NcclTestsFormat, RowAndHeaderLineUpWithARealLog) {
  // The key columns and the first placement of a row of galvatron-8xa100-sxm4-40gb-all_reduce-nvswitch.txt.
  Row r{1048576, 262144, -1, 78.77, 13.31, 23.29};
  const std::string line = row_line(CollectiveOp::AllReduce, r);
  EXPECT_EQ(line.substr(0, 93),
            "     1048576        262144     float     sum      -1    78.77   13.31   23.29    N/A    78.77");
  EXPECT_EQ(line.back(), '\n');
  const std::string h = header();
  EXPECT_EQ(h.substr(0, 2), "#\n");
  EXPECT_NE(h.find("#       size         count      type   redop    root     time   algbw   busbw  #wrong"),
            std::string::npos);
  EXPECT_NE(h.find("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"),
            std::string::npos);
  EXPECT_NE(h.find("out-of-place                       in-place"), std::string::npos);
}

TEST(NcclTestsFormat, FooterAsNcclTestsPrintsIt) {
  EXPECT_EQ(footer(CollectiveOp::AllReduce, 130.613),
            "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 130.613 \n#\n"
            "# Collective test concluded: all_reduce_perf\n");
  EXPECT_EQ(redop(CollectiveOp::AllGather), "none");
  EXPECT_EQ(redop(CollectiveOp::Reduce), "sum");
}

}  // namespace
}  // namespace rigsim::model::nccl_tests
