// Helpers for the platform, executor and p2p tests: in-memory layouts whose answers follow from their
// descriptions, transfers in one line, and closed-form checks that print the formula.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "calibration/cost_model.hpp"
#include "model/platform.hpp"
#include "tests/topology/layout_fixture.hpp"

namespace rigsim::model::testing {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

inline Platform platform_of(const std::string& layout_json,
                            const calibration::CostModel& cost = calibration::default_cost_model()) {
  return Platform(topology::testing::layout_from_text(layout_json), cost);
}

inline Transfer copy(const Platform& p, const char* src, const char* dst, double bytes,
                     Transport t = Transport::Auto) {
  Transfer x;
  x.src = p.topology().find(src);
  x.dst = p.topology().find(dst);
  x.bytes = Bytes{bytes};
  x.transport = t;
  return x;
}

inline Seconds duration(const TransferTiming& t) {
  return {t.finish.value - t.start.value};
}

/// EXPECT that `got` is within `tolerance` (relative) of the closed form `expected`, printing both.
inline void expect_closed_form(const std::string& formula, double expected, double got, const char* unit,
                               double tolerance = 0.01) {
  EXPECT_NEAR(got, expected, std::abs(expected) * tolerance)
      << "expected " << formula << " = " << expected << " " << unit << ", got " << got << " " << unit;
}

/// A catalog layout from scenarios/layouts/, or nullopt when a colleague has not written it yet.
inline std::optional<topology::Topology> catalog_layout(const std::string& name) {
  const std::string path = std::string(RIGSIM_SOURCE_DIR) + "/scenarios/layouts/" + name + ".json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  return topology::load_layout(path);
}

/// One Tesla P40 (Gen3 x16) in a Gen3 x16 slot of a Xeon E5 v4.
inline const char* kOneGen3 = R"({
  "name": "one-gen3-x16",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
  "slots": [{"id": "s0", "parent": "rc0", "gen": 3, "width": 16}],
  "gpus": [{"id": "g0", "model": "tesla-p40", "slot": "s0"}]
})";

/// One RTX 6000 Ada (Gen4 x16) on its own EPYC Rome x16 root port.
inline const char* kOneGen4 = R"({
  "name": "one-gen4-x16",
  "cpus": [{"id": "cpu0", "model": "epyc-7002"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}],
  "slots": [{"id": "s0", "parent": "rc0", "gen": 4, "width": 16}],
  "gpus": [{"id": "g0", "model": "rtx-6000-ada", "slot": "s0"}]
})";

/// Four Tesla P40 at Gen3 x16 under one PEX 8796 whose x16 uplink they all share.
inline const char* kFourBehindOneUplink = R"({
  "name": "four-behind-one-uplink",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
  "switches": [{"id": "plx0", "model": "pex8796", "parent": "rc0"}],
  "gpus": [
    {"id": "g0", "model": "tesla-p40", "parent": "plx0"}, {"id": "g1", "model": "tesla-p40", "parent": "plx0"},
    {"id": "g2", "model": "tesla-p40", "parent": "plx0"}, {"id": "g3", "model": "tesla-p40", "parent": "plx0"}
  ]
})";

/// Two RTX 2080 Ti (GeForce: no P2P, so copies are staged) at Gen3 x16 and x8 on one Xeon.
inline const char* kStagedUnequalLegs = R"({
  "name": "staged-unequal-legs",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
  "slots": [{"id": "s0", "parent": "rc0", "gen": 3, "width": 16}, {"id": "s1", "parent": "rc0", "gen": 3, "width": 8}],
  "gpus": [{"id": "g0", "model": "rtx-2080-ti", "slot": "s0"}, {"id": "g1", "model": "rtx-2080-ti", "slot": "s1"}]
})";

/// Four RTX 2080 Ti at Gen3 x8 on a Xeon whose memory is declared at 10 GB/s, so staging is memory-bound.
inline const char* kSlowMemory = R"({
  "name": "slow-memory",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4", "memory_bw_gbs": 10}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
  "slots": [
    {"id": "s0", "parent": "rc0", "gen": 3, "width": 8}, {"id": "s1", "parent": "rc0", "gen": 3, "width": 8},
    {"id": "s2", "parent": "rc0", "gen": 3, "width": 8}, {"id": "s3", "parent": "rc0", "gen": 3, "width": 8}
  ],
  "gpus": [
    {"id": "g0", "model": "rtx-2080-ti", "slot": "s0"}, {"id": "g1", "model": "rtx-2080-ti", "slot": "s1"},
    {"id": "g2", "model": "rtx-2080-ti", "slot": "s2"}, {"id": "g3", "model": "rtx-2080-ti", "slot": "s3"}
  ]
})";

/// Two Xeon E5 v4 sockets (QPI at NCCL's 6 GB/s), one Tesla P40 at Gen3 x16 on each.
inline const char* kTwoSockets = R"({
  "name": "two-sockets",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}, {"id": "cpu1", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}, {"id": "rc1", "cpu": "cpu1", "lanes": 40}],
  "slots": [{"id": "s0", "parent": "rc0", "gen": 3, "width": 16}, {"id": "s1", "parent": "rc1", "gen": 3, "width": 16}],
  "gpus": [{"id": "g0", "model": "tesla-p40", "slot": "s0"}, {"id": "g1", "model": "tesla-p40", "slot": "s1"}]
})";

/// Two RTX 3090 on a Threadripper PRO, each on its own root port in a Gen4 slot of the given width,
/// optionally with the patched (P2P) driver and an NVLink bridge.
inline std::string two_3090(int width, bool patched, bool nvlink = false) {
  const std::string w = std::to_string(width);
  return std::string(R"({"name": "two-3090", "driver": {"p2p_patched": )") + (patched ? "true" : "false") +
         R"(},
  "cpus": [{"id": "cpu0", "model": "threadripper-pro-5000"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16}],
  "slots": [{"id": "s0", "parent": "rc0", "gen": 4, "width": )" +
         w + R"(}, {"id": "s1", "parent": "rc1", "gen": 4, "width": )" + w + R"(}],
  "gpus": [{"id": "gpu0", "model": "rtx-3090", "slot": "s0"}, {"id": "gpu1", "model": "rtx-3090", "slot": "s1"}])" +
         (nvlink ? R"(, "nvlinks": [{"gpus": ["gpu0", "gpu1"]}])" : "") + "}";
}

}  // namespace rigsim::model::testing
