// Private to topology/: the schema of each kind of catalog part (catalog/*.json) - one table of fields
// with their JSON names, members and physical ranges, and the rules between values - and the writer of
// that schema. catalog_parts.cpp reads parts with it and keeps the registry; a new field is one line in
// its kind's table.
#pragma once

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "topology/catalog.hpp"

namespace rigsim::topology::catalog_schema {

/// One value of a part: its JSON name, the member it fills, and for numbers the accepted range
/// [lo, hi] with what the number means (for error messages).
template <typename Spec>
struct Field {
  using Member = std::variant<double Spec::*, int Spec::*, bool Spec::*, std::string_view Spec::*,
                              Vendor Spec::*, InterSocketKind Spec::*, PowerTransients Spec::*>;
  std::string_view name;
  Member member;
  double lo = 0;
  double hi = 0;
  std::string_view meaning = {};
  std::string_view fallback = {};  // value of an optional field a part leaves out; "" = required
};

template <typename Spec>
struct Schema;

// Ranges are what the quantity can physically be, wide enough for parts not yet made (e.g. 2 TB of
// device memory); they catch a wrong unit (MB for GB) or a typo, not an unusual part.
template <>
struct Schema<GpuSpec> {
  static constexpr std::string_view kind = "gpus";
  static constexpr std::string_view what = "GPU";
  static const std::vector<Field<GpuSpec>>& fields() {
    using S = GpuSpec;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"vendor", &S::vendor},
        {"geforce", &S::geforce},
        {"memory_gb", &S::memory_gb, 0.5, 2048, "device memory, GB"},
        {"memory_bw_gbs", &S::memory_bw_gbs, 10, 50000, "device memory bandwidth, GB/s"},
        {"fp16_fp32acc_tflops", &S::fp16_fp32acc_tflops, 0.01, 100000,
         "FP16/BF16 tensor TFLOP/s, FP32 accumulate"},
        {"fp16_fp16acc_tflops", &S::fp16_fp16acc_tflops, 0.01, 100000,
         "FP16 tensor TFLOP/s, FP16 accumulate"},
        {"fp32_tflops", &S::fp32_tflops, 0.01, 10000, "FP32 TFLOP/s"},
        {"pcie_gen", &S::pcie_gen, 1, 6, "PCIe generation"},
        {"pcie_width", &S::pcie_width, 1, 16, "PCIe lanes"},
        {"nvlink_gen", &S::nvlink_gen, 0, 6, "NVLink generation, 0 for none"},
        {"nvlink_links", &S::nvlink_links, 0, 18, "NVLink links per GPU"},
        {"nvlink_link_gbs", &S::nvlink_link_gbs, 0, 200, "GB/s per NVLink link per direction"},
        {"nvlink_bridge", &S::nvlink_bridge},
        {"p2p_stock", &S::p2p_stock},
        {"p2p_patchable", &S::p2p_patchable},
        {"sm", &S::sm, 0, 200, "CUDA compute capability x10, 0 for AMD"},
        {"tdp_w", &S::tdp_w, 1, 5000, "board power, W"},
        {"used_price_usd", &S::used_price_usd, 0, 1e6, "used price, USD (0: unknown)"},
        {"sm_count", &S::sm_count, 1, 2000, "streaming multiprocessors (AMD: compute units)"},
        {"tf32_tflops", &S::tf32_tflops, 0, 100000, "TF32 tensor TFLOP/s, 0 for none"},
        {"fp8_tflops", &S::fp8_tflops, 0, 100000, "FP8 tensor TFLOP/s, 0 for none"},
        {"xgmi_links", &S::xgmi_links, 0, 16, "AMD Infinity Fabric (xGMI) links to other GPUs", "0"},
        {"xgmi_link_gbs", &S::xgmi_link_gbs, 0, 500, "GB/s per xGMI link per direction", "0"},
        {"power_transients", &S::power_transients, 0, 0, "whose measured load transients apply",
         "cem5-envelope"},
        {"source", &S::source},
    };
    return f;
  }
  /// Rules between values; "" when the part is consistent.
  static std::string inconsistency(const GpuSpec& g) {
    const int w = g.pcie_width;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
      return "\"pcie_width\" must be a PCIe link width (1, 2, 4, 8 or 16), got " + std::to_string(w);
    if (g.fp16_fp32acc_tflops > g.fp16_fp16acc_tflops)
      return "\"fp16_fp32acc_tflops\" exceeds \"fp16_fp16acc_tflops\": FP32 accumulate is never faster";
    const bool nvlink = g.nvlink_gen > 0;
    if ((g.nvlink_links > 0) != nvlink || (g.nvlink_link_gbs > 0) != nvlink)
      return "NVLink fields disagree: \"nvlink_gen\", \"nvlink_links\" and \"nvlink_link_gbs\" are all 0 "
             "(no NVLink) or all positive";
    if (g.nvlink_bridge && !nvlink) return "\"nvlink_bridge\" is true but the card has no NVLink";
    if ((g.xgmi_links > 0) != (g.xgmi_link_gbs > 0))
      return "xGMI fields disagree: \"xgmi_links\" and \"xgmi_link_gbs\" are both 0 or both positive";
    if (g.vendor != Vendor::Amd && g.xgmi_links > 0) return "xGMI (Infinity Fabric) GPU links are AMD's";
    if (g.vendor == Vendor::Amd && (g.sm != 0 || nvlink))
      return "an AMD GPU has no CUDA compute capability (\"sm\": 0) and no NVLink";
    if (g.vendor == Vendor::Nvidia && g.sm < 30)
      return "\"sm\" of an NVIDIA GPU is its compute capability x10 (>= 30)";
    return "";
  }
};

template <>
struct Schema<CpuSpec> {
  static constexpr std::string_view kind = "cpus";
  static constexpr std::string_view what = "CPU";
  static const std::vector<Field<CpuSpec>>& fields() {
    using S = CpuSpec;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"vendor", &S::vendor},
        {"pcie_gen", &S::pcie_gen, 1, 6, "PCIe generation"},
        {"pcie_lanes", &S::pcie_lanes, 4, 512, "PCIe lanes per socket"},
        {"memory_channels", &S::memory_channels, 1, 32, "DRAM channels per socket"},
        {"memory_bw_gbs", &S::memory_bw_gbs, 1, 5000, "DRAM bandwidth per socket, GB/s"},
        {"root_port_per_x16", &S::root_port_per_x16},
        {"inter_socket", &S::inter_socket},
        {"inter_socket_links", &S::inter_socket_links, 0, 8, "socket-to-socket links in a 2P system"},
        {"inter_socket_link_gbs", &S::inter_socket_link_gbs, 0, 500, "GB/s per socket link per direction"},
        {"inter_socket_effective_gbs", &S::inter_socket_effective_gbs, 0, 500,
         "NCCL's effective GB/s across sockets"},
        {"inter_socket_flow_gbs", &S::inter_socket_flow_gbs, 0, 500,
         "GB/s one transfer moves across the socket links (0: no limit)", "0"},
        {"p2p_across_sockets", &S::p2p_across_sockets},
        {"cpuid_family", &S::cpuid_family, 0, 255, "CPUID family"},
        {"cpuid_model", &S::cpuid_model, 0, 255, "CPUID model"},
        {"tdp_w", &S::tdp_w, 1, 1000, "TDP, W"},
        {"numa_domains", &S::numa_domains, 1, 16, "memory domains per socket (I/O-die quadrants or dies)",
         "1"},
        {"source", &S::source},
    };
    return f;
  }
  static std::string inconsistency(const CpuSpec& c) {
    const bool single = c.inter_socket == InterSocketKind::None;
    if (single && (c.inter_socket_links != 0 || c.inter_socket_link_gbs != 0 ||
                   c.inter_socket_effective_gbs != 0 || c.inter_socket_flow_gbs != 0 || c.p2p_across_sockets))
      return "\"inter_socket\" is \"none\" (a single-socket part) but inter-socket values are given";
    const int d = c.numa_domains;
    if (d != 1 && d != 2 && d != 4 && d != 8)
      return "\"numa_domains\" must be 1, 2, 4 or 8 (memory domains per socket), got " + std::to_string(d);
    if (!single &&
        (c.inter_socket_links == 0 || c.inter_socket_link_gbs <= 0 || c.inter_socket_effective_gbs <= 0))
      return "a multi-socket part needs \"inter_socket_links\", \"inter_socket_link_gbs\" and "
             "\"inter_socket_effective_gbs\"";
    return "";
  }
};

template <>
struct Schema<ChipsetSpec> {
  static constexpr std::string_view kind = "chipsets";
  static constexpr std::string_view what = "chipset";
  static const std::vector<Field<ChipsetSpec>>& fields() {
    using S = ChipsetSpec;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"uplink_gen", &S::uplink_gen, 1, 6, "PCIe generation of the uplink"},
        {"uplink_width", &S::uplink_width, 1, 16, "uplink lanes"},
        {"downstream_gen", &S::downstream_gen, 1, 6, "PCIe generation of the lanes it provides"},
        {"downstream_lanes", &S::downstream_lanes, 1, 64, "lanes it provides"},
        {"source", &S::source},
    };
    return f;
  }
  static std::string inconsistency(const ChipsetSpec&) { return ""; }
};

template <>
struct Schema<SwitchSpec> {
  static constexpr std::string_view kind = "switches";
  static constexpr std::string_view what = "PCIe switch";
  static const std::vector<Field<SwitchSpec>>& fields() {
    using S = SwitchSpec;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"vendor", &S::vendor},
        {"gen", &S::gen, 1, 6, "PCIe generation"},
        {"lanes", &S::lanes, 4, 256, "lanes, upstream and downstream"},
        {"latency_ns", &S::latency_ns, 0, 10000, "port-to-port latency, ns"},
        {"p2p", &S::p2p},
        {"source", &S::source},
    };
    return f;
  }
  static std::string inconsistency(const SwitchSpec&) { return ""; }
};

template <>
struct Schema<NicSpec> {
  static constexpr std::string_view kind = "nics";
  static constexpr std::string_view what = "NIC";
  static const std::vector<Field<NicSpec>>& fields() {
    using S = NicSpec;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"vendor", &S::vendor},
        {"speed_gbps", &S::speed_gbps, 0.1, 3200, "line rate per port, Gbit/s"},
        {"ports", &S::ports, 1, 8, "ports"},
        {"pcie_gen", &S::pcie_gen, 1, 6, "PCIe generation"},
        {"pcie_width", &S::pcie_width, 1, 32, "PCIe lanes"},
        {"gpudirect_rdma", &S::gpudirect_rdma},
        {"source", &S::source},
    };
    return f;
  }
  static std::string inconsistency(const NicSpec&) { return ""; }
};

template <>
struct Schema<NvSwitchSpec> {
  static constexpr std::string_view kind = "nvswitches";
  static constexpr std::string_view what = "NVSwitch";
  static const std::vector<Field<NvSwitchSpec>>& fields() {
    using S = NvSwitchSpec;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"nvlink_gen", &S::nvlink_gen, 1, 6, "NVLink generation"},
        {"ports", &S::ports, 1, 256, "NVLink ports per chip"},
        {"link_gbs", &S::link_gbs, 1, 200, "GB/s per link per direction"},
        {"source", &S::source},
    };
    return f;
  }
  static std::string inconsistency(const NvSwitchSpec&) { return ""; }
};

template <>
struct Schema<RiserPart> {
  static constexpr std::string_view kind = "risers";
  static constexpr std::string_view what = "riser";
  static const std::vector<Field<RiserPart>>& fields() {
    using S = RiserPart;
    static const std::vector<Field<S>> f{
        {"name", &S::name},
        {"gen", &S::gen, 1, 6, "highest PCIe generation it carries"},
        {"width", &S::width, 1, 16, "lanes it carries"},
        {"retimed", &S::retimed},
        {"source", &S::source},
    };
    return f;
  }
  static std::string inconsistency(const RiserPart& r) {
    const int w = r.width;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
      return "\"width\" must be a PCIe link width (1, 2, 4, 8 or 16), got " + std::to_string(w);
    return "";
  }
};

inline constexpr Vendor kVendors[] = {Vendor::Nvidia,    Vendor::Amd,      Vendor::Intel, Vendor::Broadcom,
                                      Vendor::Microchip, Vendor::Mellanox, Vendor::Other};
inline constexpr InterSocketKind kInterSocketKinds[] = {InterSocketKind::None, InterSocketKind::Qpi,
                                                        InterSocketKind::Upi, InterSocketKind::Xgmi};
inline constexpr PowerTransients kPowerTransients[] = {
    PowerTransients::Cem5Envelope, PowerTransients::GeforceAmpere, PowerTransients::Geforce3090Ti,
    PowerTransients::GeforceAda, PowerTransients::GeforceBlackwell};

// Keys are lowercase words of [a-z0-9] joined by single hyphens.
inline bool is_part_key(std::string_view key) {
  if (key.empty() || key.size() > 64 || key.front() == '-' || key.back() == '-') return false;
  char previous = '\0';
  for (const char c : key) {
    const bool ok = std::islower(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || (c == '-' && previous != '-');
    if (!ok) return false;
    previous = c;
  }
  return true;
}

/// Calls f(Spec{}) once per kind, in part_kinds() order, with a value whose type names the kind.
template <typename F>
void for_each_kind(F&& f) {
  f(GpuSpec{});
  f(CpuSpec{});
  f(ChipsetSpec{});
  f(SwitchSpec{});
  f(NicSpec{});
  f(NvSwitchSpec{});
  f(RiserPart{});
}

template <typename Spec>
nlohmann::json to_json(const Spec& s) {
  nlohmann::json out = nlohmann::json::object();
  out["key"] = s.key;
  for (const Field<Spec>& field : Schema<Spec>::fields()) {
    const std::string name(field.name);
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(s.*member)>;
          if constexpr (std::is_enum_v<T>)
            out[name] = to_string(s.*member);
          else
            out[name] = s.*member;
        },
        field.member);
  }
  return out;
}

}  // namespace rigsim::topology::catalog_schema
