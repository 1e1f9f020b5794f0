// NVLS (NVLink SHARP) all_reduce: where NCCL enables it, NCCL's time estimate per release, and the plan
// (the NVSwitch reduces each shard and multicasts the result). Split from collectives.cpp.
#include <algorithm>
#include <limits>
#include <string>

#include "common/input.hpp"
#include "model/collectives_detail.hpp"
#include "model/nccl_channels.hpp"

namespace rigsim::model::detail {
namespace {

using topology::DeviceId;

/// Bytes each ordered GPU pair carries in the NVLS plan, per byte of all_reduce data: the reduce-scatter
/// (each GPU's ld_reduce of its shard S/n pulls S/n from every GPU and returns S/n) and the all-gather
/// (each GPU's multicast store of S/n reaches every GPU) put S(n+1)/n on each GPU's NVLink per
/// direction; spread over the n(n-1) ordered pairs through the non-blocking switch, and divided by
/// NCCL's nvlsEfficiency (the reduction's sustained share of the links).
double nvls_pair_factor(std::size_t n, double efficiency) {
  const auto k = static_cast<double>(n);
  return (k + 1) / (k * (k - 1)) / efficiency;
}

/// NCCL's time model for NVLS all_reduce (tuning.cc): latency 25 us; bus bandwidth 2 x nvlsEfficiency
/// x the per-GPU NVLink bandwidth x (nCh-1)/nCh (16 NVLS channels [R]); algbw = busBw x n / (2(n-1)).
double nvls_model_time(const calibration::CostModel& cost, const CollectivePlan& p, double per_gpu_bw,
                       double efficiency) {
  const auto n = static_cast<double>(p.ranks.size());
  constexpr double kChannels = 16;
  const double bus = 2 * efficiency * per_gpu_bw * (kChannels - 1) / kChannels;
  return cost.nccl_nvls_latency.value + p.size.value / (bus * n / (2 * (n - 1)));
}

/// NCCL up to 2.27 (tuning.cc at v2.18.3 ... v2.27.7): NVLS's bandwidth is its graph's channels x
/// speed x 5/6. The NVLS search (search.cc ncclTopoSearchTryNvls) runs one channel per GPU (min = max
/// = n within a server), each pulling `speed` from every GPU through the NVSwitch and twice that from
/// its head GPU, so each GPU's NVLinks carry (n+1) x speed per direction: speed is the fastest table
/// entry with (n+1) x speed <= the GPU's NVLink bandwidth. Infinity when none fits. NVLS latency as
/// the newer model (23 us up to 2.20, 25 us after; the 2 us are not modelled).
double nvls_graph_time(const topology::Topology& topo, const calibration::CostModel& cost,
                       const CollectivePlan& p, double per_gpu_bw) {
  const auto n = static_cast<double>(p.ranks.size());
  for (double s : nccl_speed_table(min_sm(topo, p.ranks), false))
    if ((n + 1) * s * 1e9 <= per_gpu_bw * (1 + 1e-9))
      return cost.nccl_nvls_latency.value + p.size.value / (n * s * 1e9 * 5.0 / 6.0);
  return std::numeric_limits<double>::infinity();
}

/// The first NCCL release whose NVLS time model uses nvlsEfficiency (2.28.3; 2.27.7 has the graph model).
constexpr int kNvlsEfficiencyModel = 22803;

}  // namespace

/// NVLS runs where NCCL enables it (nvlsSupport and tuning.cc): an all_reduce within one server whose
/// GPUs are all Hopper or newer (nvlsEfficiency > 0) and reach each other over NVLink through an
/// NVSwitch of NVLink generation 4 or later (the first with SHARP multicast/reduction).
bool nvls_supported(const topology::Topology& topo, const calibration::CostModel& cost,
                    const CollectiveOptions& o, const CollectivePlan& p, std::size_t nodes) {
  if (p.op != CollectiveOp::AllReduce || nodes != 1 || p.ranks.size() < 2) return false;
  // NCCL up to 2.28.3 leaves NVLS off for 2 GPUs (src/transport/nvls.cc "gpuCount <= 2"); 2.28.7 and
  // later only below 2.
  if (p.ranks.size() == 2 && o.p2p.nccl_version < 22807) return false;
  if (!(cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)] > 0)) return false;
  for (std::size_t i = 0; i < p.ranks.size(); ++i) {
    const auto path = topo.nvlink_path(p.ranks[i], p.ranks[(i + 1) % p.ranks.size()]);
    if (!path) return false;
    bool via_switch = false;
    for (DeviceId d : path->devices) {
      const auto& dev = topo.device(d);
      if (dev.kind == topology::DeviceKind::NvSwitch && dev.nvswitch != nullptr &&
          dev.nvswitch->nvlink_gen >= 4)
        via_switch = true;
    }
    if (!via_switch) return false;
  }
  return true;
}

/// NCCL's time estimate for NVLS all_reduce per release (see nvls_graph_time and nvls_model_time).
double nvls_time(const topology::Topology& topo, const calibration::CostModel& cost,
                 const CollectiveOptions& o, const CollectivePlan& p, double per_gpu_bw) {
  return o.p2p.nccl_version < kNvlsEfficiencyModel
             ? nvls_graph_time(topo, cost, p, per_gpu_bw)
             : nvls_model_time(cost, p, per_gpu_bw, cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)]);
}

/// NVLS all_reduce: one flow per ordered GPU pair through the NVSwitch, all at once after NCCL's NVLS
/// latency, carrying nvls_pair_factor x S (see there); Simple protocol, steady model.
void plan_nvls(const topology::Topology& topo, const calibration::CostModel& cost, ConnectionCache& cache,
               CollectivePlan& p) {
  const std::size_t n = p.ranks.size();
  if (n * (n - 1) > kMaxConcurrentFlows)
    throw InputError("", "",
                     "NVLS on " + std::to_string(n) + " GPUs is " + std::to_string(n * (n - 1)) +
                         " concurrent flows; rigsim simulates at most " +
                         std::to_string(kMaxConcurrentFlows));
  p.protocol = Protocol::Simple;
  p.model = PlanModel::Steady;
  p.latency = cost.nccl_nvls_latency;
  p.connections.clear();
  p.chunk = {p.size.value * nvls_pair_factor(n, cost.nccl_nvls_efficiency[arch_row(topo, p.ranks)])};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const Connection& h = p.connections.emplace_back(cache.get(p.ranks[i], p.ranks[j]));
      add_transfer(p.transfers, h, p.chunk, p.latency, {}, "all_reduce nvls");
    }
}

}  // namespace rigsim::model::detail
