// The A/B pairs of `rigsim validate`: a pair holds when the prediction moves from a to b the way the
// measurement does; a prediction that does not move (within kPairEqual) holds only for a measurement
// that does not move either.
#include <gtest/gtest.h>

#include "common/input.hpp"
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

TEST(ValidateFiles, EachFileIsSummarisedWithItsPairs) {
  // file(): ratios 1.95, 1.164, 1.067, 1.042, 1, 1 (four within 10 %, median (1.042 + 1.067) / 2 - 1),
  // pairs 3 of 4; a second file of one point at x0.5 and no pairs.
  ValidatedFile g;
  g.file = "dir/other.json";
  g.checks = {point("half", 10.0, 5.0)};
  const std::vector<FileError> rows = file_errors({file(), g});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].error.category, "pairs.json");
  EXPECT_EQ(rows[0].error.points, 6u);
  EXPECT_EQ(rows[0].error.within_10, 4u);
  EXPECT_NEAR(rows[0].error.median_abs, (25.0 / 24 - 1 + 6.4 / 6 - 1) / 2, 1e-12);
  EXPECT_EQ(rows[0].pairs, 4u);
  EXPECT_EQ(rows[0].pairs_holding, 3u);
  EXPECT_EQ(rows[1].error.within_10, 0u);
  EXPECT_NEAR(rows[1].error.max_abs, 0.5, 1e-12);
  EXPECT_EQ(rows[1].pairs, 0u);
  const std::string text = validate_text({file(), g}, "built-in defaults");
  EXPECT_NE(text.find("Error per file"), std::string::npos) << text;
  EXPECT_NE(text.find("other.json"), std::string::npos) << text;
  EXPECT_NE(text.find("    3/4"), std::string::npos) << text;
  EXPECT_EQ(validate_text({file()}, "built-in defaults").find("Error per file"), std::string::npos)
      << "one file: the category table already says it";
  const nlohmann::json j = validate_json({file(), g}, "built-in defaults");
  ASSERT_EQ(j["by_file"].size(), 2u);
  EXPECT_EQ(j["by_file"][1]["file"], "dir/other.json");
  EXPECT_EQ(j["by_file"][0]["pairs_holding"], 3);
}

}  // namespace
}  // namespace rigsim::report

namespace rigsim::report {
namespace {

TEST(ValidateBaseline, NamesThePointsWhoseErrorMovedAndTheTotalsBeforeAndAfter) {
  const ValidatedFile before = file();
  const Baseline b = read_baseline(validate_json({before}, "built-in defaults"), "old.json");
  EXPECT_EQ(b.errors.size(), 6u);
  EXPECT_EQ(b.totals.within_10, 4u);  // as ValidateCategories counts them
  EXPECT_EQ(b.totals.pairs_holding, 3u);
  EXPECT_TRUE(moved_points({before}, b).empty()) << "the same report moves nothing";

  ValidatedFile after = before;
  after.checks[0].predicted = 3.5;           // uma: 6.46 / 3.32 - 1 = +94.6 % -> 3.5 / 3.32 - 1 = +5.4 %
  after.checks[2].predicted = 6.4 * 1.0001;  // off: +6.67 % either way as printed: not moved
  const std::vector<MovedPoint> moved = moved_points({after}, b);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].point, "uma");
  ASSERT_TRUE(moved[0].before.has_value());
  EXPECT_NEAR(*moved[0].before, 6.46 / 3.32 - 1, 1e-12);
  EXPECT_NEAR(moved[0].after, 3.5 / 3.32 - 1, 1e-12);
  // uma now within 10 %: 5 of 6; its pair with numa (measured x0.598) now predicted 3.5 / 6.46 = x0.542.
  const std::string text = baseline_text({after}, b);
  EXPECT_NE(text.find("Against the baseline old.json: 1 of 6 points moved"), std::string::npos) << text;
  EXPECT_NE(text.find("within 10 % 4 of 6 -> 5 of 6, A/B pairs holding 3 of 4 -> 4 of 4"), std::string::npos)
      << text;
  EXPECT_NE(text.find("+94.6% ->    +5.4%"), std::string::npos) << text;
  EXPECT_EQ(baseline_json({after}, b)["within_10_percent"]["after"], 5);
}

TEST(ValidateBaseline, APointTheBaselineLacksIsNew) {
  ValidatedFile f = file();
  const Baseline b = read_baseline(validate_json({f}, "built-in defaults"), "old.json");
  f.checks.push_back(point("added", 1.0, 1.2));
  const std::vector<MovedPoint> moved = moved_points({f}, b);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_FALSE(moved[0].before.has_value());
  EXPECT_NE(baseline_text({f}, b).find("new ->   +20.0%"), std::string::npos) << baseline_text({f}, b);
}

TEST(ValidateBaseline, ANonReportIsRejectedWithTheJsonPointer) {
  try {
    read_baseline(nlohmann::json::parse(R"({"files":[{"file":"x","points":[{"error":"big"}]}]})"),
                  "old.json");
    FAIL() << "accepted a string error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "old.json");
    EXPECT_EQ(e.location(), "/files/0/points/0/error");
  }
  EXPECT_THROW(read_baseline(nlohmann::json::parse(R"({"schema":"rigsim-measurements/1"})"), "m.json"),
               InputError);
}

}  // namespace
}  // namespace rigsim::report
