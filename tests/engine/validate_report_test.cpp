// The A/B pairs of `rigsim validate`: a pair holds when the prediction moves from a to b the way the
// measurement does; a prediction that does not move (within kPairEqual) holds only for a measurement
// that does not move either.
#include <gtest/gtest.h>

#include "report/validate.hpp"

namespace rigsim::report {
namespace {

model::PointCheck point(const std::string& id, double measured, double predicted) {
  model::PointCheck c;
  c.id = id;
  c.category = "staged";
  c.metric = "bandwidth";
  c.unit = "GB/s";
  c.measured = measured;
  c.predicted = predicted;
  return c;
}

ValidatedFile file() {
  ValidatedFile f;
  f.file = "pairs.json";
  f.checks = {point("uma", 3.32, 6.46), point("numa", 5.55, 6.46), point("off", 6.0, 6.4),
              point("on", 24.0, 25.0),  point("same", 10.0, 10.0), point("same2", 10.0, 10.0)};
  f.pairs = {{"uma", "numa", "memory mode"},
             {"off", "on", "P2P"},
             {"on", "off", "P2P, the other way round"},
             {"same", "same2", "nothing that matters"},
             {"uma", "gone", "a point of a series left out"}};
  return f;
}

TEST(ValidatePairs, DirectionOfThePredictionAgainstTheMeasurement) {
  const std::vector<PairCheck> pairs = pair_checks({file()});
  ASSERT_EQ(pairs.size(), 4u) << "the pair naming an unchecked point is skipped";
  // UMA 3.32 vs NUMA 5.55 measured (x0.598); both predicted 6.46 (x1.000): no change, so it fails.
  EXPECT_NEAR(pairs[0].measured, 3.32 / 5.55, 1e-12);
  EXPECT_DOUBLE_EQ(pairs[0].predicted, 1.0);
  EXPECT_FALSE(pairs[0].holds);
  // 6.0 / 24.0 = x0.25 measured, 6.4 / 25.0 = x0.256 predicted: same side of 1, both orders.
  EXPECT_TRUE(pairs[1].holds);
  EXPECT_TRUE(pairs[2].holds);
  EXPECT_NEAR(pairs[2].predicted, 25.0 / 6.4, 1e-12);
  // Equal measured, equal predicted.
  EXPECT_TRUE(pairs[3].holds);
}

TEST(ValidatePairs, APredictionThatBarelyMovesCountsAsNoChange) {
  ValidatedFile f = file();
  f.checks[1].predicted = 6.46 * (1 + kPairEqual / 2);  // x0.9995: within kPairEqual of 1
  EXPECT_FALSE(pair_checks({f})[0].holds);
  f.checks[1].predicted = 6.46 * (1 + 2 * kPairEqual);  // x0.998: moves the measured way
  EXPECT_TRUE(pair_checks({f})[0].holds);
  f.checks[1].predicted = 6.46 * (1 - 2 * kPairEqual);  // x1.002: moves the other way
  EXPECT_FALSE(pair_checks({f})[0].holds);
}

TEST(ValidatePairs, TheTextReportCountsAndNamesThem) {
  const std::string text = validate_text({file()}, "built-in defaults");
  EXPECT_NE(
      text.find(
          "A/B pairs (one rig, one setting changed), a / b: 3 of 4 predicted in the measured direction"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("WRONG uma vs numa (memory mode): measured x0.598, predicted x1.000 (no change)"),
            std::string::npos)
      << text;
  const nlohmann::json j = validate_json({file()}, "built-in defaults");
  ASSERT_EQ(j["pairs"].size(), 4u);
  EXPECT_EQ(j["pairs"][1]["holds"], true);
}

TEST(ValidateCategories, CountsPointsWithinTenPercentAndWithinAFactorOf125) {
  // Ratios 6.46/3.32 = 1.95, 6.46/5.55 = 1.164, 6.4/6 = 1.067, 25/24 = 1.042, 1, 1: four within 10 %,
  // five within x1.25; 0.8 (= 1/1.25) counts as within x1.25, 0.79 does not.
  ValidatedFile f = file();
  auto cats = category_errors({f});
  ASSERT_EQ(cats.back().category, "all");
  EXPECT_EQ(cats.back().points, 6u);
  EXPECT_EQ(cats.back().within_10, 4u);
  EXPECT_EQ(cats.back().within_x125, 5u);
  f.checks[0].predicted = 0.8 * f.checks[0].measured;
  EXPECT_EQ(category_errors({f}).back().within_x125, 6u);
  f.checks[0].predicted = 0.79 * f.checks[0].measured;
  EXPECT_EQ(category_errors({f}).back().within_x125, 5u);
}

}  // namespace
}  // namespace rigsim::report
