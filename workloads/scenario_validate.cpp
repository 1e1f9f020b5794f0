// validate(): the combinations of model, plan and GPUs that cannot run, each with its reason and the
// JSON pointer of the key to change. Parsing (scenario.cpp) already checked each key on its own.
#include "common/input.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::workloads {
namespace {

std::string str(int v) {
  return std::to_string(v);
}

[[noreturn]] void fail(const Scenario& s, const std::string& pointer, const std::string& message) {
  throw InputError(s.file, pointer, message);
}

void check_world(const Scenario& s, int gpus_available) {
  const ParallelPlan& p = s.plan;
  if (!s.gpus.empty() && static_cast<int>(s.gpus.size()) > gpus_available)
    fail(s, "/gpus",
         str(static_cast<int>(s.gpus.size())) + " GPUs listed but the layout has " + str(gpus_available));
  const int used = s.gpus.empty() ? gpus_available : static_cast<int>(s.gpus.size());
  if (p.world() != used)
    fail(s, "/parallel",
         "dp·tp·pp = " + str(p.dp) + "·" + str(p.tp) + "·" + str(p.pp) + " = " + str(p.world()) +
             " ranks, but " + str(used) + " GPUs are used" +
             (s.gpus.empty() ? " (all of the layout's; list \"gpus\" to use fewer)" : " (\"gpus\")"));
}

void check_tensor(const Scenario& s, const ModelConfig& m) {
  const ParallelPlan& p = s.plan;
  if (m.heads % p.tp != 0)
    fail(s, "/parallel/tp",
         "tp (" + str(p.tp) + ") must divide the model's " + str(m.heads) + " attention heads");
  if (m.kv_heads % p.tp != 0)
    fail(s, "/parallel/tp",
         "tp (" + str(p.tp) + ") must divide the model's " + str(m.kv_heads) + " key/value heads");
  // Routed and shared experts are not split by tp (Megatron's expert tensor parallelism of 1).
  if (m.ffn % p.tp != 0)
    fail(s, "/parallel/tp", "tp (" + str(p.tp) + ") must divide the MLP intermediate size " + str(m.ffn));
  if (p.sequence_parallel && p.tp == 1)
    fail(s, "/parallel/sequence_parallel",
         "sequence parallelism splits tensor-parallel work: it needs tp > 1");
  // Megatron-LM (arguments.py) requires sequence parallelism for MoE with tensor parallelism: the
  // router and experts see each rank's s/tp tokens.
  if (m.is_moe() && p.tp > 1 && !p.sequence_parallel)
    fail(s, "/parallel/sequence_parallel", "a mixture-of-experts model with tp > 1 needs sequence_parallel");
}

void check_pipeline(const Scenario& s, const ModelConfig& m) {
  const ParallelPlan& p = s.plan;
  if (p.pp > m.layers)
    fail(s, "/parallel/pp", "pp (" + str(p.pp) + ") exceeds the model's " + str(m.layers) + " layers");
  if (p.virtual_stages > 1 && p.pp_schedule != PipelineSchedule::Interleaved)
    fail(s, "/parallel/virtual_stages", "virtual stages need \"pp_schedule\": \"interleaved\"");
  if (p.pp_schedule != PipelineSchedule::Interleaved) return;
  if (p.pp == 1) fail(s, "/parallel/pp_schedule", "the interleaved schedule needs pp > 1");
  if (m.layers % (p.pp * p.virtual_stages) != 0)
    fail(s, "/parallel/virtual_stages",
         "pp·virtual_stages = " + str(p.pp * p.virtual_stages) + " must divide the model's " + str(m.layers) +
             " layers");
  // Megatron-LM's interleaved schedule runs micro-batches in groups of pp (schedules.py asserts it).
  if (s.micro_batches() % p.pp != 0)
    fail(s, "/global_batch",
         "the interleaved schedule needs the micro-batch count (" + str(s.micro_batches()) +
             ") to be a multiple of pp (" + str(p.pp) + ")");
}

void check_experts(const Scenario& s, const ModelConfig& m) {
  const ParallelPlan& p = s.plan;
  if (p.ep == 1) return;
  if (!m.is_moe()) fail(s, "/parallel/ep", "expert parallelism needs a mixture-of-experts model");
  if (m.experts % p.ep != 0)
    fail(s, "/parallel/ep", "ep (" + str(p.ep) + ") must divide the model's " + str(m.experts) + " experts");
  if (p.ep > p.dp * p.tp || (p.dp * p.tp) % p.ep != 0)
    fail(s, "/parallel/ep",
         "ep (" + str(p.ep) + ") must divide dp·tp = " + str(p.dp * p.tp) +
             " (expert groups are carved out of each pipeline stage's ranks)");
}

void check_batch(const Scenario& s, const ModelConfig& m) {
  const int per_step = s.plan.dp * s.micro_batch;
  if (s.global_batch % per_step != 0)
    fail(
        s, "/global_batch",
        "global_batch (" + str(s.global_batch) + ") must be a multiple of dp·micro_batch = " + str(per_step));
  if (m.position == Position::Learned && s.seq_len > m.max_seq)
    fail(s, "/seq_len",
         "seq_len (" + str(s.seq_len) + ") exceeds the model's " + str(m.max_seq) + " learned positions");
}

void check_sharding(const Scenario& s) {
  const ParallelPlan& p = s.plan;
  if (p.zero > 0 && p.fsdp != Fsdp::None)
    fail(s, "/parallel/fsdp", "give either \"zero\" (DeepSpeed) or \"fsdp\" (PyTorch), not both");
  if (p.fsdp == Fsdp::HybridShard && (p.hybrid_group < 1 || p.dp % p.hybrid_group != 0))
    fail(s, "/parallel/hybrid_group",
         "hybrid_shard needs \"hybrid_group\", the ranks per shard group, dividing dp (" + str(p.dp) + ")");
  if (p.fsdp != Fsdp::HybridShard && p.hybrid_group != 0)
    fail(s, "/parallel/hybrid_group", "\"hybrid_group\" only applies to \"fsdp\": \"hybrid_shard\"");
  // DeepSpeed's PipelineEngine asserts that ZeRO stages 2 and 3 are not combined with pipelining.
  if (p.pp > 1 && p.shard_stage() >= 2)
    fail(s, "/parallel/pp",
         "pipeline parallelism works with ZeRO stage 0 or 1 only (DeepSpeed PipelineEngine)");
  if (p.offload.any() && p.shard_stage() == 0)
    fail(s, "/parallel/offload", "offload needs ZeRO (stage ≥ 1) or FSDP to own the sharded states");
  if (p.offload.params && p.shard_stage() < 3)
    fail(s, "/parallel/offload/params", "offloading parameters needs ZeRO-3 or FSDP full/hybrid shard");
}

void check_lora(const Scenario& s, const ModelConfig& m) {
  if (!s.lora.enabled()) return;
  if (s.lora.targets_module("gate") && !m.gated_mlp)
    fail(s, "/lora/targets", "the model has no gate matrix (not a gated MLP)");
  if (s.lora.qlora && s.dtype != Dtype::Bf16 && s.dtype != Dtype::Fp16)
    fail(s, "/lora/qlora", "QLoRA dequantises its 4-bit base to bf16 or fp16: set \"dtype\" to one of them");
}

}  // namespace

void validate(const Scenario& s, const ModelConfig& m, int gpus_available) {
  check_world(s, gpus_available);
  check_tensor(s, m);
  check_experts(s, m);
  check_batch(s, m);
  check_pipeline(s, m);
  check_sharding(s);
  check_lora(s, m);
}

}  // namespace rigsim::workloads
