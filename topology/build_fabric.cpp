// GPU-to-GPU fabric links of a layout: NVLink bridges and board wiring, AMD xGMI hives, and the
// bridge-span check (split from build.cpp; the Builder's other steps are there).
#include <algorithm>
#include <cstdlib>

#include "topology/builder.hpp"

namespace rigsim::topology::detail {

void Builder::add_nvlinks() {
  for (const auto& e : spec_.nvlinks) {
    const DeviceId a = resolve(e.a, e.where + "/gpus/0", {DeviceKind::Gpu}, "GPU");
    const DeviceId b = resolve(e.b, e.where + "/gpus/1", {DeviceKind::Gpu}, "GPU");
    if (a == b) fail(e.where + "/gpus", "an NVLink joins two different GPUs");
    for (DeviceId g : {a, b}) {
      const GpuSpec& s = *dev(g).gpu;
      if (s.nvlink_gen == 0)
        fail(e.where + "/gpus", std::string(e.bridge ? "NVLink bridge" : "NVLink") + " on \"" + dev(g).name +
                                    "\", but a " + std::string(s.name) + " has no NVLink");
      if (e.bridge && !s.nvlink_bridge)
        fail(e.where + "/bridge", std::string(s.name) +
                                      " has NVLink on its board (SXM), not a bridge connector: "
                                      "set \"bridge\": false and give \"links\"");
    }
    // A bridge spans two or three slot widths: boards group each socket's slots together, so a bridge
    // between cards of different sockets is most likely a slip in the layout (it is legal: a few boards
    // put the last slot of one socket next to the first of the other).
    if (e.bridge && dev(a).socket >= 0 && dev(b).socket >= 0 && dev(a).socket != dev(b).socket)
      warn("NVLink bridge between \"" + dev(a).name + "\" (socket " + std::to_string(dev(a).socket) +
           ") and \"" + dev(b).name + "\" (socket " + std::to_string(dev(b).socket) +
           "): a bridge joins cards in neighbouring slots, and boards usually group each socket's slots "
           "together; check that these two slots are next to each other");
    if (e.bridge) check_bridge_span(a, b);
    const GpuSpec& sa = *dev(a).gpu;
    const int links = e.links > 0 ? e.links : std::min(sa.nvlink_links, dev(b).gpu->nvlink_links);
    for (DeviceId g : {a, b}) {
      nvlinks_used_[g] += links;
      if (nvlinks_used_[g] > dev(g).gpu->nvlink_links)
        fail(e.where + "/links", "\"" + dev(g).name + "\" would use " + std::to_string(nvlinks_used_[g]) +
                                     " NVLink links, but a " + std::string(dev(g).gpu->name) + " has " +
                                     std::to_string(dev(g).gpu->nvlink_links));
    }
    Link l;
    l.up = a;
    l.down = b;
    l.kind = LinkKind::NvLink;
    l.gen = std::min(sa.nvlink_gen, dev(b).gpu->nvlink_gen);
    l.width = links;
    l.bandwidth = gb_per_s(links * std::min(sa.nvlink_link_gbs, dev(b).gpu->nvlink_link_gbs));
    l.note = e.bridge ? "NVLink bridge" : "NVLink (board wiring)";
    add_link(l);
  }
}

// xGMI links are GPU-to-GPU fabric links like NVLink (LinkKind::NvLink: NCCL/RCCL treat both as the
// NVL path class; rocm-smi names them XGMI), one per pair of the bridge's or board's GPUs.
void Builder::add_xgmi() {
  for (const auto& e : spec_.xgmi) {
    std::vector<DeviceId> gpus;
    for (std::size_t i = 0; i < e.gpus.size(); ++i) {
      const DeviceId g = resolve(e.gpus[i], e.where + "/gpus/" + std::to_string(i), {DeviceKind::Gpu}, "GPU");
      if (std::find(gpus.begin(), gpus.end(), g) != gpus.end())
        fail(e.where + "/gpus/" + std::to_string(i), "\"" + e.gpus[i] + "\" is listed twice");
      const GpuSpec& s = *dev(g).gpu;
      if (s.xgmi_links == 0)
        fail(e.where + "/gpus/" + std::to_string(i),
             "xGMI on \"" + dev(g).name + "\", but a " + std::string(s.name) +
                 " has no Infinity Fabric GPU links (AMD Instinct MI100, MI210 and MI300X have them)");
      gpus.push_back(g);
    }
    const int peers = static_cast<int>(gpus.size()) - 1;
    for (std::size_t i = 0; i < gpus.size(); ++i)
      for (std::size_t j = i + 1; j < gpus.size(); ++j) {
        const GpuSpec& sa = *dev(gpus[i]).gpu;
        const GpuSpec& sb = *dev(gpus[j]).gpu;
        const int links = e.links > 0 ? e.links : std::max(1, std::min(sa.xgmi_links, sb.xgmi_links) / peers);
        Link l;
        l.up = gpus[i];
        l.down = gpus[j];
        l.kind = LinkKind::NvLink;
        l.width = links;
        l.bandwidth = gb_per_s(links * std::min(sa.xgmi_link_gbs, sb.xgmi_link_gbs));
        l.note = e.bridge ? "xGMI (Infinity Fabric Link bridge)" : "xGMI (board wiring)";
        add_link(l);
      }
    for (DeviceId g : gpus) {
      const int per_peer = e.links > 0 ? e.links : std::max(1, dev(g).gpu->xgmi_links / peers);
      xgmi_used_[g] += per_peer * peers;
      if (xgmi_used_[g] > dev(g).gpu->xgmi_links)
        fail(e.where + (e.links > 0 ? "/links" : "/gpus"),
             "\"" + dev(g).name + "\" would use " + std::to_string(xgmi_used_[g]) + " xGMI links, but a " +
                 std::string(dev(g).gpu->name) + " has " + std::to_string(dev(g).gpu->xgmi_links));
    }
  }
}

void Builder::check_bridge_span(DeviceId a, DeviceId b) {
  // Where both slots give their place on the board, the bridge must span what NVIDIA's bridges span:
  // 2, 3 or 4 slot pitches [R]: NVLink bridges are sold as 2- and 3-slot parts (Quadro, RTX A-series)
  // and 3- and 4-slot parts (GeForce RTX 3090); none joins neighbouring slots.
  const auto position_of = [&](DeviceId g) {
    for (const auto& [id, slot] : slots_)
      if (std::find(slot.occupant.begin(), slot.occupant.end(), dev(g).name) != slot.occupant.end())
        return slot.entry->position;
    return 0;
  };
  const int pa = position_of(a), pb = position_of(b);
  if (pa <= 0 || pb <= 0) return;
  const int span = std::abs(pa - pb);
  if (span < 2 || span > 4)
    warn("NVLink bridge between \"" + dev(a).name + "\" (slot position " + std::to_string(pa) + ") and \"" +
         dev(b).name + "\" (slot position " + std::to_string(pb) + ") would span " + std::to_string(span) +
         " slot(s): NVLink bridges span 2, 3 or 4 slots, so these cards cannot be bridged as placed");
}

}  // namespace rigsim::topology::detail
