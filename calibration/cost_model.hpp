// The CostModel: every efficiency factor and latency the simulator applies on top of the topology's
// wire rates. Built-in defaults cite their sources; a JSON profile can override any of them
// (strict keys, JSON pointers in errors). Only depends on topology/.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/units.hpp"
#include "topology/catalog.hpp"
#include "topology/topology.hpp"

namespace rigsim::calibration {

struct CostModel {
  // --- bandwidth efficiency: achievable / wire rate, per link class (0..1] ---
  double pcie_efficiency = 0;          // large DMA copies over PCIe
  double pcie_efficiency_sm90 = 0;     // the same on PCIe links that only Hopper / Blackwell GPUs use
  double nvlink_efficiency = 0;        // 0: per generation and form (below); > 0: every NVLink (profiles)
  double inter_socket_efficiency = 0;  // 0: per link kind (below); > 0: every socket link (profiles)
  double qpi_efficiency = 0;           // Intel QPI socket link: payload / wire (links x per-link rate)
  double upi_efficiency = 0;           // Intel UPI socket link: payload / wire
  double xgmi_efficiency = 0;          // AMD xGMI socket link: payload / wire
  double chipset_efficiency = 0;       // DMI / chipset uplink
  double memory_efficiency = 0;        // host DRAM achievable / theoretical
  double network_efficiency = 0;       // NIC line rate -> payload
  double gpu_memory_efficiency = 0;    // device-local copy: achieved / catalog memory bandwidth
  double pcie_duplex_efficiency = 0;   // PCIe link carrying host DMA both ways: total / (2 x wire rate)
  // NVLink payload / wire per NVLink generation (index 0 = NVLink 1 ... 4 = NVLink 5), for GPUs on an
  // SXM board (mesh or NVSwitch) and for PCIe cards joined by a bridge; replaces one nvlink_efficiency.
  std::array<double, 5> nvlink_sxm_efficiency{};
  std::array<double, 5> nvlink_bridge_efficiency{};

  // --- the driver's host staging of a copy between GPUs without peer access (cudaMemcpyPeer) ---
  Seconds staging_sync_latency;  // per chunk: the host waits for the D2H of a chunk before its H2D
  Bytes staging_chunk_legacy;    // staging chunk of the driver's turn-taking path (Ampere and older)
  Bytes staging_chunk;           // the same for Ada, Hopper, Blackwell and newer (SM 8.9 and up)

  // --- compute: achieved / catalog peak, used by calibration/compute (0..1] ---
  double gemm_efficiency = 0;               // cuBLAS, large GEMM, at its running clock, before tiles/k
  double gemm_fp8_efficiency = 0;           // an FP8 GEMM relative to the same GEMM in BF16
  double attention_efficiency = 0;          // fused (flash) attention, of the catalog tensor peak
  double tensor_clock_ratio = 0;            // sustained / rated clock, dense tensor math at the power limit
  double tensor_clock_ratio_half_rate = 0;  // the same for GeForce doing FP32-accumulate math at half rate

  // --- latencies ---
  Seconds pcie_hop_latency;      // per PCIe link crossed
  Seconds switch_latency;        // per PCIe switch crossed (catalog value wins when present)
  Seconds nvlink_hop_latency;    // per NVLink crossed
  Seconds inter_socket_latency;  // QPI/UPI/xGMI crossing
  Seconds p2p_latency;           // fixed per transfer, P2P transport
  // What p2pBandwidthLatencyTest reports as P2P=Enabled latency: the time per copy of back-to-back
  // 4-byte copy-engine copies to the peer; over PCIe the GPU's issue time (posted writes), over NVLink
  // the NVLink generation's figure. 0: per generation (p2p_write_latency_of); > 0: every GPU (profiles).
  Seconds p2p_write_latency;
  Seconds shm_latency;        // fixed per transfer, host-staged (SHM) transport
  Seconds net_latency;        // fixed per transfer, network transport
  Seconds host_copy_latency;  // cudaMemcpy launch + DMA setup

  // --- NCCL-like per-step latencies (Simple protocol), reference nccl.md §d.5 ---
  Seconds nccl_base_latency;         // per collective call
  Seconds nccl_step_latency_nvlink;  // per ring step when the ring is on NVLink
  Seconds nccl_step_latency_pcie;    // per ring step on PCIe / SHM
  Seconds nccl_step_latency_net;     // per ring step crossing the network

  // --- the same for NCCL's LL and LL128 protocols (tuning.cc baseLat / hwLat, Ring row) ---
  Seconds nccl_ll_base_latency;
  Seconds nccl_ll_step_latency_nvlink;
  Seconds nccl_ll_step_latency_pcie;
  Seconds nccl_ll_step_latency_net;
  Seconds nccl_ll128_base_latency;
  Seconds nccl_ll128_step_latency_nvlink;
  Seconds nccl_ll128_step_latency_pcie;
  Seconds nccl_ll128_step_latency_net;

  // --- the same for NCCL's tree all_reduce across servers (tuning.cc baseLat / hwLat, Tree row) ---
  Seconds nccl_tree_base_latency;  // Simple
  Seconds nccl_tree_step_latency_nvlink;
  Seconds nccl_tree_step_latency_pcie;
  Seconds nccl_tree_step_latency_net;
  Seconds nccl_tree_ll_base_latency;
  Seconds nccl_tree_ll_step_latency_nvlink;
  Seconds nccl_tree_ll_step_latency_pcie;
  Seconds nccl_tree_ll_step_latency_net;
  Seconds nccl_tree_ll128_base_latency;
  Seconds nccl_tree_ll128_step_latency_nvlink;
  Seconds nccl_tree_ll128_step_latency_pcie;
  Seconds nccl_tree_ll128_step_latency_net;

  // --- NCCL's tuning-model bandwidth constants (tuning.cc, nccl.md §d.4-§d.5), per GPU architecture
  //     row: Volta and older, Ampere, Hopper, Blackwell; GB/s ---
  std::array<std::array<double, 3>, 4> nccl_ll_max_bw_gbs{};  // llMaxBws[arch][1 node, 2 nodes, more]
  std::array<double, 4> nccl_ll128_channel_bw_gbs{};          // perChMaxRingLL128Bws: LL128 cap per channel
  std::array<std::array<double, 3>, 4> nccl_tree_channel_bw_gbs{};        // perChMaxTreeBws (Simple)
  std::array<std::array<double, 3>, 4> nccl_tree_ll128_channel_bw_gbs{};  // perChMaxTreeLL128Bws
  std::array<std::array<double, 3>, 4> nccl_nvls_tree_channel_bw_gbs{};   // perChMaxNVLSTreeBws (2.28 on)
  /// NVLS (NVLink SHARP: the NVSwitch reduces and multicasts): NCCL's nvlsEfficiency per architecture
  /// (0 = no NVLS) and the NVLS latency term (hwLat[NVLINK][NVLS][Simple]; its base latency is 0).
  std::array<double, 4> nccl_nvls_efficiency{};
  Seconds nccl_nvls_latency;
  /// What one NCCL channel's thread block moves with the Simple protocol, measured, per architecture row
  /// (GB/s; 0: no measured figure, a block carries NCCL's share of the links instead). The channels NCCL
  /// runs times this bounds a ring, chain or send over P2P (NVLink or PCIe) within one server.
  std::array<double, 4> nccl_block_gbs{};
  double nccl_ll128_bw_ratio = 0;  // LL128 bus bandwidth / Simple's (0.92 of it)
  double nccl_tree_bw_ratio = 0;   // tree all_reduce bus bandwidth / the link rate (0.92 of it)
  /// Host time one thread spends per GPU to enqueue and launch a collective: nccl-tests run as one
  /// process (-g N) launches its N GPUs' kernels in turn every iteration, so an iteration takes at
  /// least N x this (model/bench.hpp, BenchOptions::gpus_per_thread). Depends on the CPU.
  Seconds nccl_launch_per_gpu;

  std::string source;  // "built-in defaults" or the profile file
};

/// Payload / wire of an NVLink of generation `gen` (1-5) on an SXM board or a bridge: the profile's
/// nvlink_efficiency when it sets one, else the per-generation table. Throws std::out_of_range for a
/// generation outside 1..5.
double nvlink_efficiency_of(const CostModel& m, int gen, bool bridge);
/// P2P=Enabled latency of p2pBandwidthLatencyTest between GPUs of compute capability `sm` (the
/// older GPU's) whose copies cross NVLink of generation `nvlink_gen` (0: over PCIe): the profile's
/// p2p_write_latency when it sets one; else over NVLink the measured figure of that NVLink generation
/// (the mean of the measured ones for the others); over PCIe the measured figure of that GPU
/// generation, else p2p_latency plus two PCIe hops (a root-port route, the rule before this one).
Seconds p2p_write_latency_of(const CostModel& m, int sm, int nvlink_gen);
/// p2p_write_latency_of's figure and where it comes from, for people (`rigsim p2p`'s why).
struct P2pWriteLatency {
  Seconds value;
  std::string basis;
};
P2pWriteLatency p2p_write_latency_basis(const CostModel& m, int sm, int nvlink_gen);
/// Payload / wire of a socket-to-socket link of kind `k`: inter_socket_efficiency when a profile sets
/// it, else qpi_ / upi_ / xgmi_efficiency. Throws std::invalid_argument for InterSocketKind::None.
double inter_socket_efficiency_of(const CostModel& m, topology::InterSocketKind k);
/// Whether the driver overlaps the D2H of one staging chunk with the H2D of the one before for a copy
/// between GPUs `a` and `b`: yes unless either is a GeForce Turing or Ampere card (SM 7.5, 8.6), whose
/// legs take turns through one buffer (DECISIONS "The staging rule by product line").
bool staging_overlaps(const topology::GpuSpec& a, const topology::GpuSpec& b);
/// The driver's staging chunk for a copy between GPUs `a` and `b`: staging_chunk where the legs
/// overlap, else staging_chunk_legacy.
Bytes staging_chunk_of(const CostModel& m, const topology::GpuSpec& a, const topology::GpuSpec& b);

/// Built-in defaults, each with its source in cost_model_defaults.cpp.
CostModel default_cost_model();

/// Reads a profile: any subset of the keys above (names as in JSON: e.g. "pcie_efficiency": 0.8,
/// "p2p_latency": "1.3us"); unknown keys are errors with a suggestion.
CostModel load_cost_model(const std::string& path);
CostModel apply_overrides(CostModel base, const nlohmann::json& doc, const std::string& file);
nlohmann::json to_json(const CostModel& m);

/// Schema of a profile written by `rigsim calibrate` (its "schema" key; hand-written profiles omit it).
inline constexpr std::string_view kProfileSchema = "rigsim-cost-model/1";

/// One scalar of the model by its JSON key: a factor, or a duration in seconds; nullopt for a key that
/// is neither (tables, sizes, unknown names).
std::optional<double> scalar_of(const CostModel& m, std::string_view key);
/// Sets a factor or a duration (seconds) by key; throws std::invalid_argument for any other key.
void set_scalar(CostModel& m, std::string_view key, double value);
/// Whether `key` names a duration (seconds) rather than a factor.
bool is_duration_key(std::string_view key);

}  // namespace rigsim::calibration
