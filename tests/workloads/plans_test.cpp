// Plan enumeration for sweep: valid, deterministic, complete for a small case.
#include "workloads/plans.hpp"

#include <gtest/gtest.h>

#include <set>

#include "tests/workloads/fixture.hpp"

namespace rigsim::workloads {
namespace {

using testing::builtin;

Scenario base_scenario(int global_batch) {
  Scenario s;
  s.global_batch = global_batch;
  s.micro_batch = 1;
  s.seq_len = 1024;
  return s;
}

TEST(Plans, EveryPlanValidatesAndIsUnique) {
  const ModelConfig m = builtin("llama-2-13b");
  const Scenario base = base_scenario(64);
  const auto plans = enumerate_plans(m, 8, base);
  std::set<std::string> seen;
  for (const ParallelPlan& p : plans) {
    EXPECT_NO_THROW(validate(with_plan(base, p, 8), m, 8)) << describe(p);
    EXPECT_TRUE(seen.insert(describe(p)).second) << "duplicate " << describe(p);
    EXPECT_EQ(p.world(), 8);
  }
}

TEST(Plans, OrderIsDeterministic) {
  const ModelConfig m = builtin("llama-2-13b");
  const auto a = enumerate_plans(m, 8, base_scenario(64));
  const auto b = enumerate_plans(m, 8, base_scenario(64));
  EXPECT_EQ(a, b);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(describe(a.front()), "dp8 tp1 pp1");
}

TEST(Plans, CountsForLlama13bOnEightGpus) {
  // tp ∈ {1,2,4,8} (40 heads: all divide), pp | 8/tp, dp = 8/(tp·pp). Per shape with dp > 1 and pp = 1:
  // (1 + 2 + 2 + 3 offload choices over ZeRO 0..3) × 3 recompute = 24; with pp > 1 only ZeRO 0/1:
  // (1 + 2) × 3 = 9; dp = 1: ZeRO 0 (3) + offloaded ZeRO 1..3 (1 + 1 + 2) × 3 = 15 with pp = 1, and
  // 3 + 3 = 6 with pp > 1.
  const auto plans = enumerate_plans(builtin("llama-2-13b"), 8, base_scenario(64));
  // Shapes (tp, pp): dp>1,pp=1: (1,1),(2,1),(4,1) → 3 × 24; dp>1,pp>1: (1,2),(1,4),(2,2) → 3 × 9;
  // dp=1,pp=1: (8,1) → 15; dp=1,pp>1: (1,8),(2,4),(4,2) → 3 × 6.
  EXPECT_EQ(plans.size(), std::size_t(3 * 24 + 3 * 9 + 15 + 3 * 6));
}

TEST(Plans, MoeEnumeratesExpertParallelism) {
  const auto plans = enumerate_plans(builtin("mixtral-8x7b"), 8, base_scenario(64));
  std::set<int> eps;
  for (const ParallelPlan& p : plans) eps.insert(p.ep);
  EXPECT_EQ(eps, (std::set<int>{1, 2, 4, 8}));
}

TEST(Plans, GlobalBatchLimitsDataParallelism) {
  for (const ParallelPlan& p : enumerate_plans(builtin("llama-2-7b"), 8, base_scenario(2)))
    EXPECT_LE(p.dp, 2) << describe(p);
}

}  // namespace
}  // namespace rigsim::workloads
