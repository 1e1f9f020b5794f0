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

Seconds simulate_plan(const Platform& platform, const Executor& execute, const CollectivePlan& plan,
                      RunResult* run) {
  if (plan.transfers.empty()) return plan.size.value > 0 ? plan.latency : Seconds{};
  RunResult r = execute(platform, plan.transfers, {});
  const Seconds t = r.makespan;
  if (run) *run = std::move(r);
  return t;
}

BenchResult run_bench(const Platform& platform, const Executor& execute, const BenchOptions& o) {
  // One at a time: the run is done when the "start" returns.
  const AsyncExecutor now = [&execute](const Platform& p, const std::vector<Transfer>& ts,
                                       const topology::P2pPolicy& policy) {
    return [r = execute(p, ts, policy)] { return r; };
  };
  return run_bench(platform, now, o, 1);
}

BenchResult run_bench(const Platform& platform, const AsyncExecutor& start, const BenchOptions& o, std::size_t jobs) {
  const auto& topo = platform.topology();
  BenchResult res;
  res.op = o.op;
  res.gpus = o.gpus.empty() ? topo.gpus() : o.gpus;
  const auto sizes = nccl_tests::sweep_sizes(o.sweep);
  // Sizes are independent runs: up to `jobs` of them in flight, collected in order (the output does
  // not depend on `jobs`). A plan stays alive until its run is collected (the run reads its transfers).
  struct InFlight {
    nccl_tests::Sizes s;
    CollectivePlan plan;
    std::function<RunResult()> wait;
  };
  std::deque<InFlight> flight;
  const auto collect = [&] {
    InFlight& f = flight.front();  // not moved out: the run holds a pointer to f.plan.transfers
    RunResult run = f.wait();
    const Seconds t = f.plan.transfers.empty() ? (f.plan.size.value > 0 ? f.plan.latency : Seconds{}) : run.makespan;
    res.rows.push_back({nccl_tests::make_row(o.op, res.gpus.size(), f.s, t, o.collective.root), f.plan.algorithm,
                        f.plan.model, f.plan.protocol, f.plan.transfers.size()});
    if (res.rows.size() == sizes.size()) {
      f.plan.transfers.clear();
      res.largest = std::move(f.plan);
      res.bottleneck = std::move(run.busiest);
    }
    flight.pop_front();
  };
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (flight.size() >= std::max<std::size_t>(jobs, 1)) collect();
    const auto s = nccl_tests::sizes_for(o.op, sizes[k], res.gpus.size());
    flight.push_back({s, plan_collective(platform, o.op, res.gpus, Bytes{static_cast<double>(s.size)}, o.collective), {}});
    InFlight& f = flight.back();
    f.wait = f.plan.transfers.empty() ? std::function<RunResult()>([] { return RunResult{}; })
                                      : start(platform, f.plan.transfers, {});
  }
  while (!flight.empty()) collect();
  std::vector<nccl_tests::Row> rows;
  for (const auto& r : res.rows) rows.push_back(r.row);
  res.avg_busbw = nccl_tests::average_busbw(rows);
  return res;
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
