// Where a GPU's network traffic leaves its server (nearest_nic) and whether NCCL's network transport
// reads and writes its memory directly (uses_gdr): the NIC side of the Platform's routing rules
// (reference nccl.md §d.3–§d.4).
#include <algorithm>
#include <string>
#include <vector>

#include "model/platform.hpp"

namespace rigsim::model {

using topology::Device;
using topology::DeviceId;
using topology::DeviceKind;

namespace {

/// The NICs of `d`'s server equally close to it: fewest PCIe links, then highest path bottleneck.
std::vector<DeviceId> closest_nics(const topology::Topology& topo, DeviceId d) {
  std::vector<DeviceId> best;
  std::size_t best_links = 0;
  double best_bw = 0;
  for (DeviceId n : topo.node_devices(topo.device(d).node)) {
    if (topo.device(n).kind != DeviceKind::Nic) continue;
    const topology::Path p = topo.pcie_path(d, n);
    const std::size_t links = p.links.size();
    const double bw = p.bottleneck.value;
    if (best.empty() || links < best_links || (links == best_links && bw > best_bw)) {
      best = {n};
      best_links = links;
      best_bw = bw;
    } else if (links == best_links && bw == best_bw) {
      best.push_back(n);
    }
  }
  return best;
}

std::optional<DeviceId> compute_nearest_nic(const topology::Topology& topo, DeviceId device) {
  const std::vector<DeviceId> mine = closest_nics(topo, device);
  if (mine.empty()) return std::nullopt;
  if (mine.size() == 1 || topo.device(device).kind != DeviceKind::Gpu) return mine.front();
  std::size_t k = 0;  // GPUs of this server with a smaller id and the same closest set
  for (DeviceId g : topo.node_devices(topo.device(device).node))
    if (g < device && topo.device(g).kind == DeviceKind::Gpu && closest_nics(topo, g) == mine) ++k;
  return mine[k % mine.size()];
}

/// The first NCCL release whose default GDR read rule exempts Ampere and newer GPUs.
constexpr int kGdrReadAmpereExempt = 21901;

}  // namespace

std::optional<DeviceId> nearest_nic(const topology::Topology& topo, DeviceId device) {
  if (topo.device(device).kind == DeviceKind::Nic) return device;
  // Asked for every rank at every protocol decision: computed once per device.
  return topo.memo("nearest_nic", device, [&](DeviceId d) { return compute_nearest_nic(topo, d); });
}

bool uses_gdr(const topology::Topology& topo, DeviceId gpu, DeviceId nic, bool read, const NetPolicy& policy,
              std::string* reason) {
  const auto say = [&](bool v, const std::string& why) {
    if (reason) *reason = why;
    return v;
  };
  const Device& g = topo.device(gpu);
  const Device& n = topo.device(nic);
  if (g.kind != DeviceKind::Gpu || g.gpu == nullptr)
    return say(true, "not a GPU: the NIC reaches it directly");
  if (n.nic == nullptr || !n.nic->gpudirect_rdma) return say(false, n.name + " has no GPUDirect RDMA");
  if (g.gpu->geforce) return say(false, "GeForce cards have no GPUDirect RDMA");
  if (read && policy.gdr_read == 0) return say(false, "NCCL_NET_GDR_READ=0: sends are staged");
  // NCCL's default (paths.cc ncclTopoCheckGdr): GDR reads only when the GPU is the communicator's one GPU
  // on its server or has an NVLink peer among them (no other PCIe flows); up to 2.18 for every GPU,
  // from 2.19.1 only before Ampere (`cudaCompCap < 80`, absent at v2.18.6, present at v2.19.1).
  const bool every_generation = policy.nccl_version < kGdrReadAmpereExempt;
  if (read && policy.gdr_read < 0 && (every_generation || g.gpu->sm < 80)) {
    bool alone = true, nvlink = false;
    for (DeviceId o : topo.node_devices(g.node)) {
      if (o == gpu || topo.device(o).kind != DeviceKind::Gpu) continue;
      if (!policy.gpus.empty() && std::find(policy.gpus.begin(), policy.gpus.end(), o) == policy.gpus.end())
        continue;
      alone = false;
      nvlink = nvlink || topo.path(gpu, o).nccl == topology::PathClass::NVL;
    }
    if (!alone && !nvlink)
      return say(false, every_generation && g.gpu->sm >= 80
                            ? "NCCL before 2.19.1 reads GPU memory from the NIC only with an NVLink peer"
                            : "before Ampere NCCL reads GPU memory from the NIC only with an NVLink peer");
  }
  const topology::PathClass level = policy.gdr_level.value_or(topology::PathClass::PXB);
  const topology::PathClass distance = topo.pcie_path(gpu, nic).nccl;
  if (distance > level)
    return say(false, "GPU-NIC path " + std::string(topology::to_string(distance)) +
                          " is beyond NCCL_NET_GDR_LEVEL " + std::string(topology::to_string(level)));
  return say(true, "GPUDirect RDMA (path " + std::string(topology::to_string(distance)) + ")");
}

std::optional<NetExit> net_exit(const topology::Topology& topo, DeviceId src, DeviceId dst,
                                const NetPolicy& policy) {
  const auto own = nearest_nic(topo, src);
  if (!own) return std::nullopt;
  const NetExit local{*own, std::nullopt};
  const Device& s = topo.device(src);
  const Device& d = topo.device(dst);
  if (!policy.pxn || s.node == d.node || s.kind != DeviceKind::Gpu || d.kind != DeviceKind::Gpu) return local;
  std::optional<DeviceId> mirror;
  for (DeviceId g : topo.node_devices(s.node))
    if (topo.device(g).kind == DeviceKind::Gpu && topo.device(g).local_name == d.local_name) mirror = g;
  if (!mirror || *mirror == src) return local;
  const auto nic = nearest_nic(topo, *mirror);
  if (!nic || *nic == *own) return local;
  using topology::PathClass;
  if (topo.pcie_path(src, *nic).nccl <= PathClass::PXB) return NetExit{*nic, std::nullopt};
  const bool relay = topo.path(src, *mirror).nccl == PathClass::NVL &&
                     topo.pcie_path(*mirror, *nic).nccl <= PathClass::PXB &&
                     uses_gdr(topo, *mirror, *nic, false, policy);
  return relay ? NetExit{*nic, mirror} : local;
}

}  // namespace rigsim::model
