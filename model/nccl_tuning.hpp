// NCCL's per-architecture tuning tables (src/graph/tuning.cc: llMaxBws, perChMaxRingLL128Bws,
// perChMaxTreeBws, perChMaxTreeLL128Bws) as a given release has them, for NCCL's choice of algorithm
// and protocol. The cost model's keys hold the default release's (topology::kNcclVersion) rows, which
// are also what the simulation moves (a release's figure is what it decides with; NCCL's newest is its
// best account of the hardware). NCCL changed Hopper's and Blackwell's rows between releases, so the
// choice under an older release reads that release's rows, unless a calibration profile set the key,
// which then holds for every release.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "calibration/cost_model.hpp"
#include "topology/topology.hpp"

namespace rigsim::model {

/// Rows Volta and older / Ampere / Hopper / Blackwell, columns 1 / 2 / more servers, GB/s.
using NcclTable = std::array<std::array<double, 3>, 4>;

struct NcclTables {
  /// llMaxBws. One server: the row of the GPUs' generation. Across servers NCCL reads row 0 (Intel and
  /// other hosts) or row 1 (AMD or mixed hosts), by CPU vendor, not by GPU (`nccl_ll_max_bw`).
  NcclTable ll_max_bw{};
  NcclTable ring_ll128_channel_bw{};  // perChMaxRingLL128Bws (one figure per generation before 2.28.7)
  NcclTable tree_channel_bw{};        // perChMaxTreeBws (the tree's Simple protocol)
  NcclTable tree_ll128_channel_bw{};  // perChMaxTreeLL128Bws
};

/// NCCL release `nccl_version`'s tables (topology::parse_nccl_version's encoding), each replaced by
/// the cost model's where that differs from the built-in default (a calibration profile's figure).
NcclTables nccl_tables_at(const calibration::CostModel& cost, int nccl_version);

/// The row NCCL's tables use for `ranks` under `nccl_version`: Blackwell reads Hopper's row before
/// 2.25.1, which first has a Blackwell row (tuning.cc compCapIndex).
std::size_t nccl_arch_row(const topology::Topology& topo, const std::vector<topology::DeviceId>& ranks,
                          int nccl_version);

/// NCCL's CPU vendor of the system is AMD (or mixed): topology's CPUs, any of them AMD.
bool nccl_amd_host(const topology::Topology& topo);

/// NCCL's LL bandwidth cap, bytes/s: llMaxBws[index1][index2] with index1 the generation's row on one
/// server and the host CPU's row (0 Intel, 1 AMD or mixed) across servers (tuning.cc, every release
/// read from 2.17.1 to 2.30.7).
double nccl_ll_max_bw(const NcclTables& t, const topology::Topology& topo,
                      const std::vector<topology::DeviceId>& ranks, std::size_t servers, int nccl_version);

}  // namespace rigsim::model
