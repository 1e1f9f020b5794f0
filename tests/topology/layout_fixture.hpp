// Builds small in-memory layouts for tests: a JSON text in, a Topology out.
#pragma once

#include <string>

#include "common/input.hpp"
#include "tests/common/input_error.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"

namespace rigsim::topology::testing {

/// The parsed, not yet built description of a layout text (for build_cluster and importers).
inline LayoutSpec spec_from_text(const std::string& json_text) {
  return parse_layout(parse_json_text(json_text, "test.json"), "test.json");
}

inline Topology layout_from_text(const std::string& json_text) {
  return build_topology(spec_from_text(json_text));
}

using rigsim::testing::input_error_of;

/// Two sockets of Xeon E5 v4; each socket has one host bridge with two PEX 8747 switches holding
/// two GPUs each (the SYS-4027GR/X9DRG pattern); a NIC in an x8 slot on socket 0.
inline const char* kDualRootPlx = R"({
  "name": "dual-root-plx",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}, {"id": "cpu1", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}, {"id": "rc1", "cpu": "cpu1", "lanes": 40}],
  "switches": [
    {"id": "plx0", "model": "pex8747", "parent": "rc0"}, {"id": "plx1", "model": "pex8747", "parent": "rc0"},
    {"id": "plx2", "model": "pex8747", "parent": "rc1"}, {"id": "plx3", "model": "pex8747", "parent": "rc1"}
  ],
  "slots": [{"id": "x8", "parent": "rc0", "gen": 3, "width": 8}],
  "gpus": [
    {"id": "g0", "model": "tesla-p40", "parent": "plx0"}, {"id": "g1", "model": "tesla-p40", "parent": "plx0"},
    {"id": "g2", "model": "tesla-p40", "parent": "plx1"}, {"id": "g3", "model": "tesla-p40", "parent": "plx1"},
    {"id": "g4", "model": "tesla-p40", "parent": "plx2"}, {"id": "g5", "model": "tesla-p40", "parent": "plx2"},
    {"id": "g6", "model": "tesla-p40", "parent": "plx3"}, {"id": "g7", "model": "tesla-p40", "parent": "plx3"}
  ],
  "nics": [{"id": "ib0", "model": "connectx-3-fdr", "slot": "x8"}]
})";

/// One EPYC socket with `nps` NUMA nodes; four A100 PCIe on four x16 root ports in I/O-die quadrants
/// 1, 1, 2 and 3 (g0, g1, g2, g3): NPS tests in topology/ and engine/.
inline std::string epyc_quadrants(int nps, const std::string& model = "epyc-7002") {
  return R"({"name": "t", "cpus": [{"id": "cpu0", "model": ")" + model + R"(", "nps": )" + std::to_string(nps) +
         R"(}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16, "quadrant": 1},
                     {"id": "rc1", "cpu": "cpu0", "lanes": 16, "quadrant": 1},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16, "quadrant": 2},
                     {"id": "rc3", "cpu": "cpu0", "lanes": 16, "quadrant": 3}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"},
             {"id": "g1", "model": "a100-pcie-40gb", "parent": "rc1"},
             {"id": "g2", "model": "a100-pcie-40gb", "parent": "rc2"},
             {"id": "g3", "model": "a100-pcie-40gb", "parent": "rc3"}]})";
}

}  // namespace rigsim::topology::testing
