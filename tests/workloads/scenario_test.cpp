// Scenario files: strict reading, validation of plan against model and GPUs, rank placement.
#include "workloads/scenario.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/workloads/fixture.hpp"

namespace rigsim::workloads {
namespace {

using testing::builtin;
using testing::input_error_of;

Scenario scenario_from_text(const std::string& text) {
  return parse_scenario(parse_json_text(text, "scenario.json"), "scenario.json");
}

// A scenario for `model` with {PARALLEL} as the parallel object and {EXTRA} more top-level keys.
std::string scenario(const std::string& model, const std::string& parallel, const std::string& extra = "") {
  return R"({"model": ")" + model + R"(", "global_batch": 16, "micro_batch": 2, "seq_len": 64,
             "dtype": "bf16", "optimizer": "adamw", "parallel": )" +
         parallel + extra + "}";
}

void expect_invalid(const std::string& text, int gpus, const std::string& location,
                    const std::string& phrase) {
  auto [where, what] = input_error_of([&] {
    const Scenario s = scenario_from_text(text);
    validate(s, scenario_model(s, testing::models_dir()), gpus);
  });
  EXPECT_EQ(where, location) << what;
  EXPECT_NE(what.find(phrase), std::string::npos) << "message: " << what << "\nexpected: " << phrase;
}

void expect_valid(const std::string& text, int gpus) {
  auto [where, what] = input_error_of([&] {
    const Scenario s = scenario_from_text(text);
    validate(s, scenario_model(s, testing::models_dir()), gpus);
  });
  EXPECT_EQ(what, "");
}

TEST(ScenarioParse, ReadsEveryKey) {
  const Scenario s = scenario_from_text(R"({
    "name": "x", "model": "llama-2-7b", "layout": "../layouts/dgx-a100.json", "gpus": ["g0", "g1"],
    "global_batch": 64, "micro_batch": 2, "seq_len": 4096, "dtype": "fp16", "optimizer": "adamw-8bit",
    "recompute": "selective", "flash_attention": false, "moe_imbalance": 1.5,
    "lora": {"rank": 8, "alpha": 16, "targets": ["q", "v"], "qlora": true},
    "parallel": {"dp": 1, "tp": 2, "sequence_parallel": true, "pp": 1, "ep": 1, "zero": 2,
                 "offload": {"optimizer": true}, "ddp_bucket_mb": 50, "gradient_as_bucket_view": true,
                 "placement": "dp,tp,pp"}})");
  EXPECT_EQ(s.layout, "../layouts/dgx-a100.json") << "resolved against the scenario's folder (none here)";
  EXPECT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.dtype, Dtype::Fp16);
  EXPECT_EQ(s.optimizer, Optimizer::AdamW8bit);
  EXPECT_EQ(s.plan.recompute, Recompute::Selective);
  EXPECT_FALSE(s.flash_attention);
  EXPECT_EQ(s.lora.rank, 8);
  EXPECT_TRUE(s.lora.qlora);
  EXPECT_TRUE(s.lora.targets_module("v"));
  EXPECT_FALSE(s.lora.targets_module("k"));
  EXPECT_EQ(s.plan.shard_stage(), 2);
  EXPECT_TRUE(s.plan.offload.optimizer);
  EXPECT_EQ(s.ddp_bucket_mb, 50);
  EXPECT_EQ(s.plan.order, (std::vector<Axis>{Axis::Dp, Axis::Tp, Axis::Pp}));
  EXPECT_EQ(s.micro_batches(), 32);
}

TEST(ScenarioParse, DefaultsAreDocumentedOnes) {
  const Scenario s = scenario_from_text(scenario("tiny-dense", R"({"dp": 2})"));
  EXPECT_EQ(s.ddp_bucket_mb, 25) << "PyTorch DDP bucket_cap_mb";
  EXPECT_EQ(s.moe_imbalance, 1.25) << "Switch Transformer capacity factor";
  EXPECT_EQ(s.plan.pp_schedule, PipelineSchedule::OneFOneB);
  EXPECT_EQ(s.plan.order, (std::vector<Axis>{Axis::Tp, Axis::Dp, Axis::Pp}));
  EXPECT_FALSE(s.lora.enabled());
}

TEST(ScenarioParse, RelativePathsFollowTheScenarioFile) {
  const Scenario s = parse_scenario(
      parse_json_text(scenario("../models/m.json", R"({"dp": 1})", R"(, "layout": "../layouts/l.json")"),
                      "x"),
      "/a/training/s.json");
  EXPECT_EQ(s.model, "/a/models/m.json");
  EXPECT_EQ(s.layout, "/a/layouts/l.json");
}

TEST(ScenarioParse, UnknownKeyInParallelSuggests) {
  auto [where, what] =
      input_error_of([] { scenario_from_text(scenario("tiny-dense", R"({"dp": 1, "zer0": 3})")); });
  EXPECT_EQ(where, "/parallel/zer0");
  EXPECT_NE(what.find("did you mean \"zero\""), std::string::npos) << what;
}

TEST(ScenarioParse, UnknownEnumWordsSuggest) {
  auto [where, what] = input_error_of(
      [] { scenario_from_text(scenario("tiny-dense", R"({"dp": 1, "fsdp": "full-shard"})")); });
  EXPECT_EQ(where, "/parallel/fsdp");
  EXPECT_NE(what.find("did you mean \"full_shard\""), std::string::npos) << what;
}

TEST(ScenarioParse, UnknownLoraTargetSuggests) {
  auto [where, what] = input_error_of([] {
    scenario_from_text(
        scenario("tiny-dense", R"({"dp": 1})", R"(, "lora": {"rank": 4, "targets": ["q", "upp"]})"));
  });
  EXPECT_EQ(where, "/lora/targets/1");
  EXPECT_NE(what.find("did you mean \"up\""), std::string::npos) << what;
}

TEST(ScenarioParse, BadPlacementIsRejected) {
  auto [where, what] = input_error_of(
      [] { scenario_from_text(scenario("tiny-dense", R"({"dp": 1, "placement": "tp,tp,pp"})")); });
  EXPECT_EQ(where, "/parallel/placement") << what;
}

TEST(ScenarioModel, UnknownModelPointsAtTheScenario) {
  auto [where, what] = input_error_of([] {
    scenario_model(scenario_from_text(scenario("llama2-7b", R"({"dp": 1})")), testing::models_dir());
  });
  EXPECT_EQ(where, "/model");
  EXPECT_NE(what.find("did you mean \"llama-2-7b\""), std::string::npos) << what;
}

TEST(ScenarioValidate, AcceptsValidPlans) {
  expect_valid(scenario("llama-2-7b", R"({"dp": 2, "tp": 2, "pp": 2})"), 8);
  expect_valid(scenario("mixtral-8x7b", R"({"dp": 8, "ep": 8, "zero": 1})"), 8);
  expect_valid(scenario("llama-2-7b", R"({"dp": 8, "fsdp": "hybrid_shard", "hybrid_group": 4,
                                          "offload": {"optimizer": true, "params": true}})"),
               8);
  expect_valid(
      scenario("llama-2-7b", R"({"dp": 1, "zero": 2})", R"(, "lora": {"rank": 8, "targets": ["q"]})"), 1);
  expect_valid(R"({"model": "llama-3-8b", "dtype": "fp8", "optimizer": "adamw", "global_batch": 8,
                   "micro_batch": 1, "seq_len": 8192, "parallel": {"dp": 1}})",
               1);
}

TEST(ScenarioValidate, TpMustDivideHeadsAndKvHeads) {
  expect_invalid(scenario("gpt2-1.5b", R"({"dp": 1, "tp": 2})"), 2, "/parallel/tp", "25 attention heads");
  expect_invalid(scenario("llama-2-70b", R"({"dp": 1, "tp": 16})"), 16, "/parallel/tp", "8 key/value heads");
}

TEST(ScenarioValidate, WorldMustEqualGpusUsed) {
  expect_invalid(scenario("tiny-dense", R"({"dp": 2, "tp": 2})"), 8, "/parallel", "4 ranks, but 8 GPUs");
  expect_invalid(scenario("tiny-dense", R"({"dp": 2})", R"(, "gpus": ["a", "b", "c"])"), 8, "/parallel",
                 "3 GPUs");
  expect_invalid(scenario("tiny-dense", R"({"dp": 2})", R"(, "gpus": ["a", "b", "c"])"), 2, "/gpus", "has 2");
}

TEST(ScenarioValidate, PipelineLimits) {
  expect_invalid(scenario("tiny-dense", R"({"dp": 1, "pp": 4})"), 4, "/parallel/pp",
                 "exceeds the model's 2 layers");
  expect_invalid(scenario("llama-2-7b", R"({"dp": 1, "pp": 2, "virtual_stages": 2})"), 2,
                 "/parallel/virtual_stages", "interleaved");
  expect_invalid(
      scenario("llama-2-7b", R"({"dp": 1, "pp": 2, "pp_schedule": "interleaved", "virtual_stages": 3})"), 2,
      "/parallel/virtual_stages", "must divide the model's 32 layers");
  expect_invalid(scenario("llama-2-7b", R"({"dp": 1, "pp": 2, "zero": 2})"), 2, "/parallel/pp",
                 "ZeRO stage 0 or 1");
}

TEST(ScenarioValidate, ExpertParallelLimits) {
  expect_invalid(scenario("llama-2-7b", R"({"dp": 2, "ep": 2})"), 2, "/parallel/ep", "mixture-of-experts");
  expect_invalid(scenario("mixtral-8x7b", R"({"dp": 6, "ep": 3})"), 6, "/parallel/ep",
                 "divide the model's 8");
  expect_invalid(scenario("mixtral-8x7b", R"({"dp": 2, "ep": 4})"), 2, "/parallel/ep", "divide dp·tp = 2");
  expect_invalid(scenario("mixtral-8x7b", R"({"dp": 1, "tp": 2})"), 2, "/parallel/sequence_parallel",
                 "needs");
}

TEST(ScenarioValidate, BatchMustSplitEvenly) {
  expect_invalid(scenario("tiny-dense", R"({"dp": 3})"), 3, "/global_batch",
                 "multiple of dp·micro_batch = 6");
  expect_invalid(
      R"({"model": "tiny-dense", "global_batch": 2, "micro_batch": 1, "seq_len": 512, "dtype": "bf16",
                     "optimizer": "sgd", "parallel": {"dp": 1}})",
      1, "/seq_len", "128 learned positions");
}

TEST(ScenarioValidate, ShardingCombinations) {
  expect_invalid(scenario("tiny-dense", R"({"dp": 2, "zero": 3, "fsdp": "full_shard"})"), 2, "/parallel/fsdp",
                 "not both");
  expect_invalid(scenario("tiny-dense", R"({"dp": 2, "offload": {"optimizer": true}})"), 2,
                 "/parallel/offload", "needs ZeRO");
  expect_invalid(scenario("tiny-dense", R"({"dp": 2, "zero": 2, "offload": {"params": true}})"), 2,
                 "/parallel/offload/params", "ZeRO-3");
  expect_invalid(scenario("tiny-dense", R"({"dp": 4, "fsdp": "hybrid_shard", "hybrid_group": 3})"), 4,
                 "/parallel/hybrid_group", "dividing dp");
}

TEST(ScenarioValidate, LoraChecks) {
  expect_invalid(scenario("gpt2-124m", R"({"dp": 1})", R"(, "lora": {"rank": 4, "targets": ["gate"]})"), 1,
                 "/lora/targets", "no gate");
  expect_invalid(R"({"model": "tiny-moe", "global_batch": 2, "micro_batch": 1, "seq_len": 8, "dtype": "fp32",
                     "optimizer": "adamw", "parallel": {"dp": 1}, "lora": {"rank": 4, "targets": ["q"], "qlora": true}})",
                 1, "/lora/qlora", "bf16");
}

// The example at the top of docs/scenario-format.md parses and validates (the doc cannot rot).
TEST(ScenarioDocs, ExampleIsValid) {
  std::ifstream in(std::string(RIGSIM_SOURCE_DIR) + "/docs/scenario-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto begin = doc.find("```json\n") + 8, end = doc.find("```", begin);
  ASSERT_NE(end, std::string::npos);
  const Scenario s = parse_scenario(parse_json_text(doc.substr(begin, end - begin), "doc"), "doc");
  EXPECT_NO_THROW(validate(s, scenario_model(s, testing::models_dir()), 8));
}

TEST(Placement, TensorParallelIsInnermostByDefault) {
  ParallelPlan p;
  p.dp = 2, p.tp = 2, p.pp = 2;
  EXPECT_EQ(rank_coords(p, 5), (RankCoords{.dp = 0, .tp = 1, .pp = 1, .ep = 0}));
  EXPECT_EQ(rank_of(p, 1, 1, 1), 7);
  EXPECT_EQ(tp_groups(p), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(dp_groups(p), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_EQ(pp_groups(p), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(Placement, ExplicitOrder) {
  ParallelPlan p;
  p.dp = 2, p.tp = 2, p.pp = 1;
  p.order = *parse_placement("dp,tp,pp");
  EXPECT_EQ(tp_groups(p), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(dp_groups(p), (Groups{{0, 1}, {2, 3}}));
}

TEST(Placement, ExpertGroupsAreCarvedFromEachStage) {
  ParallelPlan p;
  p.dp = 4, p.tp = 1, p.pp = 2, p.ep = 2;
  EXPECT_EQ(ep_groups(p), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(expert_dp_groups(p), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
}

TEST(Placement, HybridShardGroups) {
  ParallelPlan p;
  p.dp = 8, p.fsdp = Fsdp::HybridShard, p.hybrid_group = 4;
  EXPECT_EQ(shard_groups(p), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(replica_groups(p), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

}  // namespace
}  // namespace rigsim::workloads
