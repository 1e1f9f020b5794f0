// Per-rank programs: communication volumes and FLOPs against closed forms, op-count bounds,
// dependency sanity, and (with a dependency-only toy executor) deadlock freedom and pipeline bubbles.
#include "workloads/program.hpp"

#include <gtest/gtest.h>

#include "tests/workloads/fixture.hpp"
#include "tests/workloads/toy_executor.hpp"

namespace rigsim::workloads {
namespace {

using testing::builtin;
using testing::rel_diff;

Scenario plan(int dp, int tp, int pp, int global_batch, int micro_batch, int seq_len) {
  Scenario s;
  s.global_batch = global_batch;
  s.micro_batch = micro_batch;
  s.seq_len = seq_len;
  s.plan.dp = dp, s.plan.tp = tp, s.plan.pp = pp;
  return s;
}

Program built(const Scenario& s, const ModelConfig& m) {
  validate(s, m, s.plan.world());
  return build_program(s, m);
}

// Sum of count over the collectives of `purpose` whose name contains `part`, for one rank.
double collective_count(const Program& p, int rank, Purpose purpose, const std::string& part = "") {
  double n = 0;
  for (const Collective& c : p.collectives) {
    const bool member = std::find(c.ranks.begin(), c.ranks.end(), rank) != c.ranks.end();
    if (member && c.purpose == purpose && c.name.find(part) != std::string::npos) n += c.count;
  }
  return n;
}

// Parameters that do matrix multiplies (the PaLM N of Program::model_flops_per_step).
double matmul_params(const ModelConfig& m) {
  const ParamCounts pc = param_counts(m);
  return pc.active - pc.embedding + (m.tied_embeddings ? double(m.vocab) * m.hidden : 0.0);
}

TEST(ProgramDdp, AllReduceMovesTheGradientBytesOnce) {
  const ModelConfig m = builtin("gpt2-124m");
  const Program p = built(plan(4, 1, 1, 16, 2, 1024), m);
  const double grads = 2 * param_counts(m).total;  // bf16 gradient of every parameter
  for (int r = 0; r < 4; ++r) {
    const double got = collective_bytes(p, r, Purpose::GradSync);
    EXPECT_NEAR(got, grads, 1) << "rank " << r << ": expected Σ all-reduce = 2·P = " << grads << " B, got "
                               << got;
  }
  for (const Collective& c : p.collectives) {
    EXPECT_EQ(c.kind, CommKind::AllReduce);
    EXPECT_LE(c.bytes, 25 * 1024 * 1024.0) << "buckets of at most bucket_cap_mb";
  }
}

TEST(ProgramDdp, BucketsOverlapTheRestOfBackward) {
  const Program p = built(plan(2, 1, 1, 4, 1, 512), builtin("llama-2-7b"));
  const auto& ops = p.ranks[0].ops;
  std::size_t first_reduce = ops.size(), last_backward = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].purpose == Purpose::GradSync) first_reduce = std::min(first_reduce, i);
    if (ops[i].purpose == Purpose::Backward) last_backward = i;
  }
  EXPECT_LT(first_reduce, last_backward) << "the first bucket is reduced while backward still runs";
  const Op& reduce = ops[first_reduce];
  ASSERT_EQ(reduce.after.size(), 1u);
  EXPECT_EQ(ops[reduce.after[0]].purpose, Purpose::Backward)
      << "a bucket waits for the kernel that filled it";
}

TEST(ProgramZero, Zero3GathersParametersTwiceAndReduceScattersGradients) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plan(8, 1, 1, 16, 1, 1024);  // m = 2 micro-batches
  s.plan.zero = 3;
  const Program p = built(s, m);
  const double P = param_counts(m).total, micro = 2;
  const double gathered = collective_bytes(p, 0, Purpose::ParamGather);
  EXPECT_NEAR(gathered, 2 * 2 * P * micro, 1e-6 * P)
      << "expected forward + backward all-gathers = 2 × 2·P bytes per micro-batch, got " << gathered;
  EXPECT_NEAR(collective_bytes(p, 0, Purpose::GradSync), 2 * P * micro, 1e-6 * P)
      << "reduce-scatter of every gradient in every micro-batch";
}

TEST(ProgramZero, FsdpKeepsTheRootUnitBetweenForwardAndBackward) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plan(8, 1, 1, 8, 1, 1024);
  s.plan.fsdp = Fsdp::FullShard;
  const Program p = built(s, m);
  const ParamCounts pc = param_counts(m);
  const double root = pc.embedding + pc.lm_head + pc.final_norm;
  EXPECT_NEAR(collective_bytes(p, 0, Purpose::ParamGather), 2 * (2 * (pc.total - root) + root),
              1e-6 * pc.total)
      << "2·(2·P_layers + P_root) bytes";
}

TEST(ProgramZero, Zero1And2GatherUpdatedParametersAfterTheStep) {
  const ModelConfig m = builtin("gpt2-124m");
  for (int stage : {1, 2}) {
    Scenario s = plan(4, 1, 1, 8, 1, 512);
    s.plan.zero = stage;
    const Program p = built(s, m);
    const double P = param_counts(m).total;
    EXPECT_NEAR(collective_bytes(p, 0, Purpose::ParamGather), 2 * P, 1)
        << "ZeRO-" << stage << ": one 2·P all-gather";
    const double micro = stage == 2 ? 2 : 1;  // ZeRO-2 reduces in every micro-batch
    EXPECT_NEAR(collective_bytes(p, 0, Purpose::GradSync), 2 * P * micro, 1) << "ZeRO-" << stage;
  }
}

TEST(ProgramZero, HybridShardAllReducesShardsAcrossGroups) {
  const ModelConfig m = builtin("tiny-dense");
  Scenario s = plan(8, 1, 1, 8, 1, 64);
  s.plan.fsdp = Fsdp::HybridShard;
  s.plan.hybrid_group = 4;
  const Program p = built(s, m);
  const double P = param_counts(m).total;
  EXPECT_NEAR(collective_bytes(p, 0, Purpose::GradSync), 2 * P + 2 * P / 4, 1e-6 * P)
      << "reduce-scatter 2·P inside the group, all-reduce 2·P/4 across groups";
}

TEST(ProgramTensorParallel, FourAllReducesPerLayer) {
  const ModelConfig m = builtin("llama-2-7b");
  const int b = 2, seq = 512, micro = 2;
  const Program p = built(plan(1, 2, 1, b * micro, b, seq), m);
  const double expected_bytes = double(b) * seq * m.hidden * 2;
  for (const Collective& c : p.collectives)
    if (c.name.find(" L") != std::string::npos) {
      EXPECT_EQ(c.kind, CommKind::AllReduce) << c.name;
      EXPECT_EQ(c.bytes, expected_bytes) << c.name << ": expected b·s·h·2";
    }
  EXPECT_EQ(collective_count(p, 0, Purpose::TensorParallel, " L"), 4.0 * m.layers * micro)
      << "2 forward + 2 backward per layer and micro-batch";
}

TEST(ProgramTensorParallel, SequenceParallelUsesGatherAndScatter) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plan(1, 2, 1, 2, 1, 512);
  s.plan.sequence_parallel = true;
  const Program p = built(s, m);
  double gathers = 0, scatters = 0;
  for (const Collective& c : p.collectives) {
    if (c.name.find(" L") == std::string::npos) continue;
    EXPECT_NE(c.kind, CommKind::AllReduce) << c.name;
    (c.kind == CommKind::AllGather ? gathers : scatters) += c.count;
  }
  EXPECT_EQ(gathers, 4.0 * m.layers * 2);
  EXPECT_EQ(scatters, 4.0 * m.layers * 2);
}

TEST(ProgramTensorParallel, CollectivesBlockTheNextKernel) {
  const Program p = built(plan(2, 2, 1, 2, 1, 128), builtin("tiny-dense"));
  const auto& ops = p.ranks[0].ops;
  for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
    if (ops[i].purpose == Purpose::GradSync) {
      EXPECT_EQ(ops[i].stream, Stream::Comm);
    }
    if (ops[i].purpose != Purpose::TensorParallel) continue;
    EXPECT_EQ(ops[i].stream, Stream::Compute) << "never queued behind gradient buckets";
    if (ops[i + 1].kind != OpKind::Kernel) continue;
    const auto& after = ops[i + 1].after;
    EXPECT_NE(std::find(after.begin(), after.end(), i), after.end())
        << ops[i + 1].name << " waits for " << ops[i].name;
  }
}

TEST(ProgramPipeline, EveryMicroBatchCrossesEachBoundaryOnceEachWay) {
  const ModelConfig m = builtin("llama-2-7b");
  for (auto schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
    Scenario s = plan(2, 1, 4, 16, 1, 256);  // m = 8
    s.plan.pp_schedule = schedule;
    s.plan.virtual_stages = schedule == PipelineSchedule::Interleaved ? 2 : 1;
    const Program p = built(s, m);
    const int v = s.plan.virtual_stages, boundaries = 4 * v - 1;
    EXPECT_EQ(p.messages.size(), std::size_t(2 * 8 * boundaries * 2))
        << to_string(schedule) << ": 2 directions × m × (pp·v − 1) boundaries × dp";
    std::map<std::pair<int, int>, int> per_pair;
    for (const Message& msg : p.messages) {
      ++per_pair[{msg.src, msg.dst}];
      EXPECT_EQ(msg.bytes, 256.0 * 4096 * 2) << "b·s·h·2";
    }
    for (const auto& [pair, n] : per_pair) EXPECT_EQ(n % 8, 0) << "whole micro-batches per direction";
  }
}

// Layer kernels take their FLOPs as time, everything else is free: the pipeline bubble alone.
double layer_time(const Program&, const Op& op) {
  const bool layer = op.kind == OpKind::Kernel && op.name.find(" L") != std::string::npos;
  return layer ? op.work.flops * op.repeat * 1e-12 : 0.0;
}

TEST(ProgramPipeline, BubbleMatchesTheClosedForms) {
  const ModelConfig m = builtin("llama-2-7b");
  const int pp = 4, micro = 8;
  Scenario s = plan(1, 1, pp, micro, 1, 256);
  const double compute =
      testing::toy_execute(built(plan(1, 1, 1, micro, 1, 256), m), layer_time).step_time / pp;
  for (auto schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
    s.plan.pp_schedule = schedule;
    const int v = schedule == PipelineSchedule::Interleaved ? 2 : 1;
    s.plan.virtual_stages = v;
    const auto r = testing::toy_execute(built(s, m), layer_time);
    ASSERT_FALSE(r.deadlock) << to_string(schedule);
    const double bubble = (r.step_time - compute) / r.step_time;
    const double expected = (pp - 1.0) / v / (micro + (pp - 1.0) / v);
    EXPECT_NEAR(bubble, expected, 0.02 * expected)
        << to_string(schedule) << ": expected bubble (p−1)/v / (m + (p−1)/v) = " << expected << ", got "
        << bubble;
  }
}

TEST(ProgramPipeline, SchedulesNeverDeadlock) {
  const ModelConfig m = builtin("llama-2-7b");
  for (int pp : {2, 4, 8})
    for (int micro : {1, 3, 8, 16})
      for (auto schedule :
           {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
        Scenario s = plan(1, 2, pp, micro, 1, 128);
        s.plan.pp_schedule = schedule;
        s.plan.virtual_stages = schedule == PipelineSchedule::Interleaved ? 2 : 1;
        if (schedule == PipelineSchedule::Interleaved && micro % pp != 0) continue;
        const auto r = testing::toy_execute(built(s, m), layer_time);
        EXPECT_FALSE(r.deadlock) << "pp " << pp << " m " << micro << " " << to_string(schedule);
      }
}

TEST(ProgramFlops, DenseStepIsSixNTokens) {
  const ModelConfig m = builtin("llama-2-7b");
  const Program p = built(plan(1, 1, 1, 2, 1, 512), m);
  const double N = matmul_params(m), tokens = 2 * 512.0;
  const double attention = m.layers * 2.0 * 512 * 512 * m.hidden;  // causal forward per sequence
  const double fwd = kernel_flops(p.ranks[0], Purpose::Forward);
  EXPECT_LT(rel_diff(fwd, 2 * N * tokens + 2 * attention), 0.005)
      << "expected forward = 2·N·tokens + causal attention = " << 2 * N * tokens + 2 * attention << ", got "
      << fwd;
  EXPECT_LT(rel_diff(kernel_flops(p), 6 * N * tokens), 0.03)
      << "expected ≈ 6·N·tokens within 3 % (attention)";
  EXPECT_DOUBLE_EQ(p.model_flops_per_step, 6 * N * tokens + 12.0 * m.layers * m.hidden * 512 * tokens);
}

// GEMM and attention FLOPs of all ranks (norms are replicated over tp, optimizer steps over dp).
double matmul_flops(const Program& p) {
  double sum = 0;
  for (const auto& r : p.ranks)
    for (const Op& op : r.ops)
      if (op.kind == OpKind::Kernel &&
          (op.work.kind == KernelClass::Gemm || op.work.kind == KernelClass::Attention))
        sum += op.work.flops * op.repeat;
  return sum;
}

TEST(ProgramFlops, MatmulFlopsDoNotDependOnTheSplit) {
  const ModelConfig m = builtin("llama-2-7b");
  const double one = matmul_flops(built(plan(1, 1, 1, 8, 1, 512), m));
  for (const Scenario& s : {plan(8, 1, 1, 8, 1, 512), plan(2, 4, 1, 8, 1, 512), plan(2, 2, 2, 8, 1, 512)})
    EXPECT_LT(rel_diff(matmul_flops(built(s, m)), one), 1e-9) << describe(s.plan);
}

TEST(ProgramFlops, FullRecomputeAddsAForward) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plan(1, 1, 1, 1, 1, 512);
  const Program base = built(s, m);
  s.plan.recompute = Recompute::Full;
  const Program again = built(s, m);
  const double layers_fwd = kernel_flops(again.ranks[0], Purpose::Recompute);
  EXPECT_LT(rel_diff(kernel_flops(again) - kernel_flops(base), layers_fwd), 1e-12);
  EXPECT_LT(rel_diff(layers_fwd, 2 * double(param_counts(m).layers) * 512), 0.03) << "≈ 2·N_layers·tokens";
}

TEST(ProgramFlops, MoeActiveParametersDriveFlops) {
  const ModelConfig m = builtin("mixtral-8x7b");
  Scenario s = plan(1, 1, 1, 1, 1, 256);
  s.moe_imbalance = 1;
  const Program p = built(s, m);
  const double fwd = kernel_flops(p.ranks[0], Purpose::Forward);
  EXPECT_LT(rel_diff(fwd, 2 * matmul_params(m) * 256), 0.02)
      << "expected 2·N_active·tokens, N_active = 12.9B";
}

TEST(ProgramFlops, LoraBackwardSkipsWeightGradients) {
  const ModelConfig m = builtin("llama-2-7b");
  Scenario s = plan(1, 1, 1, 1, 1, 512);
  const double full = kernel_flops(built(s, m).ranks[0], Purpose::Backward);
  s.lora = {.rank = 16, .alpha = 32, .targets = {"q", "v"}, .qlora = false};
  const Program p = built(s, m);
  const double lora = kernel_flops(p.ranks[0], Purpose::Backward);
  EXPECT_LT(lora, 0.6 * full) << "no weight-gradient GEMMs for frozen weights: ≈ half of the full backward";
  EXPECT_GT(lora, 0.45 * full);
  EXPECT_LT(p.model_flops_per_step, 6 * matmul_params(m) * 512 + 12.0 * m.layers * m.hidden * 512 * 512);
}

TEST(ProgramExperts, AllToAllPerMoeLayer) {
  const ModelConfig m = builtin("mixtral-8x7b");
  Scenario s = plan(8, 1, 1, 8, 1, 256);
  s.plan.ep = 8;
  const Program p = built(s, m);
  EXPECT_EQ(collective_count(p, 0, Purpose::ExpertAllToAll), 4.0 * m.layers)
      << "dispatch + combine, fwd + bwd";
  for (const Collective& c : p.collectives) {
    if (c.purpose != Purpose::ExpertAllToAll) continue;
    EXPECT_DOUBLE_EQ(c.bytes, 256.0 * 2 * 4096 * 2 * 1.25) << "tokens·top_k·h·2·imbalance";
  }
  EXPECT_GT(collective_bytes(p, 0, Purpose::GradSync), 0);
}

TEST(ProgramOffload, OptimizerRunsOnTheCpuWithCopies) {
  const ModelConfig m = builtin("gpt2-124m");
  Scenario s = plan(2, 1, 1, 4, 1, 512);
  s.plan.zero = 2;
  s.plan.offload.optimizer = true;
  const Program p = built(s, m);
  double d2h = 0, h2d = 0, cpu = 0;
  for (const Op& op : p.ranks[0].ops) {
    if (op.kind == OpKind::DeviceToHost) d2h += op.bytes;
    if (op.kind == OpKind::HostToDevice) h2d += op.bytes;
    if (op.kind == OpKind::CpuWork) cpu += 1;
    EXPECT_FALSE(op.kind == OpKind::Kernel && op.purpose == Purpose::Optimizer) << "no GPU optimizer step";
  }
  const double P = param_counts(m).total;
  EXPECT_NEAR(d2h, 2 * P / 2 * 2, 1) << "each micro-batch's reduced bf16 gradient shard: 2·P/dp × m";
  EXPECT_NEAR(h2d, 2 * P / 2, 1) << "the updated bf16 shard returns";
  EXPECT_EQ(cpu, 1);
}

TEST(ProgramSize, Llama7bFsdpOnEightGpusIsAFewHundredOps) {
  Scenario s = plan(8, 1, 1, 64, 1, 4096);
  s.plan.fsdp = Fsdp::FullShard;
  s.plan.recompute = Recompute::Selective;
  const Program p = built(s, builtin("llama-2-7b"));
  for (const auto& r : p.ranks) EXPECT_LE(r.ops.size(), 400u);
  EXPECT_FALSE(testing::toy_execute(p, layer_time).deadlock);
}

TEST(ProgramSize, Llama70b3dOnSixtyFourGpusStaysBounded) {
  Scenario s = plan(2, 8, 4, 64, 1, 4096);  // 32 micro-batches per pipeline
  s.plan.sequence_parallel = true;
  s.plan.zero = 1;
  const Program p = built(s, builtin("llama-2-70b"));
  for (const auto& r : p.ranks) EXPECT_LE(r.ops.size(), 1500u) << "about 20 ops per micro-batch and stage";
  EXPECT_FALSE(testing::toy_execute(p, layer_time).deadlock);
}

TEST(ProgramSanity, DependenciesPointBackwards) {
  Scenario s = plan(2, 2, 2, 8, 1, 128);
  s.plan.zero = 1;
  s.plan.offload.optimizer = true;
  const Program p = built(s, builtin("tiny-dense"));
  for (const auto& r : p.ranks)
    for (std::size_t i = 0; i < r.ops.size(); ++i)
      for (std::size_t a : r.ops[i].after) EXPECT_LT(a, i) << r.ops[i].name;
  for (std::size_t c = 0; c < p.collectives.size(); ++c) {
    std::size_t members = 0;
    for (int rank : p.collectives[c].ranks)
      for (const Op& op : p.ranks[rank].ops) members += op.kind == OpKind::Collective && op.collective == c;
    EXPECT_EQ(members, p.collectives[c].ranks.size()) << p.collectives[c].name << ": one op per member";
  }
}

}  // namespace
}  // namespace rigsim::workloads
