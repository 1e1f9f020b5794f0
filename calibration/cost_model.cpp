// Built-in CostModel defaults (each with its source) and the strict JSON profile reader/writer.
// Sources are in ../shared/reference/hardware.md (§ numbers below), ../shared/reference/nccl.md and
// the captured tool output in ../shared/data/p2p/. "[D]" marks a value derived by the stated arithmetic.
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

void set_bandwidth_defaults(CostModel& m) {
  // Large pinned copies reach 0.77-0.86 of the PCIe wire rate (§2.1 protocol overhead, §2.2 and
  // data/p2p): Gen3 x16 (15.76 GB/s) H2D/D2H 12.15/12.89 (P100) and 12.2/13.2 (RTX 2080 Ti); Gen4 x16
  // (31.5 GB/s) 26.8/26.3 (RTX 6000 Ada), 25.13 (A100 nvbandwidth), 26.09 (DGX A100); P2P 26.33 (RTX
  // 6000 Ada) and 27.12 (3090 pair, dev-cases). [D] mean of these ten ratios = 0.82.
  m.pcie_efficiency = 0.82;
  // Links only Hopper / Blackwell use: these GPUs fill a link to about its TLP ceiling, at Gen4 and Gen5
  // alike; [D] 0.897, mean of nine runs outside the dev cases (docs/sources.md, DECISIONS "PCIe links").
  m.pcie_efficiency_sm90 = 0.90;
  // DMI and chipset uplinks are PCIe links electrically (§4.2); no separate measurement: as PCIe.
  m.chipset_efficiency = 0.82;
  // EPYC Rome/Milan 8 x DDR4-3200: 171.5 GB/s measured of 204.8 theoretical (§2.8): [D] 0.837.
  m.memory_efficiency = 0.84;
  // NCCL plans with NET_BW 12.0 GB/s for a 100 Gbit/s (12.5 GB/s) NIC (§2.4, nccl-topo): [D] 0.96.
  m.network_efficiency = 0.96;
  // p2pBandwidthLatencyTest diagonals (device-local copies, read + write counted) over the catalog's
  // memory bandwidth (data/p2p): RTX 6000 Ada 813.8/960 = 0.85, RTX 2080 Ti 541.8/616 = 0.88, A100 80GB
  // 1533/2039 = 0.75, RTX 5090 1517/1792 = 0.85: [D] mean 0.83.
  m.gpu_memory_efficiency = 0.83;
  // A PCIe link carrying host DMA in both directions at once loses per-direction throughput: the
  // H2D side is a DMA read whose read-request TLPs travel upstream with the D2H data, and ACK /
  // flow-control DLLPs of each direction ride on the other (§2.1, §7 "Simultaneous H2D+D2H can halve
  // H2D"). NVIDIA/nvbandwidth#53, 8x A100-SXM4 (Gen4 x16, 31.5 GB/s wire per direction),
  // host_to_device / device_to_host_bidirectional_memcpy_ce: H2D ~11 + D2H ~25 = 36 GB/s of 2 x 31.5
  // [D] 0.571 (one direction alone: 25 of 31.5 = 0.79); NVIDIA/nvbandwidth#11 (A100, same tests)
  // 12-13 + 24 = 36-37 of 63 = 0.57-0.59. Both directions of a PCIe or chipset link together carry at
  // most pcie_duplex_efficiency x 2 x wire; one direction alone (pcie_efficiency 0.82 < 2 x 0.57) is
  // unaffected.
  m.pcie_duplex_efficiency = 0.57;
}

void set_link_generation_defaults(CostModel& m) {
  // NVLink payload / wire per generation (rows NVLink 1..5). The NCCL maintainer: "Each NVLink has a
  // line rate of 25GB/s (in each direction) which converts to ~20GB/s effective bandwidth with a 128B
  // payload size" (NVIDIA/nccl-tests#149; A100 SXM4 all_reduce reaches ~230 of 300 GB/s): 0.8 for the
  // 25 GB/s-per-link generations NVLink 2-4 on SXM boards. NCCL's per-architecture constants, set from
  // its own measurements (nccl-topo §2.4: SM60 18.0 of NVLink1's 20, SM90 20.6 of 25, SM100 40.1 of
  // NVLink5's 50 GB/s): [D] 0.90, 0.824, 0.802.
  m.nvlink_sxm_efficiency = {0.90, 0.80, 0.80, 0.824, 0.802};
  // Bridged PCIe cards. GA102 (RTX 3090, A5000/A6000, A40) has four x4 links of 14.0625 GB/s; NCCL
  // plans SM86_NVLINK_BW 12.0 per link (nccl-topo §2.4): [D] 12.0 / 14.0625 = 0.853, above the SXM
  // figure. NVLink 2 bridges (TU102, 25 GB/s x8 links) and NVLink 4 bridges (H100 PCIe / NVL) have no
  // published per-link figure of their own: as the SXM row of their generation [R]. NVLink 1 and 5 have
  // no bridge: the SXM figures, never used.
  m.nvlink_bridge_efficiency = {0.90, 0.80, 0.853, 0.824, 0.802};
  // Socket links carry their wire rate (links x per-link rate, CpuSpec) times a payload efficiency; NCCL's
  // much lower planning figures (BDW_QPI 6, SKL_QPI 10, SRP 22, AMD 16 GB/s; nccl.md §d.2) stay NCCL's
  // and only steer its decisions (CpuSpec::inter_socket_effective_gbs). UPI: John McCalpin (TACC) on a
  // 2-socket Xeon Platinum 8160, two UPI links at 10.4 GT/s (2 x 20.8 = 41.6 GB/s per direction):
  // "Remote Bandwidth for Reads (one-direction at a time) ~34 GB/s" (stackoverflow answer on NUMA
  // bandwidth, copy at boohere.com/id/detail/201966.html): [D] 34 / 41.6 = 0.82.
  m.upi_efficiency = 0.82;
  // QPI (Xeon E5 v1-v4): GPU DMA across it is far below its wire. A Tesla P100 on a 6-core-per-socket
  // Xeon E5 (topo SOC), bandwidthTest with the process and its pinned memory on the far socket
  // (numactl -m1 -N1): H2D 3783.4 MB/s, D2H 2539.2 MB/s, against 12150.7 / 12890.6 MB/s near
  // (mpicbg-scicomp/gearshifft#82). Two QPI links of 8.0-9.6 GT/s carry 32-38.4 GB/s per direction:
  // [D] 3.78 / 38.4 = 0.098 to 3.78 / 32 = 0.118; the H2D figure at the faster link: 0.10. (NCCL's
  // BDW_QPI 6 GB/s planning figure sits between this and the wire.)
  m.qpi_efficiency = 0.10;
  // xGMI: no socket-link figure of its own. Lenovo LP1852 (Genoa): four links' 512 GB/s "more than
  // matches" one socket's 460.8 GB/s of DRAM, "remote memory access can flow nearly at maximum
  // bandwidth"; GPU copies across dual-EPYC sockets run far above NCCL's 16 GB/s (RTX PRO 6000 Gen5
  // P2P across NUMA 39-51 GB/s per pair on dual Genoa / Turin; voipmonitor/rtx6kpro
  // hardware/pcie-bandwidth.md), i.e. one copy never fills the link: as UPI [R].
  m.xgmi_efficiency = 0.82;
}

void set_staging_defaults(CostModel& m) {
  // cudaMemcpyPeer without peer access: the driver moves the bytes in chunks through pinned host
  // buffers, the D2H of chunk k+1 overlapping the H2D of chunk k, and the host waits for each chunk's
  // D2H before queueing its H2D. A zero-byte staged copy is that hand-off plus the launch of two host
  // copies (host_copy_latency, 6 us): the P2P=Disabled latency matrices read 10.3-15.2 us (data/p2p:
  // RTX 6000 Ada 10.3-14.2, RTX 5090 12.8, RTX 2080 Ti 13.6-14.8; 3090 rigs 14.3, 15.2) [D] 12 - 6 = 6 us.
  m.staging_sync_latency = microseconds(6.0);
  // The chunk of the pipelined path (every GPU but GeForce Turing / Ampere) is the one unknown: a lone
  // large copy reaches leg / (1 + (t_sync + h) x leg / chunk), h the two legs' link latencies (each hand-off
  // crosses them), so each published P2P=Disabled run, with the legs and hops rigsim computes for its
  // layout, gives chunk = (t_sync + h) x leg / (leg / measured - 1). Runs outside the dev cases only:
  // RTX 6000 Ada, Genoa root ports (h = 2 x 0.1 us), Gen4, 22.2 of 25.8 GB/s (stelline) -> 0.99 MB;
  // 6 GPUs at Gen4 (RTX 4090 inferred from the 911-922 GB/s diagonal [R], root ports [R]), 22.2 of 25.8
  // (NVIDIA/nccl#814) -> 0.99 MB; RTX 5090 Gen5, Genoa root ports, 38.6 of 51.7 (nccl-tests#287) ->
  // 0.94 MB; 8x H100 SXM Gen5 behind PCIe switches (h = 2 x (2 x 0.1 + 0.115) us, the HGX layout), 37.0
  // of 51.7 (NVIDIA/nccl#1264) -> 0.86 MB: [D] geometric mean 0.94 MB.
  // GeForce Turing / Ampere (SM 7.5, 8.6; DECISIONS "The staging rule by product line"): the same
  // chunked staging through one buffer, but the legs take turns: each chunk's D2H, a
  // hand-off, its H2D, a hand-off before the buffer is reused, so a lone large copy reaches
  // leg / (2 + 2 (t_sync + h) x leg / chunk), about 0.43 of a Gen4 leg. No figure of its own: the
  // driver's chunk and hand-off above, which came from pipelined runs only (the published GeForce
  // Turing / Ampere P2P=Disabled runs known to the project are dev cases and stay independent checks;
  // the lead reverted a chunk fitted to them). 0 = the whole copy as one chunk (store-and-forward).
  // Pipelined before Ada too: GTX 1080 Ti, 9.5-9.7 GB/s of a ~12.3 Gen3 leg (NVIDIA/nccl#257); A100
  // SXM4 16.9-20.4 and 17.6-21.0 of ~25.8 Gen4 (LLMServe/DistServe#3; a t9k GPU Operator guide), A100
  // PCIe (xyxxxxx/panoramic, sushruta.github.io), TITAN RTX 11.4 of Gen3 on a 2019 driver
  // (wohlbier/gpu-micro), V100 PCIe (B5paper). Taking turns: RTX 3090 on every host found (Puget
  // Threadripper Pro and a four-GPU Gen3 box, 5.9 GB/s; NVIDIA forum 295894: its staged peer copies
  // serialise other streams' copies), RTX 3070 Ti, RTX 2080 Ti, on 2023-2024 drivers.
  m.staging_chunk_legacy = Bytes{0.94e6};
  m.staging_chunk = Bytes{0.94e6};
}

void set_latency_defaults(CostModel& m) {
  // No public per-link figure: a PCIe hop is taken as one switch cut-through time (100-150 ns, §3).
  m.pcie_hop_latency = nanoseconds(100);
  // §3 rule of thumb "~100-150 ns per switch hop": midpoint, used when the switch catalog has none.
  m.switch_latency = nanoseconds(125);
  // P2P latency over NVSwitch equals the local one (3.2-3.4 us both, 8x A100 p2pBandwidthLatencyTest),
  // so a hop adds at most ~0.1 us: 0.1 us.
  m.nvlink_hop_latency = nanoseconds(100);
  // RTX 6000 Ada on dual Genoa: P2P latency 1.32-1.44 us across sockets vs 1.21-1.29 us within one
  // (stelline p2pBandwidthLatencyTest): [D] +0.1 us per crossing.
  m.inter_socket_latency = nanoseconds(100);
  // P2P write latency 1.21-1.44 us (4x RTX 6000 Ada, stelline), 1.12-1.14 (Puget WRX90), 1.01 (3090
  // pair, dev-cases): ~1.3 us minus two 0.1 us PCIe hops of a root-port route = 1.1 us [D].
  m.p2p_latency = microseconds(1.1);
  // P2P=Disabled (staged) latencies: 10.3-14.2 us (RTX 6000 Ada, two rigs), 12.8 (RTX 5090), 13.6-14.8
  // (RTX 2080 Ti), 14.3 and 15.2 (3090 rigs, dev-cases): median 12.3 us minus ~0.3 us of hops = 12 [D].
  m.shm_latency = microseconds(12.0);
  // NCCL's lowest per-step network latency (Ring LL, hwLat[NET] = 2.7 us; nccl.md §d.5).
  m.net_latency = microseconds(2.7);
  // A staged copy is a D2H followed by an H2D: half of shm_latency [D].
  m.host_copy_latency = microseconds(6.0);
}

void set_nccl_defaults(CostModel& m) {
  // NCCL 2.30 tuning.cc, Simple protocol (nccl.md §d.5): Ring base 8.4 us; per-step hardware latency
  // NVLINK 3.4, PCI 5.7, NET 14.0 us. These are NCCL's planning constants, not measurements.
  m.nccl_base_latency = microseconds(8.4);
  m.nccl_step_latency_nvlink = microseconds(3.4);
  m.nccl_step_latency_pcie = microseconds(5.7);
  m.nccl_step_latency_net = microseconds(14.0);
  // Same source, Ring row of the LL protocol: base 6.6 us; per step NVLINK .6, PCI 1.0, NET 2.7 us.
  m.nccl_ll_base_latency = microseconds(6.6);
  m.nccl_ll_step_latency_nvlink = microseconds(0.6);
  m.nccl_ll_step_latency_pcie = microseconds(1.0);
  m.nccl_ll_step_latency_net = microseconds(2.7);
  // Same source, Ring row of the LL128 protocol: base 14.0 us; per step NVLINK 1.9, PCI 2.5, NET 4.0 us.
  m.nccl_ll128_base_latency = microseconds(14.0);
  m.nccl_ll128_step_latency_nvlink = microseconds(1.9);
  m.nccl_ll128_step_latency_pcie = microseconds(2.5);
  m.nccl_ll128_step_latency_net = microseconds(4.0);
  // tuning.cc, Tree rows (baseLat Tree {6.8, 14.0, 8.4}; hwLat NVLINK Tree {.6, 1.25, 4.0}, PCI Tree
  // {1.0, 1.9, 4.0}, NET Tree {5.0, 8.5, 14}, LL / LL128 / Simple; the same at v2.18.3, v2.23.4 and in
  // v2.29.2's ncclTunerConstantsDefaults): the tree all_reduce's latency base + 2((ppn-1) intra +
  // log2(nodes) net). Planning constants, not measurements.
  m.nccl_tree_base_latency = microseconds(8.4);
  m.nccl_tree_step_latency_nvlink = microseconds(4.0);
  m.nccl_tree_step_latency_pcie = microseconds(4.0);
  m.nccl_tree_step_latency_net = microseconds(14.0);
  m.nccl_tree_ll_base_latency = microseconds(6.8);
  m.nccl_tree_ll_step_latency_nvlink = microseconds(0.6);
  m.nccl_tree_ll_step_latency_pcie = microseconds(1.0);
  m.nccl_tree_ll_step_latency_net = microseconds(5.0);
  m.nccl_tree_ll128_base_latency = microseconds(14.0);
  m.nccl_tree_ll128_step_latency_nvlink = microseconds(1.25);
  m.nccl_tree_ll128_step_latency_pcie = microseconds(1.9);
  m.nccl_tree_ll128_step_latency_net = microseconds(8.5);
  // tuning.cc perChMaxTreeBws and perChMaxTreeLL128Bws, GB/s per tree channel, rows Volta / Ampere /
  // Hopper / Blackwell, columns 1 / 2 / more nodes (v2.29.2's ncclTunerConstantsDefaults; the first three
  // rows as at v2.23.4): caps on the tree's Simple and LL128 bus bandwidth in NCCL's choice. The Simple
  // figure is also a tree channel's block rate in the simulation: 8 channels of it give the busbw that
  // 8-NIC B200 clusters measure on 1 / 2 / 4+ servers (551, 335-339, 191-196 GB/s; together-nccl-tests).
  m.nccl_tree_channel_bw_gbs = {
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
  m.nccl_tree_ll128_channel_bw_gbs = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
  // tuning.cc perChMaxNVLSTreeBws (from v2.28.3; v2.29.2's row for Blackwell: 43.8 for 4+ nodes, 43.1 at
  // v2.28.3), GB/s per channel of the NVLS graph (one head per GPU), rows Volta / Ampere / Hopper /
  // Blackwell, columns 1 / 2 / more nodes: NCCL_TOPO's bound on NVLS_TREE's bus bandwidth, and in the
  // simulation its block rate: 8 heads of 57.7 GB/s give the 462-467 GB/s busbw 2 x 8 H100 measure
  // (Nebius, NCCL 2.23.4), 8 of 43.8 the 361 of 4 x 8 B200 (together-nccl-tests, flapping-airplanes).
  m.nccl_nvls_tree_channel_bw_gbs = {
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}}};
  // tuning.cc llMaxBws (nccl.md §d.5), GB/s, rows Volta/Ampere/Hopper/Blackwell, columns 1 / 2 / more
  // nodes: the LL protocol's bandwidth cap.
  m.nccl_ll_max_bw_gbs = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
  // tuning.cc perChMaxRingLL128Bws (nccl.md §d.5): LL128 bandwidth per ring channel, GB/s.
  m.nccl_ll128_channel_bw_gbs = {20.0, 20.0, 36.7, 40.0};
  // NVLS (NCCL src/graph/tuning.cc, nvlsEfficiency: "0.0f, // Volta  0.0f, // Ampere  0.85f, // Hopper
  // 0.74f, // Blackwell"): the share of the NVLink bandwidth an NVSwitch reduction sustains. Its
  // latency: hwLat[NVLINK][NVLS][Simple] = 25 us with baseLat[NVLS] = 0 (same file).
  m.nccl_nvls_efficiency = {0.0, 0.0, 0.85, 0.74};
  m.nccl_nvls_latency = microseconds(25.0);
  // tuning.cc: LL128's bus bandwidth is 0.92 of Simple's (busBw * 120/128 rounded in NCCL's table,
  // nccl.md §d.5); the tree all_reduce's is 0.92 of the link rate (same source).
  m.nccl_ll128_bw_ratio = 0.92;
  m.nccl_tree_bw_ratio = 0.92;
  // One thread launching N GPUs' collectives in turn (nccl-tests -g N: ncclGroupEnd's doLaunches loop,
  // NCCL src/group.cc; "due to the CUDA latency overheads of single process jobs", maintainer in
  // NVIDIA/nccl-tests#333): DGX A100 (EPYC 7742), ring all_reduce 8-128 B on one channel in one process,
  // -g 4..8: 16.88, 20.8, 25.2, 29.5, 33.7 us (NVIDIA/nccl-tests#123), i.e. 4.22, 4.16, 4.20, 4.21,
  // 4.21 us per GPU, a line through the origin, while NCCL's own ring model rises 1.2 us per GPU [D].
  // The figure is this host's; other CPUs differ (`rigsim calibrate` fits it from a rig's small sizes).
  m.nccl_launch_per_gpu = microseconds(4.2);
}

void set_compute_defaults(CostModel& m) {
  // Horace He, "Strangely, Matrix Multiplications on GPUs Run Faster When Given 'Predictable' Data"
  // (thonking.ai, 2024): A100 SXM 8192^3 cuBLAS with all-zero inputs, which flip few transistors and so
  // never meet the power limit, 295 of 312 TFLOP/s = 0.946. That run includes the model's other GEMM
  // factors (compute.cpp): tile fill 0.998 (2048 tiles of 256x128 over 108 SMs, 19 waves) and k ramp
  // 8192 / (8192 + 128) = 0.985, so at the clock it runs at: [D] 0.946 / (0.998 x 0.985) = 0.96.
  m.gemm_efficiency = 0.96;
  // stas00/ml-engineering compute/accelerator/README.md, MAMF table (FP8 vs BF16 of the same GPU):
  // H100 SXM 70.9 % vs 80.3 % = 0.883, GH200 77.6 % vs 83.8 % = 0.926: [D] mean 0.90.
  m.gemm_fp8_efficiency = 0.90;
  // FlashAttention-2 (Dao 2023, arXiv 2307.08691): the forward pass reaches 50-73 % of A100's peak; the
  // backward pass, 2.5x the forward's FLOPs, is the less efficient one [R]: the low end, 0.5, for a
  // training step. (FA2 on H100 reaches ~35 %, FA3 ~75 %: not told apart here.)
  m.attention_efficiency = 0.5;
  // Same source as gemm_efficiency: with random-normal inputs the A100 holds its 400 W limit by
  // lowering its clock, 257 vs 295 TFLOP/s: [D] 0.871. Cross-check: NVIDIA computed A100's HPL Rpeak at
  // 1305 MHz, "the clock that can be sustained at a GPU's power limit while running HPL", of its
  // 1410 MHz boost (glennklockwood.com/garden/peak-FLOPS): 0.926 for FP64 DGEMM.
  m.tensor_clock_ratio = 0.87;
  // GeForce cards doing FP32-accumulate tensor math at half rate do half the tensor work per clock and
  // stay at or above their rated boost clock: an RTX 3090 held 1635-1650 of its 1695 MHz through
  // prefill GEMMs even capped to 315 of its 350 W (ashalliants/ninfer-3090#72), and GPU Boost runs past
  // the rated clock when power allows (RTX 4090 at 2820 vs 2520 MHz, noonghunna/club-3090#697).
  // 1.0 = the rated boost clock, the conservative end.
  m.tensor_clock_ratio_half_rate = 1.0;
}

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

/// A per-architecture row (Volta, Ampere, Hopper, Blackwell): rates in GB/s (each > 0) or, with
/// `factors`, factors in [0, 1] (0: the architecture lacks the feature).
std::array<double, 4> read_per_arch(ObjectReader& r, const char* key, std::array<double, 4> value,
                                    bool factors) {
  const nlohmann::json* a = r.optional_array(key);
  if (!a) return value;
  const std::string what = factors ? "factors in [0, 1]" : "positive rates in GB/s";
  if (a->size() != 4) r.fail(key, "expected 4 " + what + " (Volta, Ampere, Hopper, Blackwell)");
  for (std::size_t i = 0; i < 4; ++i) {
    const double v = (*a)[i].is_number() ? (*a)[i].get<double>() : -1;
    if (!(factors ? v >= 0 && v <= 1 : v > 0))
      r.fail(key, "expected " + what + ", element " + std::to_string(i) + " is not");
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

CostModel default_cost_model() {
  CostModel m;
  set_bandwidth_defaults(m);
  set_link_generation_defaults(m);
  set_staging_defaults(m);
  set_latency_defaults(m);
  set_nccl_defaults(m);
  set_compute_defaults(m);
  m.source = "built-in defaults";
  return m;
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
  for (const auto& a : kArchRates) base.*a.field = read_per_arch(r, a.key, base.*a.field, false);
  for (const auto& a : kArchFactors) base.*a.field = read_per_arch(r, a.key, base.*a.field, true);
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
