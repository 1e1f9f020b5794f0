// run_training(): a workload Program as one task graph. Ops are emitted stream by stream in program
// order (the engine runs each stream's tasks in index order), and a collective or pipeline message is
// emitted once every member rank has reached it:
//   member r:  ... -> arrive_r (a zero-time task on r's stream)
//   all arrivals -> join -> the NCCL plan's transfers -> end
//   member r:  done_r (a zero-time task on r's stream, after end) -> ...
// so a member's stream is held from its arrival until the whole collective has finished, as a blocking
// NCCL call on a CUDA stream is. The graph is topologically ordered by construction.
#include "model/training.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <stdexcept>

#include "calibration/compute.hpp"
#include "common/input.hpp"
#include "model/training_graph.hpp"

namespace rigsim::model {
namespace {

using topology::DeviceId;

/// What the compute stream of a rank waited for, by the kind of task that released it.
void attribute_gap(const detail::TaskInfo& blocker, double gap, RankBreakdown& b) {
  using workloads::OpKind;
  switch (blocker.kind) {
    case OpKind::Collective:
      b.exposed_comm_s[std::string(workloads::to_string(blocker.purpose))] += gap;
      return;
    case OpKind::Send:
    case OpKind::Recv:
      b.bubble_s += gap;
      return;
    case OpKind::HostToDevice:
    case OpKind::DeviceToHost:
      b.offload_s += gap;
      return;
    case OpKind::CpuWork:
      b.optimizer_s += gap;
      return;
    case OpKind::Kernel:
      break;
  }
  b.idle_s += gap;
}

/// The dependency of task `t` that finished last (its `after` list and the task before it on its
/// stream): what it waited for.
std::size_t last_dependency(const detail::StepGraph& g, const RunResult& r, std::size_t t) {
  std::size_t best = t;
  double finish = -1;
  auto consider = [&](std::size_t d) {
    if (r.transfers[d].finish.value > finish) {
      finish = r.transfers[d].finish.value;
      best = d;
    }
  };
  for (std::size_t d : g.tasks()[t].after) consider(d);
  if (g.info()[t].prev_in_stream >= 0) consider(static_cast<std::size_t>(g.info()[t].prev_in_stream));
  return best;
}

void add_kernel_time(const detail::TaskInfo& info, double seconds, RankBreakdown& b) {
  if (info.purpose == workloads::Purpose::Optimizer)
    b.optimizer_s += seconds;
  else
    b.compute_s += seconds;
}

bool host_side(const detail::TaskInfo& info, int rank) {
  using workloads::OpKind;
  return info.rank == rank && (info.kind == OpKind::HostToDevice || info.kind == OpKind::DeviceToHost ||
                               info.kind == OpKind::CpuWork);
}

/// Attributes the wait [from, to] of a rank's compute stream to what released it: the chain of the
/// rank's host-side tasks (offload copies and the host optimizer) is walked back, each task's share of
/// the wait going to its own kind, so waiting for a copy that waited for the CPU's optimizer step counts
/// as optimizer time; anything else is attributed to the task that released the wait.
void attribute_wait(const detail::StepGraph& g, const RunResult& r, std::size_t blocker, double from,
                    double to, int rank, RankBreakdown& b) {
  std::size_t t = blocker;
  double end = to;
  while (end - from > 1e-15 && host_side(g.info()[t], rank)) {
    const std::size_t d = last_dependency(g, r, t);
    const double begin = d == t ? from : std::max(from, r.transfers[d].finish.value);
    attribute_gap(g.info()[t], end - begin, b);
    end = begin;
    if (d == t) return;
    t = d;
  }
  if (end - from > 1e-15) attribute_gap(g.info()[t], end - from, b);
}

RankBreakdown breakdown_of(const detail::StepGraph& g, const RunResult& r, int rank, DeviceId gpu,
                           double step) {
  RankBreakdown b;
  b.rank = rank;
  b.gpu = gpu;
  double prev = 0;
  std::size_t last_task = 0;
  double last_finish = -1;
  for (std::size_t t = 0; t < g.tasks().size(); ++t) {
    const detail::TaskInfo& info = g.info()[t];
    if (info.rank != rank) continue;
    if (r.transfers[t].finish.value > last_finish) {
      last_finish = r.transfers[t].finish.value;
      last_task = t;
    }
    if (info.kind != workloads::OpKind::Kernel || info.stream != workloads::Stream::Compute) continue;
    const double start = r.transfers[t].start.value, finish = r.transfers[t].finish.value;
    if (start - prev > 1e-12) attribute_wait(g, r, last_dependency(g, r, t), prev, start, rank, b);
    add_kernel_time(info, finish - start, b);
    prev = finish;
  }
  if (step - prev > 1e-12) {
    const detail::TaskInfo& tail = g.info()[last_task];
    const bool own_kernel =
        tail.kind == workloads::OpKind::Kernel && tail.stream == workloads::Stream::Compute;
    if (own_kernel)
      b.idle_s += step - prev;
    else
      attribute_wait(g, r, last_task, prev, step, rank, b);
  }
  return b;
}

std::vector<TraceEvent> trace_of(const detail::StepGraph& g, const RunResult& r) {
  std::vector<TraceEvent> out;
  for (std::size_t t = 0; t < g.tasks().size(); ++t) {
    const detail::TaskInfo& info = g.info()[t];
    if (info.name.empty()) continue;  // zero-time bookkeeping (arrive, join, end)
    out.push_back({info.rank, info.rank < 0 ? "net" : std::string(detail::stream_name(info.stream)),
                   info.name, r.transfers[t].start.value, r.transfers[t].finish.value});
  }
  return out;
}

double peak_flops(const Platform& p, const workloads::Scenario& s, const std::vector<DeviceId>& gpus) {
  double sum = 0;
  for (DeviceId g : gpus) sum += calibration::peak_tflops(*p.topology().device(g).gpu, s.dtype) * 1e12;
  return sum;
}

}  // namespace

double RankBreakdown::exposed_comm_total() const {
  double sum = 0;
  for (const auto& [purpose, s] : exposed_comm_s) sum += s;
  return sum;
}

std::vector<DeviceId> scenario_gpus(const topology::Topology& topo, const std::vector<std::string>& names,
                                    const std::string& file) {
  if (names.empty()) return topo.gpus();
  std::vector<DeviceId> out;
  std::set<DeviceId> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto id = topo.try_find(names[i]);
    const std::string where = "/gpus/" + std::to_string(i);
    if (!id || topo.device(*id).kind != topology::DeviceKind::Gpu)
      throw InputError(file, where, "\"" + names[i] + "\" is not a GPU of layout " + topo.name());
    if (!seen.insert(*id).second) throw InputError(file, where, "GPU \"" + names[i] + "\" is listed twice");
    out.push_back(*id);
  }
  return out;
}

std::vector<GpuMemory> memory_fit(const Platform& platform, const workloads::Scenario& s,
                                  const workloads::ModelConfig& m, const std::vector<DeviceId>& gpus) {
  const auto plan = workloads::memory_plan(s, m);
  std::vector<GpuMemory> out;
  for (std::size_t r = 0; r < plan.size() && r < gpus.size(); ++r) {
    // The catalog's "GB" of GPU memory are binary, as nvidia-smi shows them (an RTX 3090's 24 GB is
    // 24576 MiB; an A100 80GB's 81920 MiB).
    const double gib = platform.topology().device(gpus[r]).gpu->memory_gb;
    out.push_back({static_cast<int>(r), gpus[r], plan[r], Bytes{gib * 1024.0 * 1024.0 * 1024.0}});
  }
  return out;
}

TrainingResult run_training(const Platform& platform, const Executor& execute, const workloads::Scenario& s,
                            const workloads::ModelConfig& m, const workloads::Program& program,
                            const std::vector<DeviceId>& gpus, const TrainingOptions& options) {
  if (gpus.size() != program.ranks.size())
    throw std::invalid_argument("the program has " + std::to_string(program.ranks.size()) + " ranks but " +
                                std::to_string(gpus.size()) + " GPUs were given");
  detail::StepGraph graph(platform, program, gpus, options.collective);
  const RunResult run = execute(platform, graph.tasks(), options.collective.p2p);
  TrainingResult res;
  res.tasks = graph.tasks().size();
  res.step_time_s = run.makespan.value;
  res.tokens_per_step = program.tokens_per_step;
  res.model_flops_per_step = program.model_flops_per_step;
  res.tokens_per_s = res.step_time_s > 0 ? res.tokens_per_step / res.step_time_s : 0;
  res.samples_per_s = res.step_time_s > 0 ? s.global_batch / res.step_time_s : 0;
  res.peak_flops = peak_flops(platform, s, gpus);
  res.mfu = res.step_time_s > 0 ? res.model_flops_per_step / res.step_time_s / res.peak_flops : 0;
  res.memory = memory_fit(platform, s, m, gpus);
  res.fits = std::all_of(res.memory.begin(), res.memory.end(), [](const GpuMemory& g) { return g.fits(); });
  for (std::size_t r = 0; r < gpus.size(); ++r)
    res.breakdown.push_back(breakdown_of(graph, run, static_cast<int>(r), gpus[r], res.step_time_s));
  res.bottlenecks = run.busiest;
  if (options.keep_trace) res.trace = trace_of(graph, run);
  return res;
}

}  // namespace rigsim::model
