#include "report/topo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace rigsim::report {

using namespace topology;
namespace {

double round3(double x) {
  return std::round(x * 1000.0) / 1000.0;
}

/// "GPU0", "NIC1": nvidia-smi's labels, by position among devices of that kind (other devices: their
/// name). Built once per report: a lookup per matrix cell made a 1,024-GPU report cubic.
class Labels {
 public:
  explicit Labels(const Topology& topo) {
    for (const auto& d : topo.devices()) names_.push_back(d.name);
    for (const auto& [kind, prefix] :
         {std::pair{DeviceKind::Gpu, "GPU"}, std::pair{DeviceKind::Nic, "NIC"}}) {
      const auto same = topo.of_kind(kind);
      for (std::size_t i = 0; i < same.size(); ++i) names_[same[i]] = prefix + std::to_string(i);
    }
  }
  const std::string& operator()(DeviceId id) const { return names_[id]; }

 private:
  std::vector<std::string> names_;
};

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

const char* kLegend =
    "Legend:\n\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA "
    "node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

void write_matrix(std::ostringstream& out, const Topology& topo) {
  const Labels label(topo);
  const auto ids = matrix_devices(topo);
  const auto m = smi_matrix(topo);
  out << pad("", 8);
  for (DeviceId id : ids) out << pad(label(id), 8);
  out << pad("CPU Affinity", 14) << "NUMA Affinity\n";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out << pad(label(ids[i]), 8);
    for (std::size_t j = 0; j < ids.size(); ++j) out << pad(m[i][j], 8);
    const Device& d = topo.device(ids[i]);
    out << pad(topo.device(topo.socket_of(ids[i])).name, 14) << d.numa << "\n";
  }
  out << "\n" << kLegend;
  if (!topo.nics().empty()) {
    out << "\nNIC Legend:\n\n";
    for (DeviceId n : topo.nics()) out << "  " << label(n) << ": " << topo.device(n).name << "\n";
  }
}

/// True when the layout's GPUs are AMD: the report then also speaks ROCm (rocm-smi, RCCL).
bool amd_gpus(const Topology& topo) {
  const auto gpus = topo.gpus();
  return !gpus.empty() && std::all_of(gpus.begin(), gpus.end(), [&](DeviceId g) {
    return topo.device(g).gpu != nullptr && topo.device(g).gpu->vendor == Vendor::Amd;
  });
}

/// `rocm-smi --showtopo`'s tables, in its layout (rocm_smi_lib#108 shows one).
void write_rocm_smi(std::ostringstream& out, const Topology& topo) {
  const RocmTopo t = rocm_smi_topo(topo);
  const std::size_t n = t.numa.size();
  auto table = [&](const char* title, auto cell) {
    out << "=== " << title << " ===\n" << pad("", 7);
    for (std::size_t j = 0; j < n; ++j) out << pad("GPU" + std::to_string(j), 13);
    out << "\n";
    for (std::size_t i = 0; i < n; ++i) {
      out << pad("GPU" + std::to_string(i), 7);
      for (std::size_t j = 0; j < n; ++j) out << pad(cell(i, j), 13);
      out << "\n";
    }
    out << "\n";
  };
  out << "\nAs rocm-smi --showtopo shows it (AMD GPUs; RCCL reads the same links):\n\n";
  table("Weight between two GPUs",
        [&](std::size_t i, std::size_t j) { return std::to_string(t.weight[i][j]); });
  table("Hops between two GPUs", [&](std::size_t i, std::size_t j) { return std::to_string(t.hops[i][j]); });
  table("Link Type between two GPUs", [&](std::size_t i, std::size_t j) { return t.type[i][j]; });
  out << "=== Numa Nodes ===\n";
  for (std::size_t i = 0; i < n; ++i)
    out << "GPU[" << i << "]\t\t: (Topology) Numa Node: " << t.numa[i] << "\nGPU[" << i
        << "]\t\t: (Topology) Numa Affinity: " << t.numa[i] << "\n";
}

std::string parent_name(const Topology& topo, DeviceId id) {
  const auto up = topo.uplink(id);
  return up ? topo.device(topo.link(*up).up).name : "-";
}

void write_links(std::ostringstream& out, const Topology& topo) {
  out << "\nLinks (bandwidth per direction, wire rate):\n\n";
  out << pad("device", 12) << pad("model", 20) << pad("parent", 12) << pad("slot", 10) << pad("link", 12)
      << pad("GB/s", 8) << "limited by\n";
  for (const auto& d : topo.devices()) {
    const auto up = topo.uplink(d.id);
    if (!up || d.kind == DeviceKind::HostBridge) continue;
    const Link& l = topo.link(*up);
    const std::string link = "Gen" + std::to_string(l.gen) + " x" + std::to_string(l.width);
    out << pad(d.name, 12) << pad(d.model, 20) << pad(parent_name(topo, d.id), 12)
        << pad(l.slot.empty() ? "on-board" : l.slot, 10) << pad(link, 12)
        << pad(fixed(l.bandwidth.gb_per_s(), 2), 8) << (l.limited_by.empty() ? l.note : l.limited_by) << "\n";
  }
  for (const auto& l : topo.links()) {
    if (l.kind != LinkKind::NvLink && l.kind != LinkKind::InterSocket) continue;
    const std::string what = l.kind == LinkKind::NvLink
                                 ? "NVLink" + std::to_string(l.gen) + " x" + std::to_string(l.width)
                                 : "inter-socket";
    out << pad(topo.device(l.up).name + "<->" + topo.device(l.down).name, 24) << pad(what, 20)
        << pad(fixed(l.bandwidth.gb_per_s(), 2), 8) << l.note << "\n";
  }
}

void write_lane_budget(std::ostringstream& out, const Topology& topo) {
  out << "\nLane budget:\n\n";
  for (const auto& d : topo.devices()) {
    if (d.kind != DeviceKind::Cpu && d.kind != DeviceKind::HostBridge && d.kind != DeviceKind::Switch &&
        d.kind != DeviceKind::Chipset)
      continue;
    out << "  " << pad(d.name, 12) << pad(std::string(to_string(d.kind)), 13) << d.lanes_used << " of "
        << d.lanes << " lanes used\n";
  }
}

void write_p2p(std::ostringstream& out, const Topology& topo, const P2pPolicy& policy) {
  const Labels label(topo);
  const auto gpus = topo.gpus();
  out << "\nP2P (what " << (amd_gpus(topo) ? "RCCL" : "NCCL") << " would use; level "
      << to_string(policy.disable
                       ? PathClass::LOC
                       : policy.level.value_or(default_p2p_level(topo, gpus.size(), policy.nccl_version)))
      << "):\n\n"
      << pad("", 8);
  for (DeviceId g : gpus) out << pad(label(g), 6);
  out << "\n";
  std::vector<std::string> reasons;
  for (DeviceId a : gpus) {
    out << pad(label(a), 8);
    for (DeviceId b : gpus) {
      const auto d = decide_p2p(topo, a, b, policy, gpus.size());
      out << pad(a == b ? "X" : (d.allowed ? "OK" : "NS"), 6);
      if (a < b)
        reasons.push_back(label(a) + "-" + label(b) + ": " + (d.allowed ? "OK, " : "no, ") + d.reason);
    }
    out << "\n";
  }
  out << "\n";
  for (const auto& r : reasons) out << "  " << r << "\n";
}

}  // namespace

std::string topo_text(const Topology& topo, const P2pPolicy& policy) {
  std::ostringstream out;
  out << topo.name();
  if (!topo.description().empty()) out << ": " << topo.description();
  out << "\n\n";
  write_matrix(out, topo);
  if (amd_gpus(topo)) write_rocm_smi(out, topo);
  write_links(out, topo);
  write_lane_budget(out, topo);
  write_p2p(out, topo, policy);
  out << "\nWarnings:" << (topo.warnings().empty() ? " none\n" : "\n");
  for (const auto& w : topo.warnings()) out << "  - " << w << "\n";
  return out.str();
}

nlohmann::json topo_json(const Topology& topo, const P2pPolicy& policy) {
  using nlohmann::json;
  json out;
  out["layout"] = topo.name();
  out["description"] = topo.description();
  auto link_json = [&](DeviceId id) {
    const Link& l = topo.link(*topo.uplink(id));
    return json{{"gen", l.gen},
                {"width", l.width},
                {"gbps", round3(l.bandwidth.gb_per_s())},
                {"slot", l.slot},
                {"parent", topo.device(l.up).name},
                {"limited_by", l.limited_by}};
  };
  json gpus = json::array();
  const auto gpu_ids = topo.gpus();
  for (std::size_t i = 0; i < gpu_ids.size(); ++i) {
    const Device& d = topo.device(gpu_ids[i]);
    gpus.push_back({{"id", d.name},
                    {"index", i},
                    {"model", d.model},
                    {"name", std::string(d.gpu->name)},
                    {"numa", d.numa},
                    {"cpu", topo.device(topo.socket_of(d.id)).name},
                    {"link", link_json(d.id)}});
  }
  out["gpus"] = gpus;
  json nics = json::array();
  for (DeviceId n : topo.nics()) {
    const Device& d = topo.device(n);
    nics.push_back({{"id", d.name},
                    {"model", d.model},
                    {"speed_gbps", d.nic_rate.value * 8 / 1e9},
                    {"numa", d.numa},
                    {"link", link_json(d.id)}});
  }
  out["nics"] = nics;
  json labels = json::array();
  for (DeviceId id : matrix_devices(topo)) labels.push_back(topo.device(id).name);
  out["matrix_devices"] = labels;
  out["matrix"] = smi_matrix(topo);
  if (amd_gpus(topo)) {
    const RocmTopo t = rocm_smi_topo(topo);
    out["rocm_smi"] = {{"weight", t.weight}, {"hops", t.hops}, {"link_type", t.type}, {"numa", t.numa}};
  }
  json p2p = json::array(), reasons = json::array(), nccl = json::array();
  for (DeviceId a : gpu_ids) {
    json row = json::array(), why = json::array(), cls = json::array();
    for (DeviceId b : gpu_ids) {
      const auto d = decide_p2p(topo, a, b, policy, gpu_ids.size());
      row.push_back(d.allowed);
      why.push_back(d.reason);
      cls.push_back(std::string(to_string(topo.path(a, b).nccl)));
    }
    p2p.push_back(row);
    reasons.push_back(why);
    nccl.push_back(cls);
  }
  out["p2p"] = p2p;
  out["p2p_reasons"] = reasons;
  out["p2p_level"] = std::string(to_string(
      policy.disable ? PathClass::LOC
                     : policy.level.value_or(default_p2p_level(topo, gpu_ids.size(), policy.nccl_version))));
  out["nccl_paths"] = nccl;
  json budget = json::array();
  for (const auto& d : topo.devices())
    if (d.kind == DeviceKind::Cpu || d.kind == DeviceKind::HostBridge || d.kind == DeviceKind::Switch ||
        d.kind == DeviceKind::Chipset)
      budget.push_back({{"device", d.name},
                        {"kind", std::string(to_string(d.kind))},
                        {"used", d.lanes_used},
                        {"available", d.lanes}});
  out["lane_budget"] = budget;
  out["warnings"] = topo.warnings();
  return out;
}

std::string topo_dot(const Topology& topo) {
  std::ostringstream out;
  out << "graph \"" << topo.name() << "\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n";
  for (const auto& d : topo.devices()) {
    const char* shape = d.kind == DeviceKind::Gpu   ? "box"
                        : d.kind == DeviceKind::Cpu ? "doubleoctagon"
                        : d.kind == DeviceKind::Nic ? "parallelogram"
                                                    : "ellipse";
    out << "  \"" << d.name << "\" [shape=" << shape << ", label=\"" << d.name
        << (d.model.empty() ? "" : "\\n" + d.model) << "\"];\n";
  }
  for (const auto& l : topo.links()) {
    std::string label;
    if (l.kind == LinkKind::Pcie || l.kind == LinkKind::ChipsetUplink)
      label = "Gen" + std::to_string(l.gen) + " x" + std::to_string(l.width);
    else if (l.kind == LinkKind::NvLink)
      label = "NV" + std::to_string(l.width);
    else if (l.kind == LinkKind::InterSocket)
      label = "inter-socket";
    const char* style = l.kind == LinkKind::NvLink ? ", color=green, penwidth=2" : "";
    out << "  \"" << topo.device(l.up).name << "\" -- \"" << topo.device(l.down).name << "\" [label=\""
        << label << " " << fixed(l.bandwidth.gb_per_s(), 1) << " GB/s\"" << style << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace rigsim::report
