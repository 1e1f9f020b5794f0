#include <mutex>

#include "topology/topology.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include "topology/topology_impl.hpp"

namespace rigsim::topology {
namespace {

constexpr std::array<std::pair<PathClass, std::string_view>, 8> kPathNames{{
    {PathClass::LOC, "LOC"},
    {PathClass::NVL, "NVL"},
    {PathClass::NVB, "NVB"},
    {PathClass::PIX, "PIX"},
    {PathClass::PXB, "PXB"},
    {PathClass::PHB, "PHB"},
    {PathClass::SYS, "SYS"},
    {PathClass::NET, "NET"},
}};

}  // namespace

std::string_view to_string(PathClass c) {
  for (const auto& [k, s] : kPathNames)
    if (k == c) return s;
  return "?";
}

std::optional<PathClass> parse_path_class(std::string_view s) {
  for (const auto& [k, name] : kPathNames)
    if (name == s) return k;
  return std::nullopt;
}

std::string_view to_string(DeviceKind k) {
  switch (k) {
    case DeviceKind::Cpu:
      return "cpu";
    case DeviceKind::HostBridge:
      return "host_bridge";
    case DeviceKind::Chipset:
      return "chipset";
    case DeviceKind::Switch:
      return "switch";
    case DeviceKind::Gpu:
      return "gpu";
    case DeviceKind::Nic:
      return "nic";
    case DeviceKind::NvSwitch:
      return "nvswitch";
    case DeviceKind::NetSwitch:
      return "network_switch";
  }
  return "?";
}

std::string_view to_string(LinkKind k) {
  switch (k) {
    case LinkKind::Pcie:
      return "pcie";
    case LinkKind::Internal:
      return "internal";
    case LinkKind::ChipsetUplink:
      return "chipset_uplink";
    case LinkKind::InterSocket:
      return "inter_socket";
    case LinkKind::NvLink:
      return "nvlink";
    case LinkKind::Network:
      return "network";
  }
  return "?";
}

Topology::Topology(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& Topology::name() const {
  return impl_->name;
}
const std::string& Topology::description() const {
  return impl_->description;
}
const std::vector<std::string>& Topology::notes() const {
  return impl_->notes;
}
double Topology::psu_w() const {
  return impl_->psu_w;
}

double Topology::price_usd() const {
  return impl_->price_usd;
}

const std::string& Topology::price_source() const {
  return impl_->price_source;
}
bool Topology::p2p_patched_driver() const {
  return impl_->p2p_patched_driver;
}
const std::vector<Device>& Topology::devices() const {
  return impl_->devices;
}
const std::vector<Link>& Topology::links() const {
  return impl_->links;
}
const Device& Topology::device(DeviceId id) const {
  return impl_->devices.at(id);
}
const Link& Topology::link(LinkId id) const {
  return impl_->links.at(id);
}
const std::vector<std::string>& Topology::warnings() const {
  return impl_->warnings;
}

std::optional<DeviceId> Topology::try_find(std::string_view name) const {
  auto it = impl_->by_name.find(name);
  if (it == impl_->by_name.end()) return std::nullopt;
  return it->second;
}

DeviceId Topology::find(std::string_view name) const {
  if (auto id = try_find(name)) return *id;
  throw std::out_of_range("no device named \"" + std::string(name) + "\" in layout " + impl_->name);
}

std::vector<DeviceId> Topology::of_kind(DeviceKind k) const {
  std::vector<DeviceId> out;
  for (const auto& d : impl_->devices)
    if (d.kind == k) out.push_back(d.id);
  return out;
}

const std::vector<DeviceId>& Topology::node_devices(int node) const {
  static const std::vector<DeviceId> kNone;
  auto& cache = *impl_->cache;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (!cache.by_node) {
    cache.by_node.emplace();
    for (const auto& d : impl_->devices) {
      if (d.node < 0) continue;
      const auto n = static_cast<std::size_t>(d.node);
      if (cache.by_node->size() <= n) cache.by_node->resize(n + 1);
      (*cache.by_node)[n].push_back(d.id);
    }
  }
  // The vectors never change once built, so the reference stays valid after the lock is released.
  if (node < 0 || static_cast<std::size_t>(node) >= cache.by_node->size()) return kNone;
  return (*cache.by_node)[static_cast<std::size_t>(node)];
}

std::optional<DeviceId> Topology::memo(std::string_view question, DeviceId d,
                                       const std::function<std::optional<DeviceId>(DeviceId)>& compute) const {
  auto& cache = *impl_->cache;
  {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    const auto it = cache.memo.find(question);
    if (it != cache.memo.end() && it->second[d] != -2)
      return it->second[d] < 0 ? std::nullopt : std::optional<DeviceId>(static_cast<DeviceId>(it->second[d]));
  }
  const std::optional<DeviceId> answer = compute(d);  // may ask paths, which take the lock
  const std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.memo.find(question);
  if (it == cache.memo.end()) it = cache.memo.emplace(std::string(question), std::vector<long>(impl_->devices.size(), -2)).first;
  it->second[d] = answer ? static_cast<long>(*answer) : -1;
  return answer;
}

std::optional<LinkId> Topology::uplink(DeviceId d) const {
  return impl_->uplink.at(d);
}

DeviceId Topology::socket_of(DeviceId d) const {
  const int socket = device(d).socket;
  for (const auto& dev : impl_->devices)
    if (dev.kind == DeviceKind::Cpu && dev.socket == socket) return dev.id;
  throw std::logic_error("device " + device(d).name + " belongs to no CPU socket");
}

}  // namespace rigsim::topology
