// Memory model: closed forms for states (16 B/param for mixed-precision AdamW, /dp under ZeRO),
// activations (Korthikanti et al. 2022), pipeline in-flight micro-batches, LoRA and offload.
#include "workloads/memory.hpp"

#include <gtest/gtest.h>

#include "tests/workloads/fixture.hpp"
#include "workloads/partition.hpp"

namespace rigsim::workloads {
namespace {

using testing::builtin;

Scenario plain(int dp, int global_batch = 64, int micro_batch = 1, int seq_len = 1024) {
  Scenario s;
  s.global_batch = global_batch;
  s.micro_batch = micro_batch;
  s.seq_len = seq_len;
  s.plan.dp = dp;
  return s;
}

double states_of(const RankMemory& r) {
  return r.weights.value + r.gradients.value + r.optimizer.value;
}

const double kLlama7bParams = 6738415616;

TEST(MemoryStates, MixedPrecisionAdamWIs16BytesPerParam) {
  const RankMemory r = rank_memory(plain(1), builtin("llama-2-7b"), 0);
  const double expected = 16 * kLlama7bParams;
  EXPECT_EQ(states_of(r), expected) << "expected 16·P = " << expected << " B, got " << states_of(r);
  EXPECT_EQ(r.weights.value, 2 * kLlama7bParams);
  EXPECT_EQ(r.optimizer.value, 12 * kLlama7bParams) << "fp32 master + m + v";
}

TEST(MemoryStates, OtherRecipes) {
  EXPECT_EQ(bytes_per_param(Dtype::Bf16, Optimizer::Sgd).optimizer, 8) << "fp32 master + momentum";
  EXPECT_EQ(bytes_per_param(Dtype::Bf16, Optimizer::AdamW8bit).optimizer, 6)
      << "fp32 master + 2 one-byte states";
  const BytesPerParam fp32 = bytes_per_param(Dtype::Fp32, Optimizer::AdamW);
  EXPECT_EQ(fp32.weight + fp32.gradient + fp32.optimizer, 16) << "4 + 4 + 8, no master copy";
  const BytesPerParam fp8 = bytes_per_param(Dtype::Fp8, Optimizer::AdamW);
  EXPECT_EQ(fp8.weight + fp8.gradient + fp8.optimizer, 16) << "bf16 weights kept for FP8 GEMMs";
}

TEST(MemoryStates, ZeroStagesDivideByDp) {
  const ModelConfig m = builtin("llama-2-7b");
  const double P = kLlama7bParams, dp = 8;
  const double expected[] = {16 * P, 4 * P + 12 * P / dp, 2 * P + 14 * P / dp, 16 * P / dp};
  for (int stage = 0; stage <= 3; ++stage) {
    Scenario s = plain(8);
    s.plan.zero = stage;
    const double got = states_of(rank_memory(s, m, 0));
    EXPECT_DOUBLE_EQ(got, expected[stage])
        << "ZeRO-" << stage << ": expected " << expected[stage] << ", got " << got;
  }
}

TEST(MemoryStates, FsdpStrategiesMatchZeroStages) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario full = plain(8), hybrid = plain(8), grad_op = plain(8);
  full.plan.fsdp = Fsdp::FullShard;
  grad_op.plan.fsdp = Fsdp::ShardGradOp;
  hybrid.plan.fsdp = Fsdp::HybridShard;
  hybrid.plan.hybrid_group = 4;
  EXPECT_DOUBLE_EQ(states_of(rank_memory(full, m, 0)), 16 * kLlama7bParams / 8);
  EXPECT_DOUBLE_EQ(states_of(rank_memory(grad_op, m, 0)), 2 * kLlama7bParams + 14 * kLlama7bParams / 8);
  EXPECT_DOUBLE_EQ(states_of(rank_memory(hybrid, m, 0)), 16 * kLlama7bParams / 4) << "sharded within 4";
}

TEST(MemoryStates, OffloadMovesStatesToTheHost) {
  const ModelConfig m = builtin("llama-2-7b");
  const double P = kLlama7bParams;
  Scenario s = plain(4);
  s.plan.zero = 2;
  s.plan.offload.optimizer = true;
  const RankMemory r = rank_memory(s, m, 0);
  EXPECT_EQ(r.optimizer.value, 0);
  EXPECT_EQ(r.gradients.value, 0) << "ZeRO-Offload moves reduced gradient shards to the CPU";
  EXPECT_DOUBLE_EQ(r.host.value, (12 + 2) * P / 4) << "expected (12 + 2)·P/dp on the host";
  s.plan.zero = 3;
  s.plan.offload.params = true;
  const RankMemory p = rank_memory(s, m, 0);
  EXPECT_EQ(p.weights.value, 0);
  EXPECT_DOUBLE_EQ(p.host.value, 16 * P / 4) << "expected 16·P/dp on the host";
}

TEST(MemoryActivations, KorthikantiClosedForms) {
  const ModelConfig m = builtin("tiny-dense");  // h 64, a 4, 2 layers
  Scenario s = plain(1, 4, 2, 128);
  s.flash_attention = false;
  const double sbh = 128.0 * 2 * 64, as_h = 5.0 * 4 * 128 / 64;
  EXPECT_EQ(activation_bytes_per_layer(s, m, false).value, sbh * (34 + as_h)) << "s·b·h·(34 + 5as/h)";
  s.plan.tp = 2;
  EXPECT_EQ(activation_bytes_per_layer(s, m, false).value, sbh * (10 + 24 / 2.0 + as_h / 2))
      << "tensor parallel";
  s.plan.sequence_parallel = true;
  EXPECT_EQ(activation_bytes_per_layer(s, m, false).value, sbh * (34 + as_h) / 2) << "tp + sequence parallel";
  s.plan.recompute = Recompute::Selective;
  EXPECT_EQ(activation_bytes_per_layer(s, m, false).value, sbh * 34 / 2) << "selective + sp: 34·sbh/t";
  s.plan.recompute = Recompute::Full;
  EXPECT_EQ(activation_bytes_per_layer(s, m, false).value, 2 * sbh / 2) << "full + sp: 2·sbh/t";
}

TEST(MemoryActivations, FlashAttentionDropsTheQuadraticTerm) {
  const ModelConfig m = builtin("tiny-dense");
  const Scenario s = plain(1, 4, 2, 128);
  EXPECT_EQ(activation_bytes_per_layer(s, m, false).value, 128.0 * 2 * 64 * 34);
}

TEST(MemoryActivations, RankTotalIsLayersTimesPerLayerPlusWorkingSet) {
  const ModelConfig m = builtin("tiny-dense");
  Scenario s = plain(1, 4, 2, 128);
  const double sbh = 128.0 * 2 * 64;
  EXPECT_EQ(rank_memory(s, m, 0).activations.value, 2 * 34 * sbh) << "2 layers × 34·sbh";
  s.plan.recompute = Recompute::Full;
  EXPECT_EQ(rank_memory(s, m, 0).activations.value, 2 * 2 * sbh + 34 * sbh)
      << "2 layers × 2·sbh + one layer rebuilt in backward";
}

TEST(MemoryActivations, PipelineInFlightMicroBatches) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plain(1, 16, 1, 1024);  // m = 16 micro-batches
  s.plan.pp = 4;
  s.plan.pp_schedule = PipelineSchedule::GPipe;
  EXPECT_EQ(inflight_microbatches(s, 0), 16) << "GPipe keeps all m";
  s.plan.pp_schedule = PipelineSchedule::OneFOneB;
  EXPECT_EQ(inflight_microbatches(s, 0), 4) << "1F1B: pp on the first stage";
  EXPECT_EQ(inflight_microbatches(s, 3), 1) << "1F1B: 1 on the last stage";
  s.plan.pp_schedule = PipelineSchedule::Interleaved;
  s.plan.virtual_stages = 2;
  EXPECT_DOUBLE_EQ(inflight_microbatches(s, 0), 4 * (1 + 3.0 / 8)) << "pp·(1 + (pp-1)/(pp·v))";
  const double per_layer = activation_bytes_per_layer(s, m, false).value;
  s.plan.pp_schedule = PipelineSchedule::OneFOneB;
  s.plan.virtual_stages = 1;
  EXPECT_EQ(rank_memory(s, m, 0).activations.value, 8 * per_layer * 4) << "8 layers × 4 in flight";
}

TEST(MemoryLora, OnlyAdaptersTrain) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plain(1);
  s.lora.rank = 16;
  s.lora.targets = {"q", "v"};
  // 32 layers × 2 matrices × r·(d_in + d_out); PEFT's print_trainable_parameters() shows 4,194,304
  // for r = 8 on q_proj, v_proj of Llama-2-7B, half of this.
  const double adapters = 32 * 2 * 16 * (4096.0 + 4096);
  EXPECT_EQ(adapters, 8388608);
  EXPECT_EQ(rank_params(s, m, 0).lora, adapters);
  const RankMemory r = rank_memory(s, m, 0);
  EXPECT_EQ(r.weights.value, 2 * (kLlama7bParams + adapters)) << "frozen bf16 base + adapters";
  EXPECT_EQ(r.gradients.value, 2 * adapters);
  EXPECT_EQ(r.optimizer.value, 12 * adapters);
}

TEST(MemoryLora, QloraStoresTheBaseIn4Bits) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plain(1);
  s.lora = {.rank = 16, .alpha = 32, .targets = {"q", "v"}, .qlora = true};
  const ParamCounts pc = param_counts(m);
  const double linear = pc.layers - 32 * 2 * 4096.0;  // everything in the blocks but the norms
  const double expected = linear * (4.127 / 8) + (pc.total - linear) * 2 + 2 * 8388608.0;
  EXPECT_NEAR(rank_memory(s, m, 0).weights.value, expected, 1) << "NF4 linear weights, bf16 rest";
}

TEST(MemoryBuffers, DdpBucketCopyUnlessView) {
  const ModelConfig m = builtin("gpt2-124m");
  Scenario s = plain(2);
  EXPECT_EQ(rank_memory(s, m, 0).buffers.value - 1024.0 * 1 * 50257 * 6, 2 * param_counts(m).total)
      << "a bucket copy of the bf16 gradients";
  s.gradient_as_bucket_view = true;
  EXPECT_EQ(rank_memory(s, m, 0).buffers.value, 1024.0 * 1 * 50257 * 6) << "only the logits remain";
}

TEST(MemoryMonotonic, MoreDpNeverRaisesPerGpuMemoryUnderZero3) {
  const ModelConfig m = builtin("llama-2-7b");
  double previous = 1e300;
  for (int dp : {1, 2, 4, 8, 16, 32, 64}) {
    Scenario s = plain(dp, 64, 1, 4096);
    s.plan.zero = 3;
    const double total = rank_memory(s, m, 0).total().value;
    EXPECT_LE(total, previous) << "dp " << dp << ": " << total << " B > " << previous << " B at dp/2";
    previous = total;
  }
}

TEST(MemoryPlan, SeventyBDoesNotFitOnFour24GbCardsWithoutSharding) {
  // The seed claim: AdamW mixed precision needs ~16 B/param, so 70B training does not fit 4×24 GB.
  const ModelConfig m = builtin("llama-2-70b");
  const double gib = 1024.0 * 1024 * 1024;
  Scenario s = plain(4, 4, 1, 4096);
  EXPECT_GT(rank_memory(s, m, 0).total().value, 24 * gib);
  s.plan.zero = 3;
  EXPECT_GT(rank_memory(s, m, 0).total().value, 24 * gib) << "16·70e9/4 = 280 GB per GPU";
  s.plan.offload = {.optimizer = true, .params = true};
  s.plan.recompute = Recompute::Full;
  EXPECT_LT(rank_memory(s, m, 0).total().value, 24 * gib) << "fits only with everything offloaded";
}

}  // namespace
}  // namespace rigsim::workloads
