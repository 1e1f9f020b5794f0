// `rigsim sweep` and `sweep-merge` (issue 7): the slices of --shard K/N partition the plan list, merging
// them gives the whole sweep byte for byte, plans that fit rank first by tokens/s, plans that do not fit
// are never simulated, and malformed --shard values and merge inputs are InputErrors that say why.
#include "report/sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/engine/training_fixture.hpp"
#include "workloads/plans.hpp"

namespace rigsim::report {
namespace {

using model::testing::model_named;
using model::testing::rig_3090;
using model::testing::scenario_of;

// GPT-2 1.5B with mixed-precision AdamW on two 24 GB RTX 3090s: 16 B/param is 24 GiB of weights,
// gradients and states unsharded, so some plans do not fit while sharded or offloaded ones do.
const char* kScenario = R"({"name": "sweep-test", "model": "gpt2-1.5b", "global_batch": 16, "micro_batch": 1,
  "seq_len": 1024, "dtype": "bf16", "optimizer": "adamw", "parallel": {"dp": 2}})";

const model::Platform& platform() {
  static const model::Platform p(topology::testing::layout_from_text(rig_3090(2, 16)),
                                 calibration::default_cost_model());
  return p;
}

Sweep sweep_of(const Shard& shard, const model::Executor& execute = engine::run) {
  const workloads::Scenario s = scenario_of(kScenario);
  return run_sweep(platform(), s, model_named(s.model), shard, execute);
}

const Sweep& full() {
  static const Sweep s = sweep_of({1, 1});
  return s;
}

/// The three slices of the sweep, each written as JSON and read back, as sweep-merge gets them.
const std::vector<Sweep>& thirds() {
  static const std::vector<Sweep> slices = [] {
    std::vector<Sweep> out;
    for (int k = 1; k <= 3; ++k) {
      const std::string text = sweep_json(sweep_of({k, 3})).dump(2);
      out.push_back(sweep_from_json(nlohmann::json::parse(text), "slice" + std::to_string(k) + ".json"));
    }
    return out;
  }();
  return slices;
}

const std::vector<std::string> kFiles{"slice1.json", "slice2.json", "slice3.json"};

template <typename F>
std::string input_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

TEST(Sweep, SlicesPartitionThePlanList) {
  const workloads::Scenario s = scenario_of(kScenario);
  const auto plans = workloads::enumerate_plans(model_named(s.model), 2, s);
  ASSERT_GT(plans.size(), 3u);
  std::vector<int> seen;
  for (const Sweep& slice : thirds()) {
    EXPECT_EQ(slice.header.total_plans, static_cast<int>(plans.size()));
    const auto size = static_cast<double>(slice.rows.size());
    EXPECT_NEAR(size, static_cast<double>(plans.size()) / 3, 1.0)
        << "round robin: slices differ by one plan at most";
    for (const SweepRow& r : slice.rows) {
      EXPECT_EQ(r.plan, plans[static_cast<std::size_t>(r.index)]) << "row " << r.index << " is its plan";
      seen.push_back(r.index);
    }
  }
  std::sort(seen.begin(), seen.end());
  std::vector<int> every(plans.size());
  std::iota(every.begin(), every.end(), 0);
  EXPECT_EQ(seen, every) << "every enumerated plan appears in exactly one slice";
}

TEST(Sweep, MergedSlicesAreTheFullSweepByteForByte) {
  const Sweep merged = sweep_merge(thirds(), kFiles);
  EXPECT_EQ(sweep_json(merged).dump(2), sweep_json(full()).dump(2));
  for (int top : {1, 5, 1000}) EXPECT_EQ(sweep_text(merged, top), sweep_text(full(), top)) << "--top " << top;
}

TEST(Sweep, SameInputsGiveIdenticalOutput) {
  EXPECT_EQ(sweep_json(sweep_of({2, 3})).dump(), sweep_json(sweep_of({2, 3})).dump());
}

TEST(Sweep, FittingPlansRankFirstByTokensPerSecond) {
  const auto& rows = full().rows;
  const auto first_misfit = std::find_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.fits; });
  ASSERT_NE(first_misfit, rows.begin()) << "some plan fits two 24 GB cards";
  ASSERT_NE(first_misfit, rows.end()) << "unsharded AdamW states of 1.5B parameters do not fit 24 GB";
  EXPECT_TRUE(std::none_of(first_misfit, rows.end(), [](const SweepRow& r) { return r.fits; }));
  for (auto it = rows.begin(); it + 1 < first_misfit; ++it)
    EXPECT_GE(std::llround(it->times->tokens_per_s), std::llround((it + 1)->times->tokens_per_s))
        << "whole tokens/s as the table shows them; " << workloads::describe((it + 1)->plan);
  for (auto it = first_misfit; it + 1 < rows.end(); ++it)
    EXPECT_LE(std::llround(it->memory.short_gib * 10), std::llround((it + 1)->memory.short_gib * 10))
        << "the closest to fitting first";
  EXPECT_GT(first_misfit->memory.short_gib, 0.0);
}

TEST(Sweep, OnlyPlansThatFitAreSimulated) {
  int runs = 0;
  const model::Executor counting = [&runs](const model::Platform& p,
                                           const std::vector<model::Transfer>& tasks,
                                           const topology::P2pPolicy& policy) {
    ++runs;
    return engine::run(p, tasks, policy);
  };
  const Sweep sw = sweep_of({1, 2}, counting);
  const auto fitting =
      std::count_if(sw.rows.begin(), sw.rows.end(), [](const SweepRow& r) { return r.fits; });
  EXPECT_EQ(runs, fitting);
  for (const SweepRow& r : sw.rows) EXPECT_EQ(r.times.has_value(), r.fits) << workloads::describe(r.plan);
}

TEST(Sweep, RankSortsRowsByValueWithTiesByMemoryThenIndex) {
  const auto row = [](int index, std::optional<double> tokens, double short_gib, double gib = 10) {
    SweepRow r;
    r.index = index;
    r.fits = tokens.has_value();
    r.memory.short_gib = short_gib;
    r.memory.total = gib;
    if (tokens) {
      r.times.emplace();
      r.times->tokens_per_s = *tokens;
    }
    return r;
  };
  std::vector<SweepRow> rows{row(0, std::nullopt, 2.0), row(1, 100.0, 0), row(2, std::nullopt, 0.5),
                             row(3, 300.0, 0),          row(4, 100.2, 0), row(5, 100.0, 0, 5)};
  sweep_rank(rows);
  std::vector<int> order;
  for (const SweepRow& r : rows) order.push_back(r.index);
  EXPECT_EQ(order, (std::vector<int>{3, 5, 1, 4, 2, 0}))
      << "fitting by tokens/s; equal tokens/s: less memory, then plan index; then the closest to fitting";
}

TEST(Sweep, ShardStrings) {
  EXPECT_EQ(parse_shard("1/1").str(), "1/1");
  const Shard s = parse_shard("3/8");
  EXPECT_TRUE(s.holds(2) && s.holds(10) && !s.holds(3));
  for (const char* bad :
       {"3/2", "0/4", "a/b", "1/0", "", "2", "1/", "/2", "-1/2", " 1/2", "1/2x", "1/2/3", "9999999/9999999"})
    EXPECT_NE(input_error_of([bad] { parse_shard(bad); }).find("expected K/N"), std::string::npos) << bad;
}

TEST(Sweep, MergeSaysWhichSliceIsMissingDuplicatedOrForeign) {
  const auto& t = thirds();
  EXPECT_NE(input_error_of([&] {
              sweep_merge({t[0], t[1]}, {kFiles[0], kFiles[1]});
            }).find("missing slice(s) 3/3"),
            std::string::npos);
  const std::string twice = input_error_of([&] {
    sweep_merge({t[0], t[1], t[1], t[2]}, {"a", "b", "c", "d"});
  });
  EXPECT_NE(twice.find("c: /shard: slice 2/3 appears twice"), std::string::npos) << twice;
  Sweep foreign = t[1];
  foreign.header.scenario = "another";
  const std::string other = input_error_of([&] { sweep_merge({t[0], foreign, t[2]}, kFiles); });
  EXPECT_NE(other.find("slice2.json: belongs to another sweep: its scenario"), std::string::npos) << other;
  Sweep truncated = t[2];
  truncated.rows.pop_back();
  EXPECT_NE(input_error_of([&] {
              sweep_merge({t[0], t[1], truncated}, kFiles);
            }).find("slice 3/3 holds"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { sweep_merge({}, {}); }).find("got none"), std::string::npos);
}

TEST(Sweep, ReadingJsonIsStrict) {
  EXPECT_NE(input_error_of([] {
              sweep_from_json(nlohmann::json{{"a", 1}}, "x.json");
            }).find("not the JSON of a sweep"),
            std::string::npos);
  nlohmann::json doc = nlohmann::json::parse(sweep_json(thirds()[0]).dump());
  doc["plans"][0]["tokens"] = 1;
  EXPECT_NE(input_error_of([&] { sweep_from_json(doc, "x.json"); }).find("/plans/0/tokens"),
            std::string::npos);
  doc = nlohmann::json::parse(sweep_json(thirds()[0]).dump());
  doc["plans"][0]["index"] = 1;  // plan 1 belongs to slice 2/3
  EXPECT_NE(input_error_of([&] { sweep_from_json(doc, "x.json"); }).find("not in slice 1/3"),
            std::string::npos);
}

TEST(Sweep, WhyNamesTheWinnerAndTheRunnerUp) {
  const auto why = sweep_why(full());
  ASSERT_GE(why.size(), 2u);
  EXPECT_NE(why[0].find(workloads::describe(full().rows[0].plan) + " ("), std::string::npos) << why[0];
  EXPECT_NE(why[1].find("The runner-up, " + workloads::describe(full().rows[1].plan)), std::string::npos)
      << why[1];
}

}  // namespace
}  // namespace rigsim::report
