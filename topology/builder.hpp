// Private: the builder that validates a LayoutSpec and builds a Topology. build.cpp adds devices
// and links; build_checks.cpp checks lane budgets and power.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "topology/layout_spec.hpp"
#include "topology/topology_impl.hpp"

namespace rigsim::topology::detail {

class Builder {
 public:
  /// `cluster_nodes` > 0: the spec holds that many prefixed copies of one server ("n<k>/..."), to be
  /// joined by a network switch.
  explicit Builder(const LayoutSpec& spec, int cluster_nodes = 0);
  Topology build();

 private:
  struct SlotState {
    const SlotEntry* entry = nullptr;
    DeviceId parent = 0;
    std::vector<std::string> occupant;  // per port (one entry when not bifurcated)
  };

  [[noreturn]] void fail(const std::string& where, const std::string& message) const;
  void warn(std::string message) { impl_->warnings.push_back(std::move(message)); }
  DeviceId add_device(Device d);
  LinkId add_link(Link l);
  Device& dev(DeviceId id) { return impl_->devices[id]; }
  DeviceId resolve(const std::string& name, const std::string& where, std::initializer_list<DeviceKind> kinds,
                   const std::string& what) const;
  /// Connects `child` to its PCIe parent per `a`; returns the parent. Records lane use.
  DeviceId attach(DeviceId child, int device_gen, int device_width, const PcieAttach& a);
  int parent_gen(DeviceId parent) const;

  void check_unique_ids() const;
  void add_cpus();
  void add_host_bridges();
  void add_chipsets();
  void index_slots();
  void add_switches();
  void check_empty_slots();
  void add_gpus();
  void add_nics();
  void add_nvlinks();
  void add_xgmi();
  /// Warns when a bridge joins slots whose board positions no NVLink bridge spans.
  void check_bridge_span(DeviceId a, DeviceId b);
  void add_nvswitches();
  void add_inter_socket();
  void use_lanes(DeviceId parent, int lanes, const std::string& what);
  void add_network();

  // build_checks.cpp
  void check_lane_budgets();
  void check_power();
  void check_gpu_mix();
  int cpu_lanes_available(DeviceId cpu) const;

  const LayoutSpec& spec_;
  int cluster_nodes_ = 0;
  std::shared_ptr<Topology::Impl> impl_;
  std::map<std::string, SlotState> slots_;
  std::map<DeviceId, int> lanes_used_;                       // lanes consumed below a device
  std::map<DeviceId, std::vector<std::string>> lane_users_;  // who consumed them, for messages
  std::map<DeviceId, std::string> where_;                    // device -> its entry's location
  std::map<DeviceId, const CpuEntry*> cpu_entry_;
  std::map<DeviceId, int> nvlinks_used_;
  std::map<DeviceId, int> xgmi_used_;
};

}  // namespace rigsim::topology::detail
