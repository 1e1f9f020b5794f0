// Model files: strict reading, shape checks, and parameter counts against the published totals.
#include "workloads/model.hpp"

#include <gtest/gtest.h>

#include "tests/workloads/fixture.hpp"

namespace rigsim::workloads {
namespace {

using testing::builtin;
using testing::input_error_of;
using testing::model_from_text;
using testing::rel_diff;

struct Published {
  const char* name;
  double total;   // parameters
  double active;  // parameters per token (== total for dense models)
  const char* source;
  double tolerance = 0.01;  // relative; wider only where the published figure has two digits
};

// Totals as published (HF model cards / the papers cited in each model file's notes); exact counts
// where the checkpoint's parameter count is known to the parameter.
const Published kPublished[] = {
    {"gpt2-124m", 124439808, 124439808, "HF openai-community/gpt2 (124M)"},
    {"gpt2-355m", 354823168, 354823168, "HF openai-community/gpt2-medium"},
    {"gpt2-1.5b", 1557611200, 1557611200, "HF openai-community/gpt2-xl"},
    {"bert-large", 335141888, 335141888, "HF BertModel bert-large-uncased (incl. pooler)"},
    {"llama-2-7b", 6738415616, 6738415616, "Llama 2 paper: 7B; HF 6.74B"},
    {"llama-2-13b", 13015864320, 13015864320, "HF Llama-2-13b-hf: 13.0B"},
    {"llama-2-70b", 68976648192, 68976648192, "HF Llama-2-70b-hf: 69.0B"},
    {"llama-3-8b", 8030261248, 8030261248, "HF Meta-Llama-3-8B: 8.03B"},
    {"llama-3-70b", 70553706496, 70553706496, "HF Meta-Llama-3-70B: 70.6B"},
    {"mistral-7b", 7241732096, 7241732096, "HF Mistral-7B-v0.1: 7.24B"},
    {"mixtral-8x7b", 46.7e9, 12.9e9, "Mixtral paper arXiv:2401.04088: 46.7B total, 12.9B active"},
    // "2.8B" has two significant digits: it stands for 2.75..2.85B, so the tolerance is its rounding.
    {"deepseek-moe-16b", 16.4e9, 2.8e9, "DeepSeekMoE paper arXiv:2401.06066: 16.4B total, 2.8B active",
     0.018},
};

TEST(ModelParams, MatchPublishedTotalsWithinOnePercent) {
  for (const auto& p : kPublished) {
    const ParamCounts c = param_counts(builtin(p.name));
    EXPECT_LT(rel_diff(c.total, p.total), p.tolerance)
        << p.name << ": expected " << p.total << " parameters (" << p.source << "), got " << c.total;
    EXPECT_LT(rel_diff(c.active, p.active), p.tolerance)
        << p.name << ": expected " << p.active << " active parameters (" << p.source << "), got " << c.active;
  }
}

TEST(ModelParams, Gpt2SmallIsExactToTheParameter) {
  // 12 blocks of 12h²+13h, wte V·h, wpe 1024·h, final LayerNorm 2h with h = 768, V = 50257.
  const double h = 768, expected = 12 * (12 * h * h + 13 * h) + 50257 * h + 1024 * h + 2 * h;
  EXPECT_EQ(param_counts(builtin("gpt2-124m")).total, expected);
  EXPECT_EQ(expected, 124439808);
}

TEST(ModelParams, Llama2SevenBLayerBreakdown) {
  const ModelConfig m = builtin("llama-2-7b");
  const LayerParams p = layer_params(m, 0);
  EXPECT_EQ(p.attention, 4.0 * 4096 * 4096) << "expected 4h² = 67,108,864";
  EXPECT_EQ(p.mlp, 3.0 * 4096 * 11008) << "expected 3·h·ffn = 135,266,304";
  EXPECT_EQ(p.norms, 2.0 * 4096);
  const ParamCounts c = param_counts(m);
  EXPECT_EQ(c.lm_head, 32000.0 * 4096) << "untied logits";
  EXPECT_EQ(c.total, 6738415616.0);
}

TEST(ModelParams, GqaShrinksKeyValueProjections) {
  const LayerParams p = layer_params(builtin("llama-2-70b"), 0);
  EXPECT_EQ(p.attention, 2.0 * 8192 * 8192 + 2.0 * 8192 * 1024) << "expected 2h² + 2h·kv_dim";
}

TEST(ModelParams, DeepSeekFirstLayerIsDense) {
  const ModelConfig m = builtin("deepseek-moe-16b");
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_EQ(m.moe_layer_count(), 27);
  EXPECT_EQ(layer_params(m, 0).experts, 0);
  EXPECT_EQ(layer_params(m, 1).experts, 64.0 * 3 * 2048 * 1408) << "64 routed experts of 3·h·1408";
}

TEST(ModelParams, DenseActiveEqualsTotal) {
  const ParamCounts c = param_counts(builtin("tiny-dense"));
  EXPECT_EQ(c.total, c.active);
  EXPECT_EQ(c.experts, 0);
}

TEST(ModelFiles, EveryBuiltInModelLoadsAndNamesItsSource) {
  const auto names = builtin_model_names(testing::models_dir());
  EXPECT_GE(names.size(), 14u);
  for (const auto& n : names) {
    const ModelConfig m = builtin(n);
    EXPECT_EQ(m.name, n) << "file name and \"name\" differ";
    EXPECT_FALSE(m.source.empty()) << n;
  }
}

TEST(ModelFiles, FindAcceptsAPath) {
  const ModelConfig m = find_model(testing::models_dir() + "/tiny-moe.json", "/nonexistent");
  EXPECT_EQ(m.experts, 4);
}

TEST(ModelFiles, UnknownNameSuggestsABuiltIn) {
  auto [where, what] = input_error_of([] { builtin("llama-2-7"); });
  EXPECT_NE(what.find("did you mean \"llama-2-7b\""), std::string::npos) << what;
}

// A valid small model with {EXTRA} keys appended.
std::string tiny(const std::string& extra) {
  return R"({"name": "t", "source": "test", "layers": 2, "hidden": 64, "heads": 4, "ffn": 256,
             "gated_mlp": false, "vocab": 100, "tied_embeddings": true, "norm": "rmsnorm",
             "position": "rotary")" +
         extra + "}";
}

void expect_rejected(const std::string& text, const std::string& location, const std::string& phrase) {
  auto [where, what] = input_error_of([&] { model_from_text(text); });
  EXPECT_EQ(where, location) << what;
  EXPECT_NE(what.find(phrase), std::string::npos) << "message: " << what << "\nexpected: " << phrase;
  EXPECT_NE(what.find("model.json"), std::string::npos) << "the file is named: " << what;
}

TEST(ModelValidation, AcceptsAMinimalModel) {
  const ModelConfig m = model_from_text(tiny(""));
  EXPECT_EQ(m.kv_heads, 4) << "kv_heads defaults to heads";
}

TEST(ModelValidation, UnknownKeyIsRejectedWithSuggestion) {
  expect_rejected(tiny(R"(, "kv_head": 2)"), "/kv_head", "did you mean \"kv_heads\"");
}

TEST(ModelValidation, HeadsMustDivideHidden) {
  expect_rejected(R"({"name": "t", "source": "s", "layers": 2, "hidden": 64, "heads": 5, "ffn": 8,
    "gated_mlp": false, "vocab": 10, "tied_embeddings": true, "norm": "rmsnorm", "position": "rotary"})",
                  "/heads", "must divide hidden");
}

TEST(ModelValidation, KvHeadsMustDivideHeads) {
  expect_rejected(tiny(R"(, "kv_heads": 3)"), "/kv_heads", "must divide heads");
}

TEST(ModelValidation, TopKAtMostExperts) {
  expect_rejected(tiny(R"(, "experts": 4, "top_k": 5)"), "/top_k", "from 1 to 4");
}

TEST(ModelValidation, MoeKeysNeedExperts) {
  expect_rejected(tiny(R"(, "top_k": 2)"), "/top_k", "needs \"experts\"");
}

TEST(ModelValidation, UnknownNormSuggests) {
  auto text = tiny("");
  text.replace(text.find("rmsnorm"), 7, "rmsnrom");
  expect_rejected(text, "/norm", "did you mean \"rmsnorm\"");
}

TEST(ModelValidation, LearnedPositionsNeedMaxSeq) {
  auto text = tiny("");
  text.replace(text.find("rotary"), 6, "learned");
  expect_rejected(text, "/", "max_seq");
}

TEST(ModelValidation, MissingRequiredKeyIsNamed) {
  expect_rejected(R"({"name": "t", "source": "s"})", "/", "missing required key \"layers\"");
}

}  // namespace
}  // namespace rigsim::workloads
