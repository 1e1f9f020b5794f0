// `rigsim run` reports: a step's numbers and the reasons behind them.
#include "report/training.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace rigsim::report {
namespace {

using model::GpuMemory;
using model::RankBreakdown;
using model::TrainingResult;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string gib(Bytes b) {
  return fmt("%.1f", b.value / kGiB);
}

/// The plan and, when it fine-tunes adapters, the LoRA / QLoRA rank: what the job is, in one line.
std::string job_words(const workloads::Scenario& s) {
  std::string out = workloads::describe(s.plan);
  if (s.lora.enabled())
    out += std::string(s.lora.qlora ? " qlora r" : " lora r") + std::to_string(s.lora.rank);
  return out;
}

const topology::Topology& topo_of(const RunContext& ctx) {
  return ctx.platform->topology();
}

/// Mean over ranks of one breakdown term.
template <typename F>
double mean(const TrainingResult& r, F term) {
  if (r.breakdown.empty()) return 0;
  double sum = 0;
  for (const auto& b : r.breakdown) sum += term(b);
  return sum / static_cast<double>(r.breakdown.size());
}

/// The biggest exposed-communication kind, averaged over ranks.
std::pair<std::string, double> top_comm(const TrainingResult& r) {
  std::map<std::string, double> sum;
  for (const auto& b : r.breakdown)
    for (const auto& [k, s] : b.exposed_comm_s) sum[k] += s / static_cast<double>(r.breakdown.size());
  std::pair<std::string, double> best{"", 0};
  for (const auto& [k, s] : sum)
    if (s > best.second) best = {k, s};
  return best;
}

std::string pct(double part, double whole) {
  return fmt("%.0f %%", whole > 0 ? 100 * part / whole : 0);
}

/// The largest memory term of a GPU that does not fit, with what would shrink it.
std::string fit_advice(const GpuMemory& g) {
  const auto& n = g.need;
  const std::pair<const char*, double> terms[] = {{"optimizer states", n.optimizer.value},
                                                  {"weights", n.weights.value},
                                                  {"activations", n.activations.value},
                                                  {"gradients", n.gradients.value}};
  const auto* top = std::max_element(std::begin(terms), std::end(terms),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string advice =
      "the largest term is " + std::string(top->first) + " (" + fmt("%.1f", top->second / kGiB) + " GiB)";
  if (top == &terms[0] || top == &terms[3])
    advice += ": sharding them (ZeRO-2/3, FSDP) over more GPUs, an 8-bit optimizer or CPU offload shrinks it";
  else if (top == &terms[1])
    advice += ": ZeRO-3/FSDP, tensor or pipeline parallelism split the weights; LoRA/QLoRA freezes them";
  else
    advice += ": activation recomputation or a smaller micro-batch shrinks it";
  return advice;
}

void memory_why(const RunContext& ctx, const TrainingResult& r, std::vector<std::string>& out) {
  for (const GpuMemory& g : r.memory) {
    if (g.fits()) continue;
    out.push_back("It does not fit: " + topo_of(ctx).device(g.gpu).name + " needs " + gib(g.need.total()) +
                  " GiB of its " + gib(g.capacity) + " GiB (" +
                  gib(Bytes{g.need.total().value - g.capacity.value}) + " GiB short); " + fit_advice(g) +
                  ".");
    return;  // one GPU says it; the table shows the rest
  }
}

void time_why(const TrainingResult& r, std::vector<std::string>& out) {
  const double step = r.step_time_s;
  const double compute = mean(r, [](const RankBreakdown& b) { return b.compute_s; });
  const auto [kind, comm] = top_comm(r);
  const double bubble = mean(r, [](const RankBreakdown& b) { return b.bubble_s; });
  const double offload = mean(r, [](const RankBreakdown& b) { return b.offload_s; });
  const double optimizer = mean(r, [](const RankBreakdown& b) { return b.optimizer_s; });
  // Terms under half a per cent of the step are left out of the sentence (the table has them all).
  const auto shown = [step](double part) { return step > 0 && part >= 0.005 * step; };
  std::string s = pct(compute, step) + " of the step is forward/backward compute";
  if (shown(comm)) s += ", " + pct(comm, step) + " exposed " + kind + " communication";
  if (shown(bubble)) s += ", " + pct(bubble, step) + " pipeline bubble";
  if (shown(offload)) s += ", " + pct(offload, step) + " waiting for offload copies";
  if (shown(optimizer)) s += ", " + pct(optimizer, step) + " optimizer step";
  out.push_back(s + " (mean over ranks).");
}

void link_why(const TrainingResult& r, std::vector<std::string>& out) {
  if (r.bottlenecks.empty()) {
    out.push_back("No link carries traffic that matters: the GPUs never wait for each other.");
    return;
  }
  const auto& top = r.bottlenecks.front();
  std::string s =
      "The busiest link is " + top.link + ", " + fmt("%.0f", 100 * top.utilization) + " % used over the step";
  const auto [kind, comm] = top_comm(r);
  if (comm > 0.2 * r.step_time_s)
    s += "; communication is exposed, so a faster path there (NVLink, more PCIe lanes, a switch that keeps "
         "P2P local) would shorten the step";
  out.push_back(s + ".");
}

void breakdown_table(const RunContext& ctx, const TrainingResult& r, std::ostringstream& out) {
  out << "\nPer rank (seconds of the step):\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-5s %-10s %9s %9s %9s %9s %9s %9s\n", "rank", "gpu", "compute",
                "exposed", "bubble", "optimizer", "offload", "idle");
  out << buf;
  for (const auto& b : r.breakdown) {
    std::snprintf(buf, sizeof buf, "  %-5d %-10s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", b.rank,
                  topo_of(ctx).device(b.gpu).name.c_str(), b.compute_s, b.exposed_comm_total(), b.bubble_s,
                  b.optimizer_s, b.offload_s, b.idle_s);
    out << buf;
  }
}

void memory_table(const RunContext& ctx, const TrainingResult& r, std::ostringstream& out) {
  out << "\nMemory per GPU (GiB):\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-10s %8s %8s %9s %11s %8s %8s %8s %9s  %s\n", "gpu", "weights", "grads",
                "optimizer", "activations", "buffers", "context", "total", "capacity", "fits");
  out << buf;
  for (const GpuMemory& g : r.memory) {
    const auto& n = g.need;
    std::snprintf(buf, sizeof buf, "  %-10s %8.1f %8.1f %9.1f %11.1f %8.1f %8.1f %8.1f %9.1f  %s\n",
                  topo_of(ctx).device(g.gpu).name.c_str(), n.weights.value / kGiB, n.gradients.value / kGiB,
                  n.optimizer.value / kGiB, n.activations.value / kGiB, n.buffers.value / kGiB,
                  n.context.value / kGiB, n.total().value / kGiB, g.capacity.value / kGiB,
                  g.fits() ? "yes" : "NO");
    out << buf;
  }
  if (!r.memory.empty() && r.memory.front().need.host.value > 0)
    out << "  host memory per rank for offloaded states: " << gib(r.memory.front().need.host) << " GiB\n";
}

}  // namespace

std::vector<std::string> why(const RunContext& ctx, const TrainingResult& r) {
  std::vector<std::string> out;
  memory_why(ctx, r, out);
  time_why(r, out);
  link_why(r, out);
  return out;
}

std::string training_text(const RunContext& ctx, const TrainingResult& r) {
  std::ostringstream out;
  const auto& s = *ctx.scenario;
  out << (s.name.empty() ? "scenario" : s.name) << ": " << ctx.model->name << " on " << topo_of(ctx).name()
      << " (" << r.breakdown.size() << " GPUs), " << job_words(s) << "\n";
  for (const auto& n : ctx.notes) out << "  note: " << n << "\n";
  out << "\nStep time   " << fmt("%.4f", r.step_time_s) << " s\n"
      << "Tokens/s    " << fmt("%.0f", r.tokens_per_s) << "  (" << fmt("%.0f", r.tokens_per_step)
      << " tokens per step)\n"
      << "Samples/s   " << fmt("%.2f", r.samples_per_s) << "\n"
      << "MFU         " << fmt("%.1f", 100 * r.mfu) << " %  (model FLOPs per second / peak of "
      << fmt("%.0f", r.peak_flops / 1e12) << " TFLOP/s)\n"
      << "Fits        " << (r.fits ? "yes" : "NO") << "\n";
  memory_table(ctx, r, out);
  breakdown_table(ctx, r, out);
  out << "\nBusiest links:\n";
  for (const auto& u : r.bottlenecks)
    out << "  " << u.link << ": " << fmt("%.1f", 100 * u.utilization) << " %\n";
  if (r.bottlenecks.empty()) out << "  none\n";
  out << "\nWhy:\n";
  for (const auto& w : why(ctx, r)) out << "  " << w << "\n";
  return out.str();
}

nlohmann::json training_json(const RunContext& ctx, const TrainingResult& r) {
  using nlohmann::json;
  json j;
  j["layout"] = topo_of(ctx).name();
  j["scenario"] = ctx.scenario->name;
  j["model"] = ctx.model->name;
  j["plan"] = job_words(*ctx.scenario);
  j["notes"] = ctx.notes;
  j["step_time_s"] = r.step_time_s;
  j["tokens_per_s"] = r.tokens_per_s;
  j["samples_per_s"] = r.samples_per_s;
  j["mfu"] = r.mfu;
  j["fits"] = r.fits;
  j["memory_gib"] = json::array();
  for (const GpuMemory& g : r.memory)
    j["memory_gib"].push_back({{"gpu", topo_of(ctx).device(g.gpu).name},
                               {"weights", g.need.weights.value / kGiB},
                               {"gradients", g.need.gradients.value / kGiB},
                               {"optimizer", g.need.optimizer.value / kGiB},
                               {"activations", g.need.activations.value / kGiB},
                               {"buffers", g.need.buffers.value / kGiB},
                               {"context", g.need.context.value / kGiB},
                               {"total", g.need.total().value / kGiB},
                               {"host", g.need.host.value / kGiB},
                               {"capacity", g.capacity.value / kGiB},
                               {"fits", g.fits()}});
  j["breakdown"] = json::array();
  for (const auto& b : r.breakdown)
    j["breakdown"].push_back({{"rank", b.rank},
                              {"gpu", topo_of(ctx).device(b.gpu).name},
                              {"compute_s", b.compute_s},
                              {"exposed_comm_s", b.exposed_comm_total()},
                              {"exposed_comm_by_kind", b.exposed_comm_s},
                              {"bubble_s", b.bubble_s},
                              {"optimizer_s", b.optimizer_s},
                              {"offload_s", b.offload_s},
                              {"idle_s", b.idle_s}});
  j["bottlenecks"] = json::array();
  for (const auto& u : r.bottlenecks)
    j["bottlenecks"].push_back({{"link", u.link}, {"utilization", u.utilization}});
  j["why"] = why(ctx, r);
  j["tasks"] = r.tasks;
  return j;
}

nlohmann::json training_trace(const RunContext& ctx, const TrainingResult& r) {
  using nlohmann::json;
  json events = json::array();
  const auto pid = [&](int rank) { return rank < 0 ? static_cast<int>(r.breakdown.size()) : rank; };
  for (std::size_t k = 0; k < r.breakdown.size(); ++k)
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", k},
                      {"args",
                       {{"name", "rank " + std::to_string(k) + " (" +
                                     topo_of(ctx).device(r.breakdown[k].gpu).name + ")"}}}});
  events.push_back(
      {{"ph", "M"}, {"name", "process_name"}, {"pid", pid(-1)}, {"args", {{"name", "network"}}}});
  for (const auto& e : r.trace)
    events.push_back({{"ph", "X"},
                      {"name", e.name},
                      {"pid", pid(e.rank)},
                      {"tid", e.stream},
                      {"ts", e.start_s * 1e6},
                      {"dur", (e.finish_s - e.start_s) * 1e6}});
  for (const auto& u : r.bottlenecks) {
    events.push_back({{"ph", "C"},
                      {"name", u.link},
                      {"pid", pid(-1)},
                      {"ts", 0.0},
                      {"args", {{"mean utilisation %", 100 * u.utilization}}}});
    events.push_back({{"ph", "C"},
                      {"name", u.link},
                      {"pid", pid(-1)},
                      {"ts", r.step_time_s * 1e6},
                      {"args", {{"mean utilisation %", 0.0}}}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace rigsim::report
