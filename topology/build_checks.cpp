// Lane budgets (CPU, host bridge, switch, chipset) and power checks of the Builder.
#include <algorithm>
#include <cstdio>

#include "topology/builder.hpp"
#include "topology/power.hpp"

namespace rigsim::topology::detail {
namespace {

/// The users of a lane budget, at most 8 named: a 10,000-GPU layout must not print 10,000 (issue 12).
std::string join(const std::vector<std::string>& parts) {
  constexpr std::size_t kShown = 8;
  std::string out;
  for (std::size_t i = 0; i < parts.size() && i < kShown; ++i) out += (out.empty() ? "" : ", ") + parts[i];
  if (parts.size() > kShown) out += ", and " + std::to_string(parts.size() - kShown) + " more";
  return out;
}

}  // namespace

int Builder::cpu_lanes_available(DeviceId cpu) const {
  const Device& d = impl_->devices[cpu];
  int lanes = d.cpu->pcie_lanes;
  // EPYC sockets give up x16 of PCIe per xGMI link in a 2P system (AnandTech Rome review: "64 PCIe lanes
  // from each CPU were used to link them"; 3 links leave 160 lanes in 2P, reference hardware.md §2.6-2.7).
  if (d.cpu->inter_socket == InterSocketKind::Xgmi)
    for (const auto& l : impl_->links)
      if (l.kind == LinkKind::InterSocket && (l.up == cpu || l.down == cpu)) lanes -= 16 * l.width;
  return lanes;
}

void Builder::check_lane_budgets() {
  for (const Device& d : impl_->devices) {
    int budget = 0;
    std::string what;
    switch (d.kind) {
      case DeviceKind::Cpu:
        budget = cpu_lanes_available(d.id) - cpu_entry_.at(d.id)->reserved_lanes;
        what = std::string(d.cpu->name) + " provides " + std::to_string(budget) + " PCIe lanes" +
               (cpu_entry_.at(d.id)->reserved_lanes > 0
                    ? " after " + std::to_string(cpu_entry_.at(d.id)->reserved_lanes) + " reserved"
                    : std::string()) +
               (d.cpu->inter_socket == InterSocketKind::Xgmi && budget < d.cpu->pcie_lanes
                    ? " (x16 per xGMI link goes to the other socket)"
                    : std::string());
        break;
      case DeviceKind::HostBridge:
        budget = d.lanes;
        what = "host bridge " + d.name + " has " + std::to_string(budget) + " lanes";
        break;
      case DeviceKind::Switch:
        budget = d.lanes;
        what = std::string(d.pcie_switch->name) + " has " + std::to_string(budget) + " lanes";
        break;
      case DeviceKind::Chipset:
        budget = d.lanes;
        what = std::string(d.chipset->name) + " provides " + std::to_string(budget) + " downstream lanes";
        break;
      default:
        continue;
    }
    auto used = lanes_used_.find(d.id);
    Device& mutable_device = impl_->devices[d.id];
    mutable_device.lanes = budget;
    mutable_device.lanes_used = used == lanes_used_.end() ? 0 : used->second;
    if (used != lanes_used_.end() && used->second > budget)
      fail(where_.at(d.id), "\"" + d.name + "\" needs " + std::to_string(used->second) + " lanes (" +
                                join(lane_users_.at(d.id)) + ") but " + what);
  }
}

void Builder::check_gpu_mix() {
  // Per model, in layout order: the GPUs of the first server (a cluster repeats it).
  std::vector<std::pair<std::string, std::vector<std::string>>> models;
  for (const auto& d : impl_->devices) {
    if (d.kind != DeviceKind::Gpu || d.node != 0) continue;
    auto it = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.first == d.gpu->key; });
    if (it == models.end()) it = models.insert(models.end(), {std::string(d.gpu->key), {}});
    it->second.push_back(d.local_name);
  }
  if (models.size() < 2) return;
  std::string list;
  for (const auto& [model, gpus] : models) {
    if (!list.empty()) list += ", ";
    list += model + " (" + gpus.front() + (gpus.size() > 1 ? " and " + std::to_string(gpus.size() - 1) + " more" : "") + ")";
  }
  warn("mixed GPU models: " + list +
       ". NCCL puts every GPU of a communicator in the same rings and trees, so a collective moves at the "
       "pace of the slowest GPU's links and a data-parallel step waits for the slowest GPU");
}

void Builder::check_power() {
  double gpu_w = 0, cpu_w = 0;
  for (const auto& d : impl_->devices) {
    if (d.kind == DeviceKind::Gpu) gpu_w += d.gpu->tdp_w;
    if (d.kind == DeviceKind::Cpu) cpu_w += d.cpu->tdp_w;
  }
  if (spec_.psu_w <= 0) return;
  char buf[400];
  const double sustained = gpu_w + cpu_w + power::kRestOfSystemW;
  if (sustained > spec_.psu_w) {
    std::snprintf(
        buf, sizeof buf,
        "power: GPUs %.0f W + CPUs %.0f W + %.0f W rest of system = %.0f W sustained exceeds the %.0f W "
        "PSU capacity",
        gpu_w, cpu_w, power::kRestOfSystemW, sustained, spec_.psu_w);
    warn(buf);
  }
  const double transient = gpu_w * power::kGpuTransientFactor + cpu_w + power::kRestOfSystemW;
  const double psu_peak = spec_.psu_w * power::kPsuTransientFactor;
  if (transient > psu_peak) {
    std::snprintf(
        buf, sizeof buf,
        "power: GPU transients (3x TDP for 100 us, PCIe CEM 5.0) reach %.0f W, above the %.0f W an ATX 3.0 "
        "PSU of %.0f W carries for 100 us; expect shutdowns under load",
        transient, psu_peak, spec_.psu_w);
    warn(buf);
  }
}

}  // namespace rigsim::topology::detail
