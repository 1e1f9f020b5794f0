// Layouts for the fidelity tests (issue 9): two GPUs of one model, each on its own x16 root port, on
// one socket or one per socket of a two-socket server, built in memory.
#pragma once

#include <string>

#include "engine/executor.hpp"
#include "model/p2p_bench.hpp"
#include "tests/model/sim_fixture.hpp"
#include "topology/catalog.hpp"

namespace rigsim::model::fidelity {

/// Two `gpu`s in Gen`gen` x16 slots, each on its own root port; `sockets` = 1 or 2 CPUs of `cpu`
/// (two: one GPU per socket, joined by the catalog's default socket links). `patched` declares a
/// P2P-patched driver.
inline std::string pair_layout(const std::string& gpu, const std::string& cpu, int gen, int sockets,
                               bool patched = false) {
  const std::string g = std::to_string(gen);
  const std::string cpu1 = sockets == 2 ? "cpu1" : "cpu0";
  std::string cpus = R"([{"id": "cpu0", "model": ")" + cpu + R"("}])";
  if (sockets == 2) cpus.insert(cpus.size() - 1, R"(, {"id": "cpu1", "model": ")" + cpu + R"("})");
  return std::string(R"({"name": "pair", "driver": {"p2p_patched": )") + (patched ? "true" : "false") +
         R"(}, "cpus": )" + cpus + R"(,
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": ")" +
         cpu1 +
         R"(", "lanes": 16}],
  "slots": [{"id": "s0", "parent": "rc0", "gen": )" +
         g + R"(, "width": 16},
            {"id": "s1", "parent": "rc1", "gen": )" +
         g + R"(, "width": 16}],
  "gpus": [{"id": "gpu0", "model": ")" +
         gpu + R"(", "slot": "s0"}, {"id": "gpu1", "model": ")" + gpu + R"(", "slot": "s1"}]})";
}

inline P2pBenchResult bench_of(const Platform& p, double bytes = 256.0 * 1024 * 1024) {
  return run_p2p_bench(p, engine::run, P2pBenchOptions{Bytes{bytes}});
}

/// Per-direction rate of a Gen`gen` x16 link in the simulation (GB/s): wire x pcie_efficiency.
inline double pcie_x16_gbs(const Platform& p, int gen) {
  return topology::pcie_link_gbs(gen, 16) * p.cost_model().pcie_efficiency;
}

}  // namespace rigsim::model::fidelity
