// Built-in CostModel defaults, each with its source. Sources are in ../shared/reference/hardware.md
// (§ numbers below), ../shared/reference/nccl.md and the captured tool output in ../shared/data/p2p/.
// "[D]" marks a value derived by the stated arithmetic.
#include "calibration/cost_model.hpp"

namespace rigsim::calibration {
namespace {

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
  // Hopper / Blackwell, columns 1 / 2 / more nodes (v2.29.2's ncclTunerConstantsDefaults, as v2.30.7;
  // NCCL's choice reads the run's release's rows, model/nccl_tuning.cpp): caps on the tree's Simple and
  // LL128 bus bandwidth in NCCL's choice. The Simple figure (v2.30.7's, whatever the release) is also a
  // tree channel's block rate in the simulation: 8 channels of it give the busbw that
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
  // nodes: the LL protocol's bandwidth cap, v2.30.7's. NCCL's choice reads the run's release's rows and,
  // across servers, row 0 or 1 by CPU vendor (model/nccl_tuning.cpp); the simulated LL rate these.
  m.nccl_ll_max_bw_gbs = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
  // tuning.cc perChMaxRingLL128Bws (nccl.md §d.5): LL128 bandwidth per ring channel, GB/s, v2.30.7's
  // (NCCL's choice reads the run's release's, e.g. Blackwell 34.5 at v2.29.2: model/nccl_tuning.cpp).
  m.nccl_ll128_channel_bw_gbs = {20.0, 20.0, 36.7, 40.0};
  // NVLS (NCCL src/graph/tuning.cc, nvlsEfficiency: "0.0f, // Volta  0.0f, // Ampere  0.85f, // Hopper
  // 0.74f, // Blackwell"): the share of the NVLink bandwidth an NVSwitch reduction sustains. Its
  // latency: hwLat[NVLINK][NVLS][Simple] = 25 us with baseLat[NVLS] = 0 (same file).
  m.nccl_nvls_efficiency = {0.0, 0.0, 0.85, 0.74};
  m.nccl_nvls_latency = microseconds(25.0);
  // One NCCL channel's thread block over NVLink, Simple protocol, measured. Blackwell: NVIDIA/nccl#2140
  // (NCCL 2.30.4, 8x B300 on one NVSwitch, NVLS off: "busbw: 695"), a ring all_reduce on the 32
  // channels NCCL's search gives NVLink 5 (8 rings at 90 GB/s, doubled twice; nccl_channels), so a block
  // moves 695 / 32 = 21.7 GB/s, below NCCL's own share of the links (721.8 / 32 = 22.6). No such figure
  // is published for older GPUs, whose blocks keep NCCL's share (their rings fill the links first).
  m.nccl_block_gbs = {0.0, 0.0, 0.0, 695.0 / 32};
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

}  // namespace

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

}  // namespace rigsim::calibration
