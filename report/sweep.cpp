// `rigsim sweep`: the runner (memory first, then a simulated step for the plans that fit), the ranking,
// the table and why the best plan wins. The JSON of a sweep and the merging of slices: sweep_json.cpp.
#include "report/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "common/input.hpp"
#include "model/scenario_run.hpp"
#include "workloads/plans.hpp"

namespace rigsim::report {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// ---- the runner ----

SweepMemory memory_of(const std::vector<model::GpuMemory>& gpus) {
  SweepMemory m;
  for (const model::GpuMemory& g : gpus) {
    m.short_gib = std::max(m.short_gib, (g.need.total().value - g.capacity.value) / kGiB);
    if (g.need.total().value / kGiB <= m.total && m.capacity > 0) continue;
    const auto& n = g.need;
    m.weights = n.weights.value / kGiB;
    m.gradients = n.gradients.value / kGiB;
    m.optimizer = n.optimizer.value / kGiB;
    m.activations = n.activations.value / kGiB;
    m.buffers = n.buffers.value / kGiB;
    m.context = n.context.value / kGiB;
    m.total = n.total().value / kGiB;
    m.host = n.host.value / kGiB;
    m.capacity = g.capacity.value / kGiB;
  }
  return m;
}

SweepTimes times_of(const model::TrainingResult& r) {
  SweepTimes t;
  t.step_time_s = r.step_time_s;
  t.tokens_per_s = r.tokens_per_s;
  t.mfu = r.mfu;
  const double ranks = static_cast<double>(std::max<std::size_t>(1, r.breakdown.size()));
  for (const model::RankBreakdown& b : r.breakdown) {
    t.compute_s += b.compute_s / ranks;
    t.exposed_comm_s += b.exposed_comm_total() / ranks;
    t.bubble_s += b.bubble_s / ranks;
    t.optimizer_s += b.optimizer_s / ranks;
    t.offload_s += b.offload_s / ranks;
    t.idle_s += b.idle_s / ranks;
    for (const auto& [kind, s] : b.exposed_comm_s) t.exposed_comm_by_kind[kind] += s / ranks;
  }
  if (!r.bottlenecks.empty()) {
    t.busiest_link = r.bottlenecks.front().link;
    t.busiest_utilization = r.bottlenecks.front().utilization;
  }
  return t;
}

SweepRow measure(const model::Platform& p, const workloads::Scenario& s, const workloads::ModelConfig& m,
                 const model::Executor& execute) {
  const model::ScenarioRun run = model::prepare_scenario(p, s, m, false);
  SweepRow row;
  row.plan = s.plan;
  const auto memory = model::memory_fit(p, run.scenario, run.model, run.gpus);
  row.memory = memory_of(memory);
  row.fits = std::all_of(memory.begin(), memory.end(), [](const model::GpuMemory& g) { return g.fits(); });
  if (row.fits) row.times = times_of(model::simulate_scenario(p, execute, run));
  return row;
}

std::string workload_of(const workloads::Scenario& s) {
  std::string w = "global batch " + std::to_string(s.global_batch) + ", micro batch " +
                  std::to_string(s.micro_batch) + ", sequence " + std::to_string(s.seq_len) + ", " +
                  std::string(to_string(s.dtype)) + ", " + workloads::to_string(s.optimizer);
  if (s.lora.enabled())
    w += std::string(s.lora.qlora ? ", QLoRA" : ", LoRA") + " rank " + std::to_string(s.lora.rank);
  return w;
}

// ---- ranking and text ----

int tier(const SweepRow& r) {
  return r.times ? 0 : 1;
}

/// How the model is split and whether its states are sharded or offloaded; recomputation and the exact
/// ZeRO stage stay inside a family, so "the best of another family" is a real alternative.
std::string family(const workloads::ParallelPlan& p) {
  std::string split;
  for (const auto& [degree, name] : {std::pair{p.tp, "tensor"}, {p.pp, "pipeline"}, {p.ep, "expert"}})
    if (degree > 1) split += (split.empty() ? "" : " + ") + std::string(name);
  std::string out = split.empty() ? "data parallel" : split + " parallel";
  if (p.offload.any()) return out + " with ZeRO and CPU offload";
  return out + (p.zero > 0 || p.fsdp != workloads::Fsdp::None ? " with ZeRO sharding" : " without sharding");
}

std::string fits_cell(const SweepRow& r) {
  return r.fits ? "yes" : "NO +" + fmt("%.1f", r.memory.short_gib);
}

/// The cells of one row after the plan; "-" for the numbers a plan that does not fit has no simulation of.
std::vector<std::string> cells(const SweepRow& r) {
  const std::string memory = fmt("%.1f", r.memory.total) + "/" + fmt("%.0f", r.memory.capacity);
  if (!r.times) return {"-", "-", "-", memory, fits_cell(r), "-", "-"};
  const SweepTimes& t = *r.times;
  const std::string link =
      t.busiest_link.empty() ? "none" : t.busiest_link + " " + fmt("%.0f %%", 100 * t.busiest_utilization);
  const double comm = t.step_time_s > 0 ? 100 * t.exposed_comm_s / t.step_time_s : 0;
  return {fmt("%.4f", t.step_time_s),
          fmt("%.0f", t.tokens_per_s),
          fmt("%.1f", 100 * t.mfu),
          memory,
          fits_cell(r),
          fmt("%.0f", comm),
          link};
}

void table(const Sweep& sw, std::size_t top, std::ostringstream& out) {
  int width = 4;
  for (std::size_t i = 0; i < top; ++i)
    width = std::max(width, static_cast<int>(workloads::describe(sw.rows[i].plan).size()));
  const auto line = [&out, width](const std::string& rank, const std::string& plan,
                                  const std::vector<std::string>& c) {
    char buf[768];
    std::snprintf(buf, sizeof buf, "%-4s %-*s %9s %9s %6s %13s %-10s %6s  %s\n", rank.c_str(), width,
                  plan.c_str(), c[0].c_str(), c[1].c_str(), c[2].c_str(), c[3].c_str(), c[4].c_str(),
                  c[5].c_str(), c[6].c_str());
    out << buf;
  };
  line("#", "plan", {"step s", "tokens/s", "MFU %", "GiB peak/cap", "fits", "comm %", "busiest link"});
  for (std::size_t i = 0; i < top; ++i)
    line(std::to_string(i + 1), workloads::describe(sw.rows[i].plan), cells(sw.rows[i]));
}

/// The purpose of communication waited for the most ("grad_sync", "tensor_parallel", ...).
std::string top_kind(const SweepTimes& t) {
  std::pair<std::string, double> top{"", 0};
  for (const auto& [k, s] : t.exposed_comm_by_kind)
    if (s > top.second) top = {k, s};
  return top.first;
}

/// "71 % compute, 12 % pipeline bubble, ..." of a step: the terms over 0.5 % of it.
std::string anatomy(const SweepTimes& t) {
  const auto share = [&t](double s) {
    return fmt("%.0f %%", t.step_time_s > 0 ? 100 * s / t.step_time_s : 0);
  };
  std::string out = share(t.compute_s) + " compute";
  const std::pair<double, std::string> terms[] = {
      {t.exposed_comm_s, " exposed communication (mostly " + top_kind(t) + ")"},
      {t.bubble_s, " pipeline bubble"},
      {t.offload_s, " waiting for offload copies"},
      {t.optimizer_s, " optimizer step"}};
  for (const auto& [s, name] : terms)
    if (s > 0 && s >= 0.005 * t.step_time_s) out += ", " + share(s) + name;
  return out;
}

/// What another fitting plan `o` spends more or less than the winner `w`, term by term (terms that differ
/// by under 0.5 % of the winner's step are left out), and its memory.
std::string versus(const SweepRow& w, const SweepRow& o, const std::string& label) {
  const SweepTimes &a = *w.times, &b = *o.times;
  const std::pair<std::string, double> terms[] = {
      {"compute", b.compute_s - a.compute_s},
      {"exposed communication (mostly " + top_kind(b) + ")", b.exposed_comm_s - a.exposed_comm_s},
      {"pipeline bubble", b.bubble_s - a.bubble_s},
      {"offload waits", b.offload_s - a.offload_s},
      {"optimizer", b.optimizer_s - a.optimizer_s},
      {"idle", b.idle_s - a.idle_s}};
  const double fewer = a.tokens_per_s > 0 ? 100 * (1 - b.tokens_per_s / a.tokens_per_s) : 0;
  std::string s = label + ", " + workloads::describe(o.plan) + ", reaches " + fmt("%.0f", b.tokens_per_s) +
                  " tokens/s (" + fmt("%.1f", fewer) + " % fewer); per rank and step, against the winner:";
  const std::pair<std::string, double>* loses = nullptr;  // the term it spends the most extra time in
  bool any = false;
  for (const auto& t : terms) {
    if (std::abs(t.second) < 0.005 * a.step_time_s) continue;
    s += std::string(any ? ", " : " ") + fmt("%+.3f", t.second) + " s " + t.first;
    any = true;
    if (t.second > 0 && (!loses || t.second > loses->second)) loses = &t;
  }
  if (!any) s += " within 0.5 % in every term";
  s += loses ? "; it loses most on " + loses->first.substr(0, loses->first.find(" (")) + "." : ".";
  s += " It needs " + fmt("%.1f", o.memory.total) + " GiB on its fullest GPU (the winner " +
       fmt("%.1f", w.memory.total) + " of " + fmt("%.1f", w.memory.capacity) + ").";
  if (fewer < 1)
    s += " A gap under 1 % is inside the simulator's error: either will do; more headroom is safer.";
  return s;
}

/// Throws the reason why no plan is valid: what validate() says of plain data parallelism over every GPU
/// (a sequence longer than the model's, a batch no plan divides, ...), or that nothing was left.
[[noreturn]] void no_plan(const workloads::Scenario& base, const workloads::ModelConfig& m, int gpus) {
  workloads::ParallelPlan dp;
  dp.dp = gpus;
  workloads::validate(workloads::with_plan(base, dp, gpus), m, gpus);
  throw InputError(base.file, "/parallel",
                   "no valid parallelism plan of " + m.name + " on " + std::to_string(gpus) +
                       " GPUs: no dp x tp x pp split divides the batch, heads and layers");
}

/// "activations (90.1 GiB)": the biggest part of a GPU's memory, what a user would shrink first.
std::string largest_term(const SweepMemory& m) {
  const std::pair<const char*, double> terms[] = {
      {"weights", m.weights},         {"gradients", m.gradients}, {"optimizer states", m.optimizer},
      {"activations", m.activations}, {"buffers", m.buffers},     {"CUDA context", m.context}};
  const auto* top = std::max_element(std::begin(terms), std::end(terms),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  return std::string(top->first) + " (" + fmt("%.1f", top->second) + " GiB)";
}

const SweepRow* closest_misfit(const Sweep& sw) {
  for (const SweepRow& r : sw.rows)
    if (!r.times) return &r;  // ranked: the first that does not fit is short the least
  return nullptr;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto bad = [&text](const std::string& why) {
    throw InputError("--shard", "",
                     "expected K/N with 1 <= K <= N (slice K of N, e.g. 2/8), got \"" + text + "\": " + why);
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) bad("no '/'");
  const auto number = [&bad](const std::string& digits) {
    if (digits.empty() || digits.size() > 6 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      bad("\"" + digits + "\" is not a whole number from 1 to 999999");
    return std::stoi(digits);
  };
  const Shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.n < 1 || s.k < 1) bad("K and N start at 1");
  if (s.k > s.n) bad("K is larger than N");
  return s;
}

Sweep run_sweep(const model::Platform& platform, const workloads::Scenario& base,
                const workloads::ModelConfig& m, const Shard& shard, const model::Executor& execute) {
  const int gpus = base.gpus.empty() ? static_cast<int>(platform.topology().gpus().size())
                                     : static_cast<int>(base.gpus.size());
  const auto plans = workloads::enumerate_plans(m, gpus, base);
  if (plans.empty()) no_plan(base, m, gpus);
  Sweep sw;
  sw.header = {base.name.empty() ? "scenario" : base.name,
               m.name,
               platform.topology().name(),
               workload_of(base),
               gpus,
               static_cast<int>(plans.size()),
               shard};
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (!shard.holds(static_cast<int>(i))) continue;
    sw.rows.push_back(measure(platform, workloads::with_plan(base, plans[i], gpus), m, execute));
    sw.rows.back().index = static_cast<int>(i);
  }
  sweep_rank(sw.rows);
  return sw;
}

void sweep_rank(std::vector<SweepRow>& rows) {
  // Ties are what the table shows as equal (whole tokens/s, tenths of a GiB): plans that differ in the
  // fifth digit (ZeRO-1/2/3 hiding the same traffic) are then ordered by memory, not by noise. Integer
  // keys keep the comparison a strict weak ordering.
  const auto key = [](const SweepRow& r) {
    return r.times ? -std::llround(r.times->tokens_per_s) : std::llround(r.memory.short_gib * 10);
  };
  std::sort(rows.begin(), rows.end(), [&key](const SweepRow& a, const SweepRow& b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    if (key(a) != key(b)) return key(a) < key(b);
    if (a.memory.total != b.memory.total) return a.memory.total < b.memory.total;  // more headroom first
    return a.index < b.index;
  });
}

std::vector<std::string> sweep_why(const Sweep& sw) {
  std::vector<std::string> out;
  if (sw.rows.empty()) {
    out.push_back("This slice holds no plan: N is larger than the " + std::to_string(sw.header.total_plans) +
                  " plans.");
    return out;
  }
  if (!sw.rows.front().times) {
    const SweepRow& c = sw.rows.front();  // ranked: the closest to fitting
    out.push_back("No plan fits in GPU memory. The closest, " + workloads::describe(c.plan) + ", needs " +
                  fmt("%.1f", c.memory.total) + " GiB on its fullest GPU of " +
                  fmt("%.1f", c.memory.capacity) + " GiB (" + fmt("%.1f", c.memory.short_gib) +
                  " GiB short); its largest term is " + largest_term(c.memory) + ".");
    return out;
  }
  const SweepRow& w = sw.rows.front();
  out.push_back(workloads::describe(w.plan) + " (" + family(w.plan) + ") is fastest at " +
                fmt("%.0f", w.times->tokens_per_s) + " tokens/s, MFU " + fmt("%.1f", 100 * w.times->mfu) +
                " %: its step is " + anatomy(*w.times) + ".");
  std::set<std::string> families{family(w.plan)};
  if (sw.rows.size() > 1 && sw.rows[1].times) {
    out.push_back(versus(w, sw.rows[1], "The runner-up"));
    families.insert(family(sw.rows[1].plan));
  }
  // The best plan of a family not shown yet: the alternative a reader would try next.
  for (const SweepRow& r : sw.rows)
    if (r.times && !families.contains(family(r.plan))) {
      out.push_back(versus(w, r, "The best " + family(r.plan) + " plan"));
      break;
    }
  if (const SweepRow* c = closest_misfit(sw))
    out.push_back("Of the plans that do not fit, the closest is " + workloads::describe(c->plan) + ", " +
                  fmt("%.1f", c->memory.short_gib) + " GiB short on its fullest GPU.");
  return out;
}

std::string sweep_text(const Sweep& sw, int top) {
  const auto& h = sw.header;
  std::ostringstream out;
  out << "sweep " << h.scenario << ": " << h.model << " on " << h.layout << " (" << h.gpus
      << (h.gpus == 1 ? " GPU), " : " GPUs), ") << h.workload << "\n";
  if (h.shard.n > 1)
    out << "slice " << h.shard.str() << " of the plan list (join the slices with sweep-merge)\n";
  const auto fitting =
      std::count_if(sw.rows.begin(), sw.rows.end(), [](const SweepRow& r) { return r.fits; });
  out << "\n"
      << sw.rows.size() << " plans tried" << (h.shard.n > 1 ? " of " + std::to_string(h.total_plans) : "")
      << ": " << fitting << " fit and were simulated, " << sw.rows.size() - fitting
      << " do not fit in GPU memory (not simulated).\n\n";
  table(sw, std::min<std::size_t>(sw.rows.size(), static_cast<std::size_t>(std::max(top, 0))), out);
  out << "\nRanked by tokens/s among the plans that fit, then the others by how much they are short (fits: "
         "NO +GiB\n"
         "short on the fullest GPU). comm %: exposed communication, share of the step (mean over ranks).\n";
  out << "\nWhy the best wins:\n";
  for (const auto& s : sweep_why(sw)) out << "  " << s << "\n";
  return out.str();
}

}  // namespace rigsim::report
