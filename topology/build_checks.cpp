// Lane budgets (CPU, host bridge, switch, chipset) and power checks of the Builder.
#include <algorithm>
#include <cctype>
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
    auto it =
        std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.first == d.gpu->key; });
    if (it == models.end()) it = models.insert(models.end(), {std::string(d.gpu->key), {}});
    it->second.push_back(d.local_name);
  }
  if (models.size() < 2) return;
  std::string list;
  for (const auto& [model, gpus] : models) {
    if (!list.empty()) list += ", ";
    list += model + " (" + gpus.front() +
            (gpus.size() > 1 ? " and " + std::to_string(gpus.size() - 1) + " more" : "") + ")";
  }
  warn("mixed GPU models: " + list +
       ". NCCL puts every GPU of a communicator in the same rings and trees, so a collective moves at the "
       "pace of the slowest GPU's links and a data-parallel step waits for the slowest GPU");
}

// Sustained: GPUs' and CPUs' rated power + the rest of the system within the supplies that carry the
// load (spares idle). Transients: at each load duration of the ATX 3.x excursion table, every GPU at
// its generation's measured peak (all at once: whether the peaks of several cards line up is not
// measured, so they are assumed to) against what the supplies carry for that long; the worst window is
// reported.
void Builder::check_power() {
  const PsuSpec& psu = spec_.psu;
  if (psu.unit_w <= 0) return;
  double gpu_w = 0, cpu_w = 0;
  std::vector<const GpuSpec*> gpus;
  for (const auto& d : impl_->devices) {
    if (d.kind == DeviceKind::Gpu) {
      gpu_w += d.gpu->tdp_w;
      gpus.push_back(d.gpu);
    }
    if (d.kind == DeviceKind::Cpu) cpu_w += d.cpu->tdp_w;
  }
  const double capacity = psu.capacity_w();
  char buf[600];
  std::string supplies;  // "the 1600 W ATX 3.x PSU", "2 of 4 x 2000 W server supplies (2 redundant)"
  {
    std::snprintf(buf, sizeof buf, "%.0f W", psu.unit_w);
    const std::string kind(power::describe(psu.kind));
    if (psu.units == 1)
      supplies = "the " + std::string(buf) + " " + kind + " PSU";
    else if (psu.redundant == 0)
      supplies = std::to_string(psu.units) + " x " + buf + " " + kind + " supplies";
    else
      supplies = std::to_string(psu.units - psu.redundant) + " of " + std::to_string(psu.units) + " x " +
                 buf + " " + kind + " supplies (" + std::to_string(psu.redundant) + " redundant)";
  }
  const double sustained = gpu_w + cpu_w + power::kRestOfSystemW;
  if (sustained > capacity) {
    std::snprintf(
        buf, sizeof buf,
        "power: GPUs %.0f W + CPUs %.0f W + %.0f W rest of system = %.0f W sustained exceeds the %.0f W "
        "that ",
        gpu_w, cpu_w, power::kRestOfSystemW, sustained, capacity);
    warn(buf + supplies + " carry");
  }
  std::size_t worst = 0;
  double worst_ratio = 0, worst_demand = 0, worst_carried = 0;
  for (std::size_t w = 0; w < power::kWindowsS.size(); ++w) {
    double demand = cpu_w + power::kRestOfSystemW;
    for (const GpuSpec* g : gpus) demand += g->tdp_w * power::gpu_transient_factor(g->power_transients, w);
    const double carried = capacity * power::psu_transient_factor(psu.kind, psu.unit_w, w);
    if (demand / carried > worst_ratio) {
      worst_ratio = demand / carried;
      worst = w;
      worst_demand = demand;
      worst_carried = carried;
    }
  }
  if (worst_ratio <= 1) return;
  // The GPUs by model, each with its factor and where the factor comes from.
  std::string cards;
  std::vector<const GpuSpec*> seen;
  bool unmeasured = false;
  for (const GpuSpec* g : gpus) {
    if (std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
    seen.push_back(g);
    const auto n = std::count(gpus.begin(), gpus.end(), g);
    const double factor = power::gpu_transient_factor(g->power_transients, worst);
    unmeasured = unmeasured || factor == power::cem5_envelope(power::kWindowsS[worst]);
    std::snprintf(buf, sizeof buf, "%ld x %s at %.2fx %.0f W (%s)", static_cast<long>(n),
                  std::string(g->name).c_str(), factor, g->tdp_w,
                  std::string(power::gpu_transient_source(g->power_transients)).c_str());
    cards += (cards.empty() ? "" : ", ") + std::string(buf);
  }
  const std::string window = power::window_name(power::kWindowsS[worst]);
  std::snprintf(buf, sizeof buf, "power: load peaks lasting %s reach %.0f W: ", window.c_str(), worst_demand);
  std::string text = buf + cards + ", CPUs and the rest at their rating. " + supplies;
  text[text.size() - supplies.size()] =
      static_cast<char>(std::toupper(static_cast<unsigned char>(supplies[0])));
  std::snprintf(buf, sizeof buf, " carry %.0f W (%.2fx) for ", worst_carried,
                power::psu_transient_factor(psu.kind, psu.unit_w, worst));
  text += buf + window +
          (unmeasured ? ": shutdowns are possible if the cards use the PCIe CEM 5.0 allowance in full (their "
                        "transients are not measured)"
                      : ": expect shutdowns under load");
  warn(text);
}

}  // namespace rigsim::topology::detail
