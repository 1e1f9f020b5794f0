// Simulation wall time and simulated flows per second (issue 3 "Benchmark"): a 1 GiB all_reduce on the
// 8-GPU Supermicro SYS-4028GR-TR2 (X10DRG-O-PCIE) layout, on 64, 512 and 4096 GPUs (servers of 8 joined
// by build_cluster, ring in the steady-state model), and a full nccl-tests sweep (8 B ... 128 MiB) on 8
// GPUs. Targets on a 2-core machine: 8 GPUs < 20 ms, 512 GPUs < 1 s, 4096 GPUs < 10 s, sweep < 1 s.
//
// Times are wall-clock (UseRealTime): each simulation runs in a forked child process (executor.hpp),
// whose CPU time the parent's CPU clock would miss. Building the cluster topology and platform is
// setup, outside the timed loop; planning the collective is inside it.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "model/bench.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"

namespace {

using namespace rigsim;

const std::string kLayout =
    std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/supermicro-4028gr-tr2-x10drg.json";
constexpr double kGiB = 1024.0 * 1024 * 1024;

/// One platform per server count, built once.
const model::Platform& platform(int nodes) {
  static std::map<int, std::unique_ptr<model::Platform>> cache;
  auto& p = cache[nodes];
  if (!p) {
    const auto spec = topology::parse_layout(load_json_file(kLayout), kLayout);
    auto topo = nodes == 1 ? topology::build_topology(spec) : topology::build_cluster(spec, nodes);
    p = std::make_unique<model::Platform>(std::move(topo), calibration::default_cost_model());
  }
  return *p;
}

void report(benchmark::State& state, std::size_t gpus, std::size_t flows, double simulated, double busbw) {
  state.counters["gpus"] = static_cast<double>(gpus);
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["flows/s"] =
      benchmark::Counter(static_cast<double>(flows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["sim_ms"] = simulated * 1e3;
  state.counters["busbw_GBps"] = busbw;
}

/// 1 GiB all_reduce on every GPU of `nodes` servers; range(1): 0 ring, 1 tree (both steady above 16 GPUs).
void BM_AllReduce1GiB(benchmark::State& state) {
  const auto& p = platform(static_cast<int>(state.range(0)));
  const auto gpus = p.topology().gpus();
  model::CollectiveOptions o;
  o.algorithm = state.range(1) == 0 ? model::Algorithm::Ring : model::Algorithm::Tree;
  std::size_t flows = 0;
  double t = 0;
  for (auto _ : state) {
    const auto plan = model::plan_collective(p, model::CollectiveOp::AllReduce, gpus,
                                           Bytes{kGiB}, o);
    t = model::simulate_plan(p, engine::run, plan).value;
    flows = plan.transfers.size();
  }
  const double n = static_cast<double>(gpus.size());
  report(state, gpus.size(), flows, t, kGiB / t / 1e9 * 2 * (n - 1) / n);
}

/// The default `rigsim bench` sweep, 8 B ... 128 MiB by factor 2 (25 sizes), all_reduce on 8 GPUs.
void BM_Sweep8Gpus(benchmark::State& state) {
  const auto& p = platform(1);
  model::BenchOptions o;
  o.sweep = {8, 128ull << 20, 2, 0};
  std::size_t flows = 0;
  double avg = 0, t = 0;
  for (auto _ : state) {
    const auto r = model::run_bench(p, engine::run, o);
    flows = 0;
    t = 0;
    for (const auto& row : r.rows) {
      flows += row.transfers;
      t += row.row.time_us * 1e-6;
    }
    avg = r.avg_busbw;
  }
  report(state, p.topology().gpus().size(), flows, t, avg);
}

/// Planning alone (ring order, connections, transfers), 4096 GPUs: the part that does not run SimGrid.
void BM_Plan4096(benchmark::State& state) {
  const auto& p = platform(512);
  const auto gpus = p.topology().gpus();
  model::CollectiveOptions o;
  o.algorithm = model::Algorithm::Ring;
  std::size_t flows = 0;
  for (auto _ : state) {
    const auto plan = model::plan_collective(p, model::CollectiveOp::AllReduce, gpus,
                                           Bytes{kGiB}, o);
    flows = plan.transfers.size();
  }
  report(state, gpus.size(), flows, 0, 0);
}

BENCHMARK(BM_AllReduce1GiB)
    ->ArgNames({"nodes", "tree"})
    ->Args({1, 0})
    ->Args({8, 0})
    ->Args({64, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_AllReduce1GiB)
    ->ArgNames({"nodes", "tree"})
    ->Args({512, 0})
    ->Args({512, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_Sweep8Gpus)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Plan4096)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
