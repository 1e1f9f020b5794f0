#include "model/nccl_tuning.hpp"

#include <algorithm>

#include "model/collectives_detail.hpp"

namespace rigsim::model {
namespace {

/// Releases where the rows changed, in topology::parse_nccl_version's encoding (tuning.cc at each tag).
constexpr int k2_18_3 = 21803, k2_21_5 = 22105, k2_25_1 = 22501, k2_28_3 = 22803, k2_28_7 = 22807,
              k2_29_2 = 22902, k2_29_7 = 22907;

constexpr std::size_t kHopper = 2, kBlackwell = 3;

NcclTable broadcast_columns(const std::array<double, 4>& per_arch) {
  NcclTable t{};
  for (std::size_t r = 0; r < 4; ++r) t[r].fill(per_arch[r]);
  return t;
}

/// The tables as `nccl_version` has them, starting from the default release's (the cost model's
/// built-in defaults, 2.30.7) and undoing each later change.
NcclTables release_tables(const calibration::CostModel& d, int v) {
  NcclTables t;
  t.ll_max_bw = d.nccl_ll_max_bw_gbs;
  t.ring_ll128_channel_bw = broadcast_columns(d.nccl_ll128_channel_bw_gbs);
  t.tree_channel_bw = d.nccl_tree_channel_bw_gbs;
  t.tree_ll128_channel_bw = d.nccl_tree_ll128_channel_bw_gbs;
  // perChMaxRingLL128Bws, Blackwell: 40.0 from 2.29.7; {34.5, 34.6, 34.5} at 2.29.2-2.29.3; {73.4,
  // 34.6, 73.4} at 2.28.7-2.28.9; 2 x 36.7 at 2.25.1-2.28.3.
  if (v < k2_29_7) t.ring_ll128_channel_bw[kBlackwell] = {34.5, 34.6, 34.5};
  if (v < k2_29_2) t.ring_ll128_channel_bw[kBlackwell] = {73.4, 34.6, 73.4};
  if (v < k2_28_7) t.ring_ll128_channel_bw[kBlackwell] = {73.4, 73.4, 73.4};
  // perChMaxTreeBws and perChMaxTreeLL128Bws, Blackwell: their own rows from 2.28.3; twice Hopper's
  // at 2.25.1-2.27.7.
  if (v < k2_28_3) {
    t.tree_channel_bw[kBlackwell] = {2 * 38.7, 2 * 41.4, 2 * 36.0};
    t.tree_ll128_channel_bw[kBlackwell] = {2 * 36.7, 2 * 36.7, 2 * 29.0};
  }
  // llMaxBws, Hopper: {141, 45, 35} from 2.21.5, {87.7, 22.5, 19.0} (Ampere's) before.
  if (v < k2_21_5) t.ll_max_bw[kHopper] = {87.7, 22.5, 19.0};
  // Before 2.18.3 one LL128 figure per generation capped both ring and tree (ll128MaxBwPerCh {20, 20,
  // 36.7}), and Hopper's tree on 4+ servers was 33.0.
  if (v < k2_18_3) {
    t.tree_ll128_channel_bw[kHopper] = {36.7, 36.7, 36.7};
    t.tree_channel_bw[kHopper][2] = 33.0;
  }
  return t;
}

}  // namespace

NcclTables nccl_tables_at(const calibration::CostModel& cost, int nccl_version) {
  static const calibration::CostModel defaults = calibration::default_cost_model();
  NcclTables t = release_tables(defaults, nccl_version);
  // A profile's figure holds for every release.
  if (cost.nccl_ll_max_bw_gbs != defaults.nccl_ll_max_bw_gbs) t.ll_max_bw = cost.nccl_ll_max_bw_gbs;
  if (cost.nccl_ll128_channel_bw_gbs != defaults.nccl_ll128_channel_bw_gbs)
    t.ring_ll128_channel_bw = broadcast_columns(cost.nccl_ll128_channel_bw_gbs);
  if (cost.nccl_tree_channel_bw_gbs != defaults.nccl_tree_channel_bw_gbs)
    t.tree_channel_bw = cost.nccl_tree_channel_bw_gbs;
  if (cost.nccl_tree_ll128_channel_bw_gbs != defaults.nccl_tree_ll128_channel_bw_gbs)
    t.tree_ll128_channel_bw = cost.nccl_tree_ll128_channel_bw_gbs;
  return t;
}

std::size_t nccl_arch_row(const topology::Topology& topo, const std::vector<topology::DeviceId>& ranks,
                          int nccl_version) {
  const std::size_t row = detail::arch_row(topo, ranks);
  return row == kBlackwell && nccl_version < k2_25_1 ? kHopper : row;
}

bool nccl_amd_host(const topology::Topology& topo) {
  const std::vector<topology::DeviceId> cpus = topo.cpus();
  return std::any_of(cpus.begin(), cpus.end(), [&](topology::DeviceId c) {
    return topo.device(c).cpu != nullptr && topo.device(c).cpu->vendor == topology::Vendor::Amd;
  });
}

double nccl_ll_max_bw(const NcclTables& t, const topology::Topology& topo,
                      const std::vector<topology::DeviceId>& ranks, std::size_t servers, int nccl_version) {
  const std::size_t row =
      servers <= 1 ? nccl_arch_row(topo, ranks, nccl_version) : (nccl_amd_host(topo) ? 1 : 0);
  return t.ll_max_bw[row][detail::node_column(servers)] * 1e9;
}

}  // namespace rigsim::model
