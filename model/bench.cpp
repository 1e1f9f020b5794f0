// The bench sweep (its text and JSON are report/bench.cpp). Time per size is the simulated makespan of the
// plan's transfers; nccl-tests' time is the average of many iterations of the same collective, which a
// deterministic simulation gives in one run.
#include "model/bench.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <tuple>

#include "common/input.hpp"
#include "model/collectives_detail.hpp"

namespace rigsim::model {
namespace {

using topology::DeviceId;

/// GPUs of each server, servers in id order (a single server is server 0).
std::map<int, std::vector<DeviceId>> gpus_by_node(const topology::Topology& topo) {
  std::map<int, std::vector<DeviceId>> out;
  for (DeviceId g : topo.gpus()) out[topo.device(g).node].push_back(g);
  return out;
}

}  // namespace

/// A plan's duration from its run: the makespan, or the latency term of a plan that moves nothing (one
/// GPU), or 0 for 0 bytes.
Seconds plan_duration(const CollectivePlan& plan, const RunResult& run) {
  if (plan.transfers.empty()) return plan.size.value > 0 ? plan.latency : Seconds{};
  return run.makespan;
}

NetPolicy bench_net_policy(const BenchOptions& options) {
  NetPolicy net = options.collective.net;
  net.nccl_version = options.collective.p2p.nccl_version;
  net.gpus = options.gpus;
  return net;
}

Seconds simulate_plan(const Platform& platform, const Executor& execute, const CollectivePlan& plan,
                      RunResult* run) {
  if (plan.transfers.empty()) return plan_duration(plan, {});
  RunResult r = execute(platform, plan.transfers, {});
  const Seconds t = plan_duration(plan, r);
  if (run) *run = std::move(r);
  return t;
}

namespace {

/// GPUs one thread launches (BenchOptions::gpus_per_thread resolved): 0 is the most ranks of one server;
/// never more than that.
std::size_t gpus_per_thread(const topology::Topology& topo, const std::vector<DeviceId>& gpus,
                            std::size_t requested) {
  std::map<int, std::size_t> per_server;
  std::size_t most = 1;
  for (DeviceId g : gpus) most = std::max(most, ++per_server[topo.device(g).node]);
  return requested == 0 ? most : std::min(requested, most);
}

/// The report of a sweep from each size's plan (transfers dropped but the largest's), run and time.
BenchResult bench_result(const Platform& platform, const BenchOptions& o, std::vector<topology::DeviceId> gpus,
                         const std::vector<nccl_tests::Sizes>& sizes, std::vector<CollectivePlan>& plans,
                         std::vector<RunResult>& runs, const std::vector<Seconds>& times,
                         const std::vector<std::size_t>& transfers) {
  BenchResult res;
  res.op = o.op;
  res.gpus = std::move(gpus);
  // nccl-tests times back-to-back iterations: when one thread's launches for its GPUs take longer than
  // the collective itself, they set the pace.
  res.gpus_per_thread = gpus_per_thread(platform.topology(), res.gpus, o.gpus_per_thread);
  res.launch = {platform.cost_model().nccl_launch_per_gpu.value * static_cast<double>(res.gpus_per_thread)};
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const CollectivePlan& plan = plans[k];
    const bool host = sizes[k].size > 0 && res.launch.value > times[k].value;
    const Seconds t = host ? res.launch : times[k];
    res.rows.push_back({nccl_tests::make_row(o.op, res.gpus.size(), sizes[k], t, o.collective.root),
                        plan.algorithm, plan.model, plan.protocol, transfers[k], host});
  }
  if (!plans.empty()) {
    plans.back().transfers.clear();
    res.largest = std::move(plans.back());
    res.bottleneck = std::move(runs.back().busiest);
  }
  std::vector<nccl_tests::Row> rows;
  for (const auto& r : res.rows) rows.push_back(r.row);
  res.avg_busbw = nccl_tests::average_busbw(rows);
  return res;
}

}  // namespace

BenchResult run_bench(const Platform& platform, const Executor& execute, const BenchOptions& o) {
  const auto gpus = o.gpus.empty() ? platform.topology().gpus() : o.gpus;
  const auto bytes = nccl_tests::sweep_sizes(o.sweep);
  std::vector<nccl_tests::Sizes> sizes;
  std::vector<CollectivePlan> plans;
  std::vector<RunResult> runs;
  std::vector<Seconds> times;
  std::vector<std::size_t> transfers;
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    const auto s = sizes.emplace_back(nccl_tests::sizes_for(o.op, bytes[k], gpus.size()));
    CollectivePlan& plan =
        plans.emplace_back(plan_collective(platform, o.op, gpus, Bytes{static_cast<double>(s.size)}, o.collective));
    times.push_back(simulate_plan(platform, execute, plan, &runs.emplace_back()));
    transfers.push_back(plan.transfers.size());
    if (k + 1 < bytes.size()) plan.transfers = {};  // only the largest size's plan is reported
  }
  return bench_result(platform, o, gpus, sizes, plans, runs, times, transfers);
}

BenchResult run_bench(const Platform& platform, const PhasesExecutor& start, const BenchOptions& o, std::size_t jobs) {
  const auto gpus = o.gpus.empty() ? platform.topology().gpus() : o.gpus;
  const auto bytes = nccl_tests::sweep_sizes(o.sweep);
  const std::size_t n = bytes.size();
  std::vector<nccl_tests::Sizes> sizes(n);
  std::vector<CollectivePlan> plans(n);
  std::vector<RunResult> runs(n);
  std::vector<Seconds> times(n);
  std::vector<std::size_t> transfers(n);
  // Size k goes to group k mod kSweepGroups: neighbouring sizes, which often share a protocol and so a
  // cost, land in different groups. A group is planned when it starts and its transfers dropped when
  // it has been collected, so at most `jobs` groups' plans are held at once.
  const std::size_t groups = std::min(n, kSweepGroups);
  struct InFlight {
    std::vector<std::size_t> members;
    std::function<std::vector<RunResult>()> wait;
  };
  std::deque<InFlight> flight;
  const auto collect = [&] {
    InFlight& f = flight.front();
    std::vector<RunResult> results = f.wait();
    for (std::size_t m = 0; m < f.members.size(); ++m) {
      const std::size_t k = f.members[m];
      runs[k] = std::move(results[m]);
      times[k] = plan_duration(plans[k], runs[k]);
      transfers[k] = plans[k].transfers.size();
      if (k + 1 < n) plans[k].transfers = {};  // only the largest size's plan is reported
    }
    flight.pop_front();
  };
  for (std::size_t g = 0; g < groups; ++g) {
    if (flight.size() >= std::max<std::size_t>(jobs, 1)) collect();
    InFlight& f = flight.emplace_back();
    std::vector<const std::vector<Transfer>*> phases;
    for (std::size_t k = g; k < n; k += groups) {
      sizes[k] = nccl_tests::sizes_for(o.op, bytes[k], gpus.size());
      plans[k] = plan_collective(platform, o.op, gpus, Bytes{static_cast<double>(sizes[k].size)}, o.collective);
      f.members.push_back(k);
      phases.push_back(&plans[k].transfers);
    }
    f.wait = start(platform, phases, {});
  }
  while (!flight.empty()) collect();
  return bench_result(platform, o, gpus, sizes, plans, runs, times, transfers);
}

std::vector<DeviceId> select_gpus(const topology::Topology& topo, std::optional<std::size_t> per_node,
                                  const std::vector<std::size_t>& indices) {
  std::vector<DeviceId> out;
  for (const auto& [node, gpus] : gpus_by_node(topo)) {
    const std::string where =
        " (layout " + topo.name() + " has " + std::to_string(gpus.size()) + " GPUs per server)";
    if (per_node && (*per_node == 0 || *per_node > gpus.size()))
      throw InputError("", "-g", "asked for " + std::to_string(*per_node) + " GPUs" + where);
    if (!indices.empty()) {
      for (std::size_t i : indices) {
        if (i >= gpus.size())
          throw InputError("", "--gpus",
                           "GPU " + std::to_string(i) + " is out of range: valid ids are 0.." +
                               std::to_string(gpus.size() - 1) + where);
        if (std::count(indices.begin(), indices.end(), i) > 1)
          throw InputError("", "--gpus", "GPU " + std::to_string(i) + " is listed twice");
        out.push_back(gpus[i]);
      }
    } else {
      out.insert(out.end(), gpus.begin(), gpus.begin() + static_cast<long>(per_node.value_or(gpus.size())));
    }
  }
  return out;
}

}  // namespace rigsim::model
