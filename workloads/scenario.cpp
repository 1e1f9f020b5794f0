#include "workloads/scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/input.hpp"
#include "workloads/read_util.hpp"

namespace rigsim::workloads {
namespace {

using detail::in_range;
using nlohmann::json;

const detail::EnumTable<Optimizer> kOptimizers{
    {"adamw", Optimizer::AdamW}, {"sgd", Optimizer::Sgd}, {"adamw-8bit", Optimizer::AdamW8bit}};
const detail::EnumTable<Recompute> kRecompute{
    {"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}};
const detail::EnumTable<PipelineSchedule> kSchedules{{"gpipe", PipelineSchedule::GPipe},
                                                     {"1f1b", PipelineSchedule::OneFOneB},
                                                     {"interleaved", PipelineSchedule::Interleaved}};
const detail::EnumTable<Fsdp> kFsdp{{"full_shard", Fsdp::FullShard},
                                    {"shard_grad_op", Fsdp::ShardGradOp},
                                    {"hybrid_shard", Fsdp::HybridShard}};
const detail::EnumTable<Dtype> kTrainingDtypes{
    {"bf16", Dtype::Bf16}, {"fp16", Dtype::Fp16}, {"fp32", Dtype::Fp32}, {"fp8", Dtype::Fp8}};
const std::vector<std::string> kLoraTargets{"q", "k", "v", "o", "gate", "up", "down"};

// MoE load imbalance: the busiest expert rank gets this many times the mean token count. Default =
// the training capacity factor 1.25 of Switch Transformers (Fedus et al. 2021, arXiv:2101.03961,
// §2.2/Table 1), the usual bound on how far routing may overfill an expert.
constexpr double kDefaultMoeImbalance = 1.25;
// PyTorch DistributedDataParallel(bucket_cap_mb=25) default.
constexpr double kDefaultDdpBucketMb = 25;

// A path in a scenario is relative to the scenario file's folder.
std::string resolve(const std::string& path, const std::string& scenario_file) {
  if (path.empty() || std::filesystem::path(path).is_absolute() || scenario_file.empty()) return path;
  return (std::filesystem::path(scenario_file).parent_path() / path).lexically_normal().string();
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.ends_with(".json"));
}

std::vector<std::string> read_gpus(ObjectReader& r) {
  auto gpus = r.string_list("gpus");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (!seen.insert(gpus[i]).second)
      throw InputError(r.file(), r.pointer_of("gpus") + "/" + std::to_string(i),
                       "GPU \"" + gpus[i] + "\" is listed twice");
  if (r.has("gpus") && gpus.empty()) r.fail("gpus", "the list of GPUs is empty");
  return gpus;
}

Lora read_lora(ObjectReader r) {
  Lora l;
  l.rank = in_range(r, "rank", r.required_int("rank"), 1, 65536);
  l.alpha = r.optional_number("alpha").value_or(2.0 * l.rank);
  l.qlora = r.optional_bool("qlora").value_or(false);
  l.targets = r.string_list("targets");
  if (!r.has("targets"))
    r.fail_here("missing required key \"targets\" (an array of q, k, v, o, gate, up, down)");
  if (l.targets.empty()) r.fail("targets", "LoRA needs at least one target module");
  for (std::size_t i = 0; i < l.targets.size(); ++i) {
    if (std::find(kLoraTargets.begin(), kLoraTargets.end(), l.targets[i]) == kLoraTargets.end())
      throw InputError(r.file(), r.pointer_of("targets") + "/" + std::to_string(i),
                       "unknown module \"" + l.targets[i] + "\"" + did_you_mean(l.targets[i], kLoraTargets) +
                           "; expected q, k, v, o, gate, up or down");
  }
  r.finish();
  return l;
}

Offload read_offload(ObjectReader r) {
  Offload o;
  o.optimizer = r.optional_bool("optimizer").value_or(false);
  o.params = r.optional_bool("params").value_or(false);
  r.finish();
  return o;
}

void read_sizes(ObjectReader& r, ParallelPlan& p) {
  p.dp = in_range(r, "dp", r.required_int("dp"), 1, 1 << 20);
  p.tp = in_range(r, "tp", r.optional_int("tp").value_or(1), 1, 1 << 20);
  p.pp = in_range(r, "pp", r.optional_int("pp").value_or(1), 1, 1 << 20);
  p.ep = in_range(r, "ep", r.optional_int("ep").value_or(1), 1, 1 << 20);
  p.sequence_parallel = r.optional_bool("sequence_parallel").value_or(false);
  p.pp_schedule = detail::read_enum(r, "pp_schedule", kSchedules, PipelineSchedule::OneFOneB);
  p.virtual_stages = in_range(r, "virtual_stages", r.optional_int("virtual_stages").value_or(1), 1, 1024);
}

void read_sharding(ObjectReader& r, ParallelPlan& p) {
  p.zero = in_range(r, "zero", r.optional_int("zero").value_or(0), 0, 3);
  p.fsdp = detail::read_enum(r, "fsdp", kFsdp, Fsdp::None);
  p.hybrid_group = in_range(r, "hybrid_group", r.optional_int("hybrid_group").value_or(0), 0, 1 << 20);
  if (const json* o = r.optional_object("offload"))
    p.offload = read_offload(ObjectReader(*o, r.file(), r.pointer_of("offload")));
  if (const auto placement = r.optional_string("placement")) {
    const auto order = parse_placement(*placement);
    if (!order)
      r.fail("placement",
             "expected \"tp-innermost\" or an order of tp, dp, pp such as \"tp,dp,pp\" (innermost first)");
    p.order = *order;
  }
}

void read_parallel(ObjectReader r, Scenario& s) {
  read_sizes(r, s.plan);
  read_sharding(r, s.plan);
  s.ddp_bucket_mb = r.optional_number("ddp_bucket_mb").value_or(kDefaultDdpBucketMb);
  if (s.ddp_bucket_mb <= 0) r.fail("ddp_bucket_mb", "the bucket size must be positive (MB)");
  s.gradient_as_bucket_view = r.optional_bool("gradient_as_bucket_view").value_or(false);
  r.finish();
}

void read_batch(ObjectReader& r, Scenario& s) {
  s.global_batch = in_range(r, "global_batch", r.required_int("global_batch"), 1, 1 << 30);
  s.micro_batch = in_range(r, "micro_batch", r.required_int("micro_batch"), 1, 1 << 30);
  s.seq_len = in_range(r, "seq_len", r.required_int("seq_len"), 1, 1 << 30);
}

void read_training(ObjectReader& r, Scenario& s) {
  s.dtype = detail::read_enum(r, "dtype", kTrainingDtypes);
  s.optimizer = detail::read_enum(r, "optimizer", kOptimizers);
  s.plan.recompute = detail::read_enum(r, "recompute", kRecompute, Recompute::None);
  s.flash_attention = r.optional_bool("flash_attention").value_or(true);
  s.moe_imbalance = r.optional_number("moe_imbalance").value_or(kDefaultMoeImbalance);
  if (s.moe_imbalance < 1) r.fail("moe_imbalance", "the busiest rank's load over the mean is at least 1");
  if (const json* l = r.optional_object("lora"))
    s.lora = read_lora(ObjectReader(*l, r.file(), r.pointer_of("lora")));
}

}  // namespace

bool Lora::targets_module(const std::string& name) const {
  return enabled() && std::find(targets.begin(), targets.end(), name) != targets.end();
}

int ParallelPlan::shard_stage() const {
  switch (fsdp) {
    case Fsdp::FullShard:
    case Fsdp::HybridShard:
      return 3;
    case Fsdp::ShardGradOp:
      return 2;
    case Fsdp::None:
      break;
  }
  return zero;
}

int ParallelPlan::shard_group_size() const {
  return fsdp == Fsdp::HybridShard && hybrid_group > 0 ? hybrid_group : dp;
}

Scenario parse_scenario(const json& doc, const std::string& file) {
  ObjectReader r(doc, file, "");
  r.allow("$comment");
  Scenario s;
  s.file = file;
  s.name = r.optional_string("name").value_or("");
  s.model = r.required_string("model");
  if (looks_like_path(s.model)) s.model = resolve(s.model, file);
  s.layout = resolve(r.optional_string("layout").value_or(""), file);
  s.gpus = read_gpus(r);
  read_batch(r, s);
  read_training(r, s);
  read_parallel(r.child("parallel"), s);
  r.finish();
  return s;
}

Scenario load_scenario(const std::string& path) {
  return parse_scenario(load_json_file(path), path);
}

ModelConfig scenario_model(const Scenario& s, const std::string& models_dir) {
  if (looks_like_path(s.model)) {
    if (!std::filesystem::exists(s.model))
      throw InputError(s.file, "/model", "model file \"" + s.model + "\" not found");
    return load_model(s.model);
  }
  try {
    return find_model(s.model, models_dir);
  } catch (const InputError& e) {
    if (e.file() != models_dir) throw;  // an error inside the model file names that file
    const std::string what = e.what();
    throw InputError(s.file, "/model", what.substr(what.find("unknown model")));
  }
}

std::string to_string(Optimizer o) {
  return detail::enum_name(o, kOptimizers);
}
std::string to_string(Recompute r) {
  return detail::enum_name(r, kRecompute);
}
std::string to_string(PipelineSchedule s) {
  return detail::enum_name(s, kSchedules);
}
std::string to_string(Fsdp f) {
  return f == Fsdp::None ? "none" : detail::enum_name(f, kFsdp);
}

std::string describe(const ParallelPlan& p) {
  std::string out = "dp" + std::to_string(p.dp) + " tp" + std::to_string(p.tp) +
                    (p.sequence_parallel ? "+sp" : "") + " pp" + std::to_string(p.pp);
  if (p.pp > 1)
    out += "(" + to_string(p.pp_schedule) +
           (p.virtual_stages > 1 ? " v" + std::to_string(p.virtual_stages) : "") + ")";
  if (p.ep > 1) out += " ep" + std::to_string(p.ep);
  if (p.fsdp != Fsdp::None) out += " fsdp:" + to_string(p.fsdp);
  if (p.fsdp == Fsdp::HybridShard) out += "/" + std::to_string(p.shard_group_size());
  if (p.zero > 0) out += " zero" + std::to_string(p.zero);
  if (p.offload.optimizer) out += " offload:opt";
  if (p.offload.params) out += " offload:params";
  if (p.recompute != Recompute::None) out += " recompute:" + to_string(p.recompute);
  return out;
}

}  // namespace rigsim::workloads
