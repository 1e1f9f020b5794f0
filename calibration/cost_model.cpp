// The strict JSON profile reader/writer of the CostModel, and the lookups by generation and GPU; the
// built-in defaults with their sources are in cost_model_defaults.cpp.
#include "calibration/cost_model.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "common/input.hpp"

namespace rigsim::calibration {
namespace {

/// A factor in (0, 1] and the CostModel member it sets; the JSON key is the member's name.
struct FactorKey {
  const char* key;
  double CostModel::*field;
};

/// A duration (JSON: a string such as "1.1us") and the CostModel member it sets.
struct DurationKey {
  const char* key;
  Seconds CostModel::*field;
};

constexpr FactorKey kFactors[] = {
    {"pcie_efficiency", &CostModel::pcie_efficiency},
    {"pcie_efficiency_sm90", &CostModel::pcie_efficiency_sm90},
    {"nvlink_efficiency", &CostModel::nvlink_efficiency},
    {"inter_socket_efficiency", &CostModel::inter_socket_efficiency},
    {"qpi_efficiency", &CostModel::qpi_efficiency},
    {"upi_efficiency", &CostModel::upi_efficiency},
    {"xgmi_efficiency", &CostModel::xgmi_efficiency},
    {"chipset_efficiency", &CostModel::chipset_efficiency},
    {"memory_efficiency", &CostModel::memory_efficiency},
    {"network_efficiency", &CostModel::network_efficiency},
    {"gpu_memory_efficiency", &CostModel::gpu_memory_efficiency},
    {"pcie_duplex_efficiency", &CostModel::pcie_duplex_efficiency},
    {"gemm_efficiency", &CostModel::gemm_efficiency},
    {"gemm_fp8_efficiency", &CostModel::gemm_fp8_efficiency},
    {"attention_efficiency", &CostModel::attention_efficiency},
    {"tensor_clock_ratio", &CostModel::tensor_clock_ratio},
    {"tensor_clock_ratio_half_rate", &CostModel::tensor_clock_ratio_half_rate},
    {"nccl_ll128_bw_ratio", &CostModel::nccl_ll128_bw_ratio},
    {"nccl_tree_bw_ratio", &CostModel::nccl_tree_bw_ratio},
};

/// A per-architecture row of rates in GB/s (JSON: an array of 4 positive numbers) and its member.
struct ArchRatesKey {
  const char* key;
  std::array<double, 4> CostModel::*field;
};

constexpr ArchRatesKey kArchRates[] = {
    {"nccl_ll128_channel_bw_gbs", &CostModel::nccl_ll128_channel_bw_gbs},
};

/// Per-architecture rates in GB/s where 0 means "no figure for that architecture".
constexpr ArchRatesKey kArchRatesOrNone[] = {
    {"nccl_block_gbs", &CostModel::nccl_block_gbs},
};

/// Per-architecture factors in [0, 1] (0: the architecture lacks the feature).
constexpr ArchRatesKey kArchFactors[] = {
    {"nccl_nvls_efficiency", &CostModel::nccl_nvls_efficiency},
};

/// A per-architecture, per-node-count table of rates in GB/s (JSON: 4 rows of 3 positive numbers: Volta,
/// Ampere, Hopper, Blackwell x 1, 2, more nodes) and its member.
struct NodeTableKey {
  const char* key;
  std::array<std::array<double, 3>, 4> CostModel::*field;
  bool zero_is_none = false;  // 0 means "the algorithm has no figure there" (NVLS_TREE on one node)
};
constexpr NodeTableKey kNodeTables[] = {
    {"nccl_ll_max_bw_gbs", &CostModel::nccl_ll_max_bw_gbs},
    {"nccl_tree_channel_bw_gbs", &CostModel::nccl_tree_channel_bw_gbs},
    {"nccl_tree_ll128_channel_bw_gbs", &CostModel::nccl_tree_ll128_channel_bw_gbs},
    {"nccl_nvls_tree_channel_bw_gbs", &CostModel::nccl_nvls_tree_channel_bw_gbs, true},
};
/// Factors that are overrides: 0 (the default) means "not set", and to_json leaves them out.
bool is_override(const char* key) {
  const std::string k = key;
  return k == "nvlink_efficiency" || k == "inter_socket_efficiency";
}

/// A per-NVLink-generation row of factors (JSON: an array of 5 numbers in (0, 1]) and its member.
struct GenFactorsKey {
  const char* key;
  std::array<double, 5> CostModel::*field;
};

constexpr GenFactorsKey kGenFactors[] = {
    {"nvlink_sxm_efficiency", &CostModel::nvlink_sxm_efficiency},
    {"nvlink_bridge_efficiency", &CostModel::nvlink_bridge_efficiency},
};

/// A size (JSON: a string such as "1MiB") and the CostModel member it sets.
struct SizeKey {
  const char* key;
  Bytes CostModel::*field;
};

constexpr SizeKey kSizes[] = {
    {"staging_chunk_legacy", &CostModel::staging_chunk_legacy},
    {"staging_chunk", &CostModel::staging_chunk},
};

constexpr DurationKey kDurations[] = {
    {"staging_sync_latency", &CostModel::staging_sync_latency},
    {"pcie_hop_latency", &CostModel::pcie_hop_latency},
    {"switch_latency", &CostModel::switch_latency},
    {"nvlink_hop_latency", &CostModel::nvlink_hop_latency},
    {"inter_socket_latency", &CostModel::inter_socket_latency},
    {"p2p_latency", &CostModel::p2p_latency},
    {"p2p_write_latency", &CostModel::p2p_write_latency},
    {"shm_latency", &CostModel::shm_latency},
    {"net_latency", &CostModel::net_latency},
    {"host_copy_latency", &CostModel::host_copy_latency},
    {"nccl_base_latency", &CostModel::nccl_base_latency},
    {"nccl_nvls_latency", &CostModel::nccl_nvls_latency},
    {"nccl_launch_per_gpu", &CostModel::nccl_launch_per_gpu},
    {"nccl_step_latency_nvlink", &CostModel::nccl_step_latency_nvlink},
    {"nccl_step_latency_pcie", &CostModel::nccl_step_latency_pcie},
    {"nccl_step_latency_net", &CostModel::nccl_step_latency_net},
    {"nccl_ll_base_latency", &CostModel::nccl_ll_base_latency},
    {"nccl_ll_step_latency_nvlink", &CostModel::nccl_ll_step_latency_nvlink},
    {"nccl_ll_step_latency_pcie", &CostModel::nccl_ll_step_latency_pcie},
    {"nccl_ll_step_latency_net", &CostModel::nccl_ll_step_latency_net},
    {"nccl_ll128_base_latency", &CostModel::nccl_ll128_base_latency},
    {"nccl_ll128_step_latency_nvlink", &CostModel::nccl_ll128_step_latency_nvlink},
    {"nccl_ll128_step_latency_pcie", &CostModel::nccl_ll128_step_latency_pcie},
    {"nccl_ll128_step_latency_net", &CostModel::nccl_ll128_step_latency_net},
    {"nccl_tree_base_latency", &CostModel::nccl_tree_base_latency},
    {"nccl_tree_step_latency_nvlink", &CostModel::nccl_tree_step_latency_nvlink},
    {"nccl_tree_step_latency_pcie", &CostModel::nccl_tree_step_latency_pcie},
    {"nccl_tree_step_latency_net", &CostModel::nccl_tree_step_latency_net},
    {"nccl_tree_ll_base_latency", &CostModel::nccl_tree_ll_base_latency},
    {"nccl_tree_ll_step_latency_nvlink", &CostModel::nccl_tree_ll_step_latency_nvlink},
    {"nccl_tree_ll_step_latency_pcie", &CostModel::nccl_tree_ll_step_latency_pcie},
    {"nccl_tree_ll_step_latency_net", &CostModel::nccl_tree_ll_step_latency_net},
    {"nccl_tree_ll128_base_latency", &CostModel::nccl_tree_ll128_base_latency},
    {"nccl_tree_ll128_step_latency_nvlink", &CostModel::nccl_tree_ll128_step_latency_nvlink},
    {"nccl_tree_ll128_step_latency_pcie", &CostModel::nccl_tree_ll128_step_latency_pcie},
    {"nccl_tree_ll128_step_latency_net", &CostModel::nccl_tree_ll128_step_latency_net},
};

double read_factor(ObjectReader& r, const char* key, double value) {
  const auto v = r.optional_number(key);
  if (!v) return value;
  if (!(*v > 0.0 && *v <= 1.0)) r.fail(key, "expected a factor in (0, 1], got " + std::to_string(*v));
  return *v;
}

Seconds read_duration(ObjectReader& r, const char* key, Seconds value) {
  const auto text = r.optional_string(key);
  if (!text) return value;
  Seconds s;
  try {
    s = parse_duration(*text);
  } catch (const std::invalid_argument& e) {
    r.fail(key, e.what());
  }
  if (!(s.value >= 0.0) || !std::isfinite(s.value)) r.fail(key, "expected a non-negative duration");
  return s;
}

/// "1.1us": microseconds with up to 6 significant digits, which parse_duration reads back exactly.
std::string format_us(Seconds s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6gus", s.us());
  return buf;
}

Bytes read_size(ObjectReader& r, const char* key, Bytes value) {
  const auto text = r.optional_string(key);
  if (!text) return value;
  Bytes b;
  try {
    b = parse_bytes(*text);
  } catch (const std::invalid_argument& e) {
    r.fail(key, e.what());
  }
  // 0 means "no pipelining" (the whole copy is one chunk); anything else is a real chunk size.
  if (!(b.value == 0.0 || b.value >= 1.0) || !std::isfinite(b.value))
    r.fail(key, "expected 0 (no pipelining) or a size of at least 1 byte");
  return b;
}

std::array<double, 5> read_gen_factors(ObjectReader& r, const char* key, std::array<double, 5> value) {
  const nlohmann::json* a = r.optional_array(key);
  if (!a) return value;
  if (a->size() != 5) r.fail(key, "expected 5 factors in (0, 1], one per NVLink generation 1-5");
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& f = (*a)[i];
    if (!f.is_number() || !(f.get<double>() > 0 && f.get<double>() <= 1))
      r.fail(key, "expected factors in (0, 1], element " + std::to_string(i) + " is not");
    value[i] = f.get<double>();
  }
  return value;
}

/// What the elements of a per-architecture row may be.
enum class PerArch { Rates, RatesOrNone, Factors };

/// A per-architecture row (Volta, Ampere, Hopper, Blackwell): rates in GB/s (each > 0; with
/// RatesOrNone 0 too, "no figure") or factors in [0, 1] (0: the architecture lacks the feature).
std::array<double, 4> read_per_arch(ObjectReader& r, const char* key, std::array<double, 4> value,
                                    PerArch kind) {
  const nlohmann::json* a = r.optional_array(key);
  if (!a) return value;
  const std::string what = kind == PerArch::Factors       ? "factors in [0, 1]"
                           : kind == PerArch::RatesOrNone ? "rates in GB/s, positive or 0 (none)"
                                                          : "positive rates in GB/s";
  if (a->size() != 4) r.fail(key, "expected 4 " + what + " (Volta, Ampere, Hopper, Blackwell)");
  for (std::size_t i = 0; i < 4; ++i) {
    const double v = (*a)[i].is_number() ? (*a)[i].get<double>() : -1;
    const bool ok = kind == PerArch::Factors       ? v >= 0 && v <= 1
                    : kind == PerArch::RatesOrNone ? v >= 0 && std::isfinite(v)
                                                   : v > 0 && std::isfinite(v);
    if (!ok) r.fail(key, "expected " + what + ", element " + std::to_string(i) + " is not");
    value[i] = v;
  }
  return value;
}

std::array<std::array<double, 3>, 4> read_node_table(ObjectReader& r, const char* key,
                                                     std::array<std::array<double, 3>, 4> value,
                                                     bool zero_is_none) {
  const nlohmann::json* a = r.optional_array(key);
  if (!a) return value;
  if (a->size() != 4) r.fail(key, "expected 4 rows (Volta, Ampere, Hopper, Blackwell) of 3 rates in GB/s");
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& row = (*a)[i];
    if (!row.is_array() || row.size() != 3)
      r.fail(key, "row " + std::to_string(i) + ": expected 3 rates (1, 2, more nodes)");
    for (std::size_t j = 0; j < 3; ++j) {
      if (!row[j].is_number() || !(row[j].get<double>() > 0 || (zero_is_none && row[j].get<double>() == 0)))
        r.fail(key, "row " + std::to_string(i) +
                        (zero_is_none ? ": expected rates in GB/s, positive or 0 (none)"
                                      : ": expected positive rates in GB/s"));
      value[i][j] = row[j].get<double>();
    }
  }
  return value;
}

}  // namespace

double nvlink_efficiency_of(const CostModel& m, int gen, bool bridge) {
  if (m.nvlink_efficiency > 0) return m.nvlink_efficiency;
  if (gen < 1 || gen > 5) throw std::out_of_range("NVLink generation " + std::to_string(gen) + " is not 1-5");
  const auto& row = bridge ? m.nvlink_bridge_efficiency : m.nvlink_sxm_efficiency;
  return row[static_cast<std::size_t>(gen - 1)];
}

P2pWriteLatency p2p_write_latency_basis(const CostModel& m, int sm, int nvlink_gen) {
  if (m.p2p_write_latency.value > 0) return {m.p2p_write_latency, "the profile's p2p_write_latency"};
  // The sample's time per back-to-back 4-byte copy-engine copy (DECISIONS "A peer copy's latency over
  // NVLink"). Over NVLink the NVLink generation's measured median: V100 on DGX-2's NVSwitch 2.36-2.97,
  // median 2.6 (wohlbier/gpu-micro); A100 on HGX 3.30-3.42 (data/p2p distserve-issue3; YanBC/nvmlc
  // 2.72-3.33). No trend with generation; NVLink 1, 4 and 5 (no matrix outside the dev cases): the mean.
  const std::string nvl = "a copy engine's time per copy over NVLink " + std::to_string(nvlink_gen);
  const Seconds nvlink2 = microseconds(2.6), nvlink3 = microseconds(3.35);
  if (nvlink_gen == 2) return {nvlink2, nvl + ", measured (V100 on DGX-2's NVSwitch)"};
  if (nvlink_gen == 3) return {nvlink3, nvl + ", measured (A100 on HGX NVSwitch)"};
  if (nvlink_gen > 0)
    return {Seconds{(nvlink2.value + nvlink3.value) / 2},
            nvl + ": no published matrix found, the mean of the measured NVLink 2 and 3"};
  // Over PCIe the GPU generation's issue time, the same for every pair (RTX PRO 6000 0.45-0.53 us behind
  // one switch and across the CPU alike, voipmonitor/rtx6kpro wrx90-cpayne-2switch-flat.md; RTX 6000 Ada
  // 1.21-1.34, stelline ESC8000A, and 1.12-1.14, Puget WRX90); none from a dev case.
  const std::string pcie = "a copy engine's time per copy over PCIe (posted writes: the GPU's issue time)";
  if (sm == 89) return {microseconds(1.25), pcie + ", measured on Ada"};
  if (sm >= 100) return {microseconds(0.49), pcie + ", measured on Blackwell"};
  return {Seconds{m.p2p_latency.value + 2 * m.pcie_hop_latency.value},
          pcie + ": no figure for this generation, p2p_latency plus two PCIe hops"};
}

Seconds p2p_write_latency_of(const CostModel& m, int sm, int nvlink_gen) {
  return p2p_write_latency_basis(m, sm, nvlink_gen).value;
}

double inter_socket_efficiency_of(const CostModel& m, topology::InterSocketKind k) {
  if (k == topology::InterSocketKind::None)
    throw std::invalid_argument("a single-socket part has no socket-to-socket link");
  if (m.inter_socket_efficiency > 0) return m.inter_socket_efficiency;
  switch (k) {
    case topology::InterSocketKind::Qpi:
      return m.qpi_efficiency;
    case topology::InterSocketKind::Upi:
      return m.upi_efficiency;
    case topology::InterSocketKind::Xgmi:
      return m.xgmi_efficiency;
    case topology::InterSocketKind::None:
      break;
  }
  throw std::invalid_argument("a single-socket part has no socket-to-socket link");
}

Bytes staging_chunk_of(const CostModel& m, const topology::GpuSpec& a, const topology::GpuSpec& b) {
  return staging_overlaps(a, b) ? m.staging_chunk : m.staging_chunk_legacy;
}

bool staging_overlaps(const topology::GpuSpec& a, const topology::GpuSpec& b) {
  // GeForce Turing and Ampere take turns on current drivers; every other product line found overlaps,
  // Pascal, Volta and datacenter Ampere included (set_staging_defaults has the runs).
  const auto turns = [](const topology::GpuSpec& g) { return g.geforce && g.sm >= 75 && g.sm < 89; };
  return !turns(a) && !turns(b);
}

CostModel apply_overrides(CostModel base, const nlohmann::json& doc, const std::string& file) {
  ObjectReader r(doc, file, "");
  r.allow("$comment");
  // A fitted profile (rigsim calibrate) says what it is and how it was fitted; both are for people.
  if (const auto schema = r.optional_string("schema"); schema && *schema != kProfileSchema)
    r.fail("schema", "expected \"" + std::string(kProfileSchema) + "\", got \"" + *schema + "\"");
  r.optional_object("rig");
  r.optional_object("fit");
  for (const auto& f : kFactors) base.*f.field = read_factor(r, f.key, base.*f.field);
  for (const auto& d : kDurations) base.*d.field = read_duration(r, d.key, base.*d.field);
  for (const auto& a : kArchRates) base.*a.field = read_per_arch(r, a.key, base.*a.field, PerArch::Rates);
  for (const auto& a : kArchRatesOrNone)
    base.*a.field = read_per_arch(r, a.key, base.*a.field, PerArch::RatesOrNone);
  for (const auto& a : kArchFactors) base.*a.field = read_per_arch(r, a.key, base.*a.field, PerArch::Factors);
  for (const auto& g : kGenFactors) base.*g.field = read_gen_factors(r, g.key, base.*g.field);
  for (const auto& z : kSizes) base.*z.field = read_size(r, z.key, base.*z.field);
  for (const auto& t : kNodeTables) base.*t.field = read_node_table(r, t.key, base.*t.field, t.zero_is_none);
  const auto source = r.optional_string("source");
  r.finish();
  base.source = source ? *source + " (" + file + ")" : file;
  return base;
}

CostModel load_cost_model(const std::string& path) {
  return apply_overrides(default_cost_model(), load_json_file(path), path);
}

nlohmann::json to_json(const CostModel& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : kFactors)
    if (!is_override(f.key) || m.*f.field > 0) out[f.key] = m.*f.field;
  for (const auto& d : kDurations) out[d.key] = format_us(m.*d.field);
  for (const auto& a : kArchRates) out[a.key] = m.*a.field;
  for (const auto& a : kArchRatesOrNone) out[a.key] = m.*a.field;
  for (const auto& a : kArchFactors) out[a.key] = m.*a.field;
  for (const auto& g : kGenFactors) out[g.key] = m.*g.field;
  for (const auto& z : kSizes)
    out[z.key] = std::to_string(static_cast<long long>(std::llround((m.*z.field).value))) + "B";
  for (const auto& t : kNodeTables) out[t.key] = m.*t.field;
  out["source"] = m.source;
  return out;
}

std::optional<double> scalar_of(const CostModel& m, std::string_view key) {
  for (const auto& f : kFactors)
    if (key == f.key) return m.*f.field;
  for (const auto& d : kDurations)
    if (key == d.key) return (m.*d.field).value;
  return std::nullopt;
}

void set_scalar(CostModel& m, std::string_view key, double value) {
  for (const auto& f : kFactors)
    if (key == f.key) {
      m.*f.field = value;
      return;
    }
  for (const auto& d : kDurations)
    if (key == d.key) {
      m.*d.field = Seconds{value};
      return;
    }
  throw std::invalid_argument("no cost-model factor or duration named \"" + std::string(key) + "\"");
}

bool is_duration_key(std::string_view key) {
  for (const auto& d : kDurations)
    if (key == d.key) return true;
  return false;
}

}  // namespace rigsim::calibration
