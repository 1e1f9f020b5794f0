// `rigsim sweep --json` and `rigsim sweep-merge`: a sweep's rows as JSON, read back strictly, and the
// slices of one sweep (--shard K/N) joined into the whole.
#include <set>
#include <tuple>

#include "common/input.hpp"
#include "report/sweep.hpp"

namespace rigsim::report {
namespace {

/// Marks the JSON of a sweep, with its version: sweep-merge reads only this format.
constexpr const char* kFormat = "rigsim-sweep/1";

/// "tp,dp,pp": the placement as the scenario format writes it (workloads::parse_placement reads it).
std::string placement(const std::vector<workloads::Axis>& order) {
  std::string out;
  for (workloads::Axis a : order) {
    const char* name = a == workloads::Axis::Tp ? "tp" : a == workloads::Axis::Dp ? "dp" : "pp";
    out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out;
}

nlohmann::ordered_json plan_json(const workloads::ParallelPlan& p) {
  return {{"dp", p.dp},
          {"tp", p.tp},
          {"pp", p.pp},
          {"ep", p.ep},
          {"sequence_parallel", p.sequence_parallel},
          {"pp_schedule", to_string(p.pp_schedule)},
          {"virtual_stages", p.virtual_stages},
          {"zero", p.zero},
          {"fsdp", to_string(p.fsdp)},
          {"hybrid_group", p.hybrid_group},
          {"recompute", to_string(p.recompute)},
          {"offload", {{"optimizer", p.offload.optimizer}, {"params", p.offload.params}}},
          {"placement", placement(p.order)}};
}

nlohmann::ordered_json memory_json(const SweepMemory& m) {
  return {{"total", m.total},
          {"capacity", m.capacity},
          {"short", m.short_gib},
          {"weights", m.weights},
          {"gradients", m.gradients},
          {"optimizer", m.optimizer},
          {"activations", m.activations},
          {"buffers", m.buffers},
          {"context", m.context},
          {"host", m.host}};
}

nlohmann::ordered_json breakdown_json(const SweepTimes& t) {
  return {{"compute_s", t.compute_s},
          {"exposed_comm_s", t.exposed_comm_s},
          {"exposed_comm_by_kind", t.exposed_comm_by_kind},
          {"bubble_s", t.bubble_s},
          {"optimizer_s", t.optimizer_s},
          {"offload_s", t.offload_s},
          {"idle_s", t.idle_s}};
}

/// Headline numbers first, then memory, breakdown and the plan's fields.
nlohmann::ordered_json row_json(const SweepRow& r) {
  nlohmann::ordered_json j{{"index", r.index}, {"plan", workloads::describe(r.plan)}, {"fits", r.fits}};
  if (r.times) {
    j["step_time_s"] = r.times->step_time_s;
    j["tokens_per_s"] = r.times->tokens_per_s;
    j["mfu"] = r.times->mfu;
  }
  j["memory_gib"] = memory_json(r.memory);
  if (r.times) {
    j["breakdown"] = breakdown_json(*r.times);
    j["busiest_link"] = {{"link", r.times->busiest_link}, {"utilization", r.times->busiest_utilization}};
  }
  j["parallel"] = plan_json(r.plan);
  return j;
}

double number(ObjectReader& r, const std::string& key) {
  const auto v = r.optional_number(key);
  if (!v) r.fail(key, "missing number");
  return *v;
}

/// An enum written by to_string, read back by matching every value's name.
template <typename E>
E word(ObjectReader& r, const std::string& key, std::initializer_list<E> values) {
  const std::string w = r.required_string(key);
  for (E v : values)
    if (to_string(v) == w) return v;
  r.fail(key, "unknown value \"" + w + "\"");
}

workloads::ParallelPlan plan_from(ObjectReader r) {
  using namespace workloads;
  ParallelPlan p;
  for (auto [key, field] : {std::pair{"dp", &p.dp},
                            {"tp", &p.tp},
                            {"pp", &p.pp},
                            {"ep", &p.ep},
                            {"virtual_stages", &p.virtual_stages},
                            {"zero", &p.zero},
                            {"hybrid_group", &p.hybrid_group}})
    *field = r.required_int(key);
  p.sequence_parallel = r.required_bool("sequence_parallel");
  p.pp_schedule = word(r, "pp_schedule",
                       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved});
  p.fsdp = word(r, "fsdp", {Fsdp::None, Fsdp::FullShard, Fsdp::ShardGradOp, Fsdp::HybridShard});
  p.recompute = word(r, "recompute", {Recompute::None, Recompute::Selective, Recompute::Full});
  ObjectReader off = r.child("offload");
  p.offload = {off.required_bool("optimizer"), off.required_bool("params")};
  off.finish();
  const auto order = parse_placement(r.required_string("placement"));
  if (!order) r.fail("placement", "expected three of tp, dp, pp separated by commas");
  p.order = *order;
  r.finish();
  return p;
}

SweepTimes times_from(ObjectReader& r) {
  SweepTimes t;
  t.step_time_s = number(r, "step_time_s");
  t.tokens_per_s = number(r, "tokens_per_s");
  t.mfu = number(r, "mfu");
  ObjectReader b = r.child("breakdown");
  for (auto [key, field] : {std::pair{"compute_s", &t.compute_s},
                            {"exposed_comm_s", &t.exposed_comm_s},
                            {"bubble_s", &t.bubble_s},
                            {"optimizer_s", &t.optimizer_s},
                            {"offload_s", &t.offload_s},
                            {"idle_s", &t.idle_s}})
    *field = number(b, key);
  ObjectReader kinds = b.child("exposed_comm_by_kind");
  for (const auto& [kind, v] : b.required_object("exposed_comm_by_kind").items())
    t.exposed_comm_by_kind[kind] = number(kinds, kind);
  kinds.finish();
  b.finish();
  ObjectReader link = r.child("busiest_link");
  t.busiest_link = link.required_string("link");
  t.busiest_utilization = number(link, "utilization");
  link.finish();
  return t;
}

SweepRow row_from(ObjectReader r, const SweepHeader& h) {
  SweepRow row;
  row.index = r.required_int("index");
  if (row.index < 0 || row.index >= h.total_plans || !h.shard.holds(row.index))
    r.fail("index", "plan " + std::to_string(row.index) + " is not in slice " + h.shard.str() + " of " +
                        std::to_string(h.total_plans) + " plans");
  r.required_string("plan");  // describe(parallel), for people; rebuilt from "parallel"
  row.plan = plan_from(r.child("parallel"));
  row.fits = r.required_bool("fits");
  ObjectReader m = r.child("memory_gib");
  SweepMemory& g = row.memory;
  for (auto [key, field] : {std::pair{"weights", &g.weights},
                            {"gradients", &g.gradients},
                            {"optimizer", &g.optimizer},
                            {"activations", &g.activations},
                            {"buffers", &g.buffers},
                            {"context", &g.context},
                            {"total", &g.total},
                            {"capacity", &g.capacity},
                            {"host", &g.host},
                            {"short", &g.short_gib}})
    *field = number(m, key);
  m.finish();
  if (row.fits) row.times = times_from(r);
  r.finish();
  return row;
}

/// Plans of slice k of n among `total`: the indices i < total with i % n == k - 1.
int slice_size(const Shard& s, int total) {
  return total > s.k - 1 ? (total - s.k + s.n) / s.n : 0;
}

}  // namespace

nlohmann::ordered_json sweep_json(const Sweep& sw) {
  const auto& h = sw.header;
  nlohmann::ordered_json j{{"format", kFormat},
                           {"scenario", h.scenario},
                           {"model", h.model},
                           {"layout", h.layout},
                           {"workload", h.workload},
                           {"gpus", h.gpus},
                           {"total_plans", h.total_plans},
                           {"shard", h.shard.str()},
                           {"plans", nlohmann::ordered_json::array()}};
  for (const SweepRow& r : sw.rows) j["plans"].push_back(row_json(r));
  return j;
}

Sweep sweep_from_json(const nlohmann::json& doc, const std::string& file) {
  const char* what =
      "not the JSON of a sweep: write slices with `rigsim sweep ... --shard K/N --json -o FILE`";
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat)
    throw InputError(file, "", what);
  ObjectReader r(doc, file, "");
  r.required_string("format");
  Sweep sw;
  SweepHeader& h = sw.header;
  h = {r.required_string("scenario"),
       r.required_string("model"),
       r.required_string("layout"),
       r.required_string("workload"),
       r.required_int("gpus"),
       r.required_int("total_plans"),
       {}};
  try {
    h.shard = parse_shard(r.required_string("shard"));
  } catch (const InputError& e) {
    r.fail("shard", e.what());
  }
  const nlohmann::json& plans = r.required_array("plans");
  for (std::size_t i = 0; i < plans.size(); ++i) sw.rows.push_back(row_from(r.element(plans, "plans", i), h));
  r.finish();
  return sw;
}

Sweep sweep_merge(const std::vector<Sweep>& slices, const std::vector<std::string>& files) {
  if (slices.empty())
    throw InputError("sweep-merge", "", "expected the JSON files of a sweep's slices, got none");
  const SweepHeader& h0 = slices.front().header;
  std::vector<std::string> holder(static_cast<std::size_t>(h0.shard.n));
  Sweep out{h0, {}};
  out.header.shard = {};
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const SweepHeader& h = slices[i].header;
    for (const auto& [field, a, b] :
         {std::tuple{"scenario", h.scenario, h0.scenario},
          {"model", h.model, h0.model},
          {"layout", h.layout, h0.layout},
          {"workload", h.workload, h0.workload},
          {"gpus", std::to_string(h.gpus), std::to_string(h0.gpus)},
          {"total_plans", std::to_string(h.total_plans), std::to_string(h0.total_plans)},
          {"slice count N", std::to_string(h.shard.n), std::to_string(h0.shard.n)}})
      if (a != b)
        throw InputError(files[i], "",
                         std::string("belongs to another sweep: its ") + field + " is \"" + a + "\" where " +
                             files.front() + " has \"" + b + "\"");
    std::string& seen = holder[static_cast<std::size_t>(h.shard.k - 1)];
    if (!seen.empty()) throw InputError(files[i], "/shard", "slice " + h.shard.str() + " appears twice: it was already read from " + seen);
    seen = files[i];
    const int want = slice_size(h.shard, h.total_plans);
    if (static_cast<int>(slices[i].rows.size()) != want)
      throw InputError(files[i], "/plans",
                       "slice " + h.shard.str() + " holds " + std::to_string(slices[i].rows.size()) +
                           " plans, expected " + std::to_string(want) + " of " +
                           std::to_string(h.total_plans));
    out.rows.insert(out.rows.end(), slices[i].rows.begin(), slices[i].rows.end());
  }
  std::string missing;
  for (std::size_t k = 0; k < holder.size(); ++k)
    if (holder[k].empty())
      missing += (missing.empty() ? "" : ", ") + Shard{static_cast<int>(k) + 1, h0.shard.n}.str();
  if (!missing.empty())
    throw InputError("sweep-merge", "", "missing slice(s) " + missing + " of the sweep in " + files.front());
  std::set<int> indices;
  for (const SweepRow& r : out.rows)
    if (!indices.insert(r.index).second)
      throw InputError("sweep-merge", "",
                       "plan " + std::to_string(r.index) + " appears twice among the slices");
  sweep_rank(out.rows);
  return out;
}

}  // namespace rigsim::report
