// Shared by the collective bench tests: one collective simulated on a platform, and closed-form messages.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "engine/executor.hpp"
#include "model/bench.hpp"
#include "model/collectives.hpp"
#include "model/nccl_tests.hpp"
#include "tests/model/sim_fixture.hpp"  // kGiB

namespace rigsim::model::testing {

struct Outcome {
  CollectivePlan plan;
  double seconds = 0;
  double busbw = 0;  // GB/s
};

inline Outcome run(const Platform& p, CollectiveOp op, double size, PlanModel model,
                   std::vector<topology::DeviceId> gpus = {}, CollectiveOptions o = {}) {
  if (gpus.empty()) gpus = p.topology().gpus();
  o.model = model;
  Outcome out;
  out.plan = plan_collective(p, op, gpus, Bytes{size}, o);
  out.seconds = simulate_plan(p, engine::run, out.plan).value;
  out.busbw = size / out.seconds / 1e9 * nccl_tests::busbw_factor(op, gpus.size());
  return out;
}

inline std::string closed(const char* formula, double expected, double got) {
  std::ostringstream s;
  s << "expected " << formula << " = " << expected << " s, got " << got << " s";
  return s.str();
}

/// Rate and latency of one ring hop, alone, as the platform routes it.
inline Route hop_route(const Platform& p, const Outcome& o) {
  const Connection& c = o.plan.rings.at(0).hops.at(0);
  return p.route(c.src, c.dst, c.transport);
}

}  // namespace rigsim::model::testing
