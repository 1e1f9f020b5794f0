#include "workloads/plans.hpp"

#include "common/input.hpp"

namespace rigsim::workloads {
namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

bool valid(const Scenario& s, const ModelConfig& m, int gpus) {
  try {
    validate(s, m, gpus);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// The pipeline schedule of the base where it applies; 1F1B otherwise.
void set_schedule(ParallelPlan& p, const ParallelPlan& base, const ModelConfig& m) {
  p.pp_schedule = p.pp == 1 && base.pp_schedule == PipelineSchedule::Interleaved ? PipelineSchedule::OneFOneB
                                                                                 : base.pp_schedule;
  p.virtual_stages = p.pp_schedule == PipelineSchedule::Interleaved ? base.virtual_stages : 1;
  if (p.pp_schedule == PipelineSchedule::Interleaved && m.layers % (p.pp * p.virtual_stages) != 0) {
    p.pp_schedule = PipelineSchedule::OneFOneB;
    p.virtual_stages = 1;
  }
}

std::vector<Offload> offloads(int zero) {
  std::vector<Offload> out{{false, false}};
  if (zero >= 1) out.push_back({true, false});
  if (zero >= 3) out.push_back({true, true});
  return out;
}

// Sharding, offload and recompute variants of one dp×tp×pp×ep shape.
void add_variants(std::vector<ParallelPlan>& out, ParallelPlan shape, const Scenario& base,
                  const ModelConfig& m, int gpus) {
  for (int zero = 0; zero <= 3; ++zero) {
    for (const Offload& offload : offloads(zero)) {
      if (shape.dp == 1 && zero > 0 && !offload.any()) continue;
      for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
        ParallelPlan p = shape;
        p.zero = zero;
        p.offload = offload;
        p.recompute = r;
        if (valid(with_plan(base, p, gpus), m, gpus)) out.push_back(p);
      }
    }
  }
}

}  // namespace

Scenario with_plan(const Scenario& base, const ParallelPlan& plan, int gpus) {
  Scenario s = base;
  s.plan = plan;
  if (static_cast<int>(s.gpus.size()) != gpus) s.gpus.clear();
  return s;
}

std::vector<ParallelPlan> enumerate_plans(const ModelConfig& m, int gpus, const Scenario& base) {
  std::vector<ParallelPlan> out;
  for (int tp : divisors(gpus)) {
    for (int pp : divisors(gpus / tp)) {
      ParallelPlan shape;
      shape.tp = tp;
      shape.pp = pp;
      shape.dp = gpus / (tp * pp);
      shape.sequence_parallel = tp > 1;
      shape.order = base.plan.order;
      set_schedule(shape, base.plan, m);
      for (int ep : m.is_moe() ? divisors(shape.dp * tp) : std::vector<int>{1}) {
        shape.ep = ep;
        add_variants(out, shape, base, m, gpus);
      }
    }
  }
  return out;
}

}  // namespace rigsim::workloads
