// The GPU catalog. Numbers come from ../shared/reference/hardware.md (section given per entry) and
// hardware_facts.json; each entry's `source` names where, with [R] (recalled, unconfirmed) and [D]
// (derived, arithmetic stated) tags. Rates are dense TFLOP/s, bandwidths decimal GB/s.
//
// Choices that apply to several rows:
// - fp16 fields of cards without tensor/matrix units hold the FP16 rate the card really reaches
//   (P100/P40: native FP16; K80/M40: no fast FP16 path, so the FP32 rate; RX 6800: packed FP16).
// - GeForce Ampere/Ada/Blackwell run FP16 tensor math with FP32 accumulate at half the FP16-accumulate
//   rate (hardware.md §1.2); pro/datacenter cards run both at full rate.
// - NVLink bridges are optional kits: nvlink_* says what the card supports when a bridge is fitted;
//   whether one is fitted is the layout's business.
// - AMD Infinity Fabric links (MI100/MI210) are not NVLink: nvlink fields are 0 for every AMD card.
// - used_price_usd is set only where hardware.md §1.5 gives a used price; else 0.
#include <array>

#include "topology/catalog.hpp"

namespace rigsim::topology {
namespace {

// Tables keep a few fields per line; clang-format would put each designated initializer on its own.
// clang-format off
constexpr auto kGpus = std::to_array<GpuSpec>({
    // ---- GeForce / TITAN (consumer) ----------------------------------------------------------------
    {.key = "rtx-3060-12gb", .name = "GeForce RTX 3060 12GB", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 12, .memory_bw_gbs = 360, .fp16_fp32acc_tflops = 25.5, .fp16_fp16acc_tflops = 51.0,
     .fp32_tflops = 12.74, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = false, .p2p_patchable = false, .sm = 86,
     .tdp_w = 170, .used_price_usd = 200,
     .sm_count = 28, .tf32_tflops = 12.7, .fp8_tflops = 0,
     .source = "hardware.md §1.1/§1.2: mem, BW, TDP [S] pcpartdb.com; tensor and FP32 [D] 28 SM x 1.777 GHz "
               "x 512|1024 FLOP/clk (FP32: 3584 x 2 x 1.777); price §1.5 gpudojo; no P2P patch report [R]; "
               "compute model: 28 SM [S] §1.2 pcpartdb; TF32 12.7 [D] §1.1; no FP8 (Ampere)"},
    {.key = "rtx-3090", .name = "GeForce RTX 3090", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 24, .memory_bw_gbs = 936, .fp16_fp32acc_tflops = 71.0, .fp16_fp16acc_tflops = 142.0,
     .fp32_tflops = 35.6, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 4,
     .nvlink_link_gbs = 14.0625, .nvlink_bridge = true, .p2p_stock = false, .p2p_patchable = true, .sm = 86,
     .tdp_w = 350, .used_price_usd = 700,
     .sm_count = 82, .tf32_tflops = 35.6, .fp8_tflops = 0,
     .source = "hardware.md §1.1/§1.2: NVIDIA GA102 whitepaper appendix (71/142 TFLOPS, 936 GB/s; NVLink "
               "'four x4 links, each 14.0625 GB/sec in each direction'); stock P2P inconsistent "
               "(NVIDIA/nccl#1127), modelled off (§1.3); patched driver confirmed "
               "(aikitoria/open-gpu-kernel-modules#3); price §1.5; "
               "compute model: 82 SM [S] GA102-WP §1.2; TF32 35.6 [R] §1.1; no FP8 (Ampere)"},
    {.key = "rtx-3090-ti", .name = "GeForce RTX 3090 Ti", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 24, .memory_bw_gbs = 1008, .fp16_fp32acc_tflops = 80.0, .fp16_fp16acc_tflops = 160.0,
     .fp32_tflops = 40.0, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 4,
     .nvlink_link_gbs = 14.0625, .nvlink_bridge = true, .p2p_stock = false, .p2p_patchable = true, .sm = 86,
     .tdp_w = 450, .used_price_usd = 1100,
     .sm_count = 84, .tf32_tflops = 40, .fp8_tflops = 0,
     .source = "hardware.md §1.2: tweaktown.com/news/84164 (1008 GB/s, 40 TFLOPS FP32, 450 W); tensor [D] "
               "84 SM x 1.86 GHz x 512|1024; PCIe 4.0 x16 [R]; NVLink connector [R], rates as GA102 bridge; "
               "P2P patch [R] (same GA102 as the 3090, not confirmed); price §1.5 chipversus.com; "
               "compute model: 84 SM [S] tweaktown §1.2; TF32 40 [D] §1.1; no FP8 (Ampere)"},
    {.key = "rtx-4090", .name = "GeForce RTX 4090", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 24, .memory_bw_gbs = 1008, .fp16_fp32acc_tflops = 165.2, .fp16_fp16acc_tflops = 330.3,
     .fp32_tflops = 82.6, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = false, .p2p_patchable = true, .sm = 89,
     .tdp_w = 450, .used_price_usd = 1600,
     .sm_count = 128, .tf32_tflops = 82.6, .fp8_tflops = 330.3,
     .source = "hardware.md §1.2: NVIDIA Ada whitepaper Appendix A (165.2/330.3, 82.6, 1008 GB/s); no "
               "NVLink; no stock P2P and patched driver confirmed (tinygrad/open-gpu-kernel-modules README, "
               "§1.3); price §1.5 gpudojo; "
               "compute model: 128 SM [D] 165.2 / (2.52 GHz x 512) §1.2; TF32 82.6 [R] §1.1; FP8 FP32acc 330.3 "
               "[S] Ada-WP v2.02 (§1.2 footnote)"},
    {.key = "rtx-5090", .name = "GeForce RTX 5090", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 32, .memory_bw_gbs = 1792, .fp16_fp32acc_tflops = 209.5, .fp16_fp16acc_tflops = 419.0,
     .fp32_tflops = 104.8, .pcie_gen = 5, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = false, .p2p_patchable = true, .sm = 120,
     .tdp_w = 575, .used_price_usd = 0,
     .sm_count = 170, .tf32_tflops = 104.8, .fp8_tflops = 419,
     .source = "hardware.md §1.2: NVIDIA RTX Blackwell whitepaper Table 3 (209.5 BF16/FP32acc, 1792 GB/s); "
               "FP16acc 419 [D] 2x; FP32 [D] 21760 x 2 x 2.407 GHz (core count [R]); PCIe 5.0 x16 [R]; 575 "
               "W slashgear.com; patched P2P confirmed (tinygrad#29/#44, aikitoria#11); no used price "
               "(launch $1999); "
               "compute model: 170 SM [D] 209.5 / (2.407 GHz x 512) §1.2; TF32 104.8 [D] BF16 / 2 as on "
               "3090/4090 [R]; FP8 FP32acc 419 [S] BW-WP §1.1"},
    {.key = "rtx-2080-ti", .name = "GeForce RTX 2080 Ti", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 11, .memory_bw_gbs = 616, .fp16_fp32acc_tflops = 56.9, .fp16_fp16acc_tflops = 113.8,
     .fp32_tflops = 14.2, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 2, .nvlink_links = 2,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = true, .p2p_stock = false, .p2p_patchable = false, .sm = 75,
     .tdp_w = 260, .used_price_usd = 0,
     .sm_count = 68, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.1: Turing blog (FE 113.8 FP16acc / 56.9 FP32acc); TU102 NVLink 2 x8 links x "
               "25 GB/s per dir (Turing blog), bridge on the 2080 Ti [R]; 11 GB, 616 GB/s, 260 W FE [R]; "
               "FP32 [D] 4352 x 2 x 1.635 GHz FE (clock [R]); no PCIe P2P (nccl-tests#117 comment, §1.3); "
               "compute model: 68 SM [D] 4352 cores / 64 per Turing SM [R]; no TF32/FP8 (Turing)"},
    {.key = "titan-rtx", .name = "NVIDIA TITAN RTX", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 24, .memory_bw_gbs = 672, .fp16_fp32acc_tflops = 130.5, .fp16_fp16acc_tflops = 130.5,
     .fp32_tflops = 16.3, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 2, .nvlink_links = 2,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = true, .p2p_stock = false, .p2p_patchable = false, .sm = 75,
     .tdp_w = 280, .used_price_usd = 0,
     .sm_count = 72, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.1 [S*]: Turing blog Quadro RTX 6000 numbers (same full TU102, clocks per "
               "gist sagnitude/c32a204d); not FP32acc-throttled [R]; NVLink 2 x 25 GB/s per dir bridge [S]; "
               "PCIe 3.0 x16 [R]; 280 W [R]; PCIe P2P unconfirmed, modelled off like other consumer cards; "
               "compute model: 72 SM [S] §1.1 (full TU102); no TF32/FP8 (Turing)"},
    {.key = "rtx-3070-ti", .name = "GeForce RTX 3070 Ti", .vendor = Vendor::Nvidia, .geforce = true,
     .memory_gb = 8, .memory_bw_gbs = 608, .fp16_fp32acc_tflops = 43.5, .fp16_fp16acc_tflops = 87.0,
     .fp32_tflops = 21.7, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = false, .p2p_patchable = false, .sm = 86,
     .tdp_w = 290, .used_price_usd = 0,
     .sm_count = 48, .tf32_tflops = 21.75, .fp8_tflops = 0,
     .source = "[R] not in hardware.md (used by dev-cases.json p2p-2x3070Ti-*): 8 GB GDDR6X 608 GB/s, 6144 "
               "cores, 48 SM, 1.77 GHz, 290 W [R]; tensor [D] 48 x 1.77 x 512|1024; FP32 [D] 6144 x 2 x "
               "1.77; "
               "compute model: 48 SM [R]; TF32 21.75 [D] 43.5 / 2; no FP8 (Ampere)"},

    // ---- NVIDIA workstation (RTX A / Ada) and L40S -------------------------------------------------
    {.key = "quadro-rtx-6000", .name = "Quadro RTX 6000", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 24, .memory_bw_gbs = 672, .fp16_fp32acc_tflops = 130.5, .fp16_fp16acc_tflops = 130.5,
     .fp32_tflops = 16.3, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 2, .nvlink_links = 2,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = true, .p2p_stock = true, .p2p_patchable = false, .sm = 75,
     .tdp_w = 260, .used_price_usd = 0,
     .sm_count = 72, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: Turing blog table (16.3 FP32, 130.5 both accumulations, 672 GB/s, 260 W, "
               "NVLink 2 x 25 GB/s per dir); PCIe 3.0 x16 [R]; "
               "compute model: 72 SM [S] §1.1 (full TU102); no TF32/FP8 (Turing)"},
    {.key = "rtx-a4000", .name = "RTX A4000", .vendor = Vendor::Nvidia, .geforce = false, .memory_gb = 16,
     .memory_bw_gbs = 448, .fp16_fp32acc_tflops = 76.7, .fp16_fp16acc_tflops = 76.7, .fp32_tflops = 19.2,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0, .nvlink_link_gbs = 0,
     .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 86, .tdp_w = 140,
     .used_price_usd = 0,
     .sm_count = 48, .tf32_tflops = 38.4, .fp8_tflops = 0,
     .source = "hardware.md §1.2: RTX A4000 datasheet copy (ecer.com): 448 GB/s, 19.2 FP32, 153.4 sparse "
               "tensor, PCIe 4.0 x16, 140 W, no NVLink; dense tensor [D] 153.4 / 2; "
               "compute model: 48 SM [D] 6144 cores / 128; TF32 38.4 [D] §1.1; no FP8 (Ampere)"},
    {.key = "rtx-a5000", .name = "RTX A5000", .vendor = Vendor::Nvidia, .geforce = false, .memory_gb = 24,
     .memory_bw_gbs = 768, .fp16_fp32acc_tflops = 111.1, .fp16_fp16acc_tflops = 111.1, .fp32_tflops = 27.8,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 4, .nvlink_link_gbs = 14.0625,
     .nvlink_bridge = true, .p2p_stock = true, .p2p_patchable = false, .sm = 86, .tdp_w = 230,
     .used_price_usd = 0,
     .sm_count = 64, .tf32_tflops = 55.5, .fp8_tflops = 0,
     .source = "hardware.md §1.2: huggingface.co/hardware/rtx-a5000 (24 GB, 27.8 FP32, 230 W); 768 GB/s "
               "[R]; tensor [D] 64 SM x 1.695 GHz x 1024; NVLink bridge 112.5 GB/s bidir [R] = GA102 4 x "
               "14.0625 (§2.5); PCIe 4.0 x16 [R]; "
               "compute model: 64 SM [D] §1.2; TF32 55.5 [D] §1.1; no FP8 (Ampere)"},
    {.key = "rtx-a6000", .name = "RTX A6000", .vendor = Vendor::Nvidia, .geforce = false, .memory_gb = 48,
     .memory_bw_gbs = 768, .fp16_fp32acc_tflops = 154.8, .fp16_fp16acc_tflops = 154.8, .fp32_tflops = 38.7,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 4, .nvlink_link_gbs = 14.0625,
     .nvlink_bridge = true, .p2p_stock = true, .p2p_patchable = false, .sm = 86, .tdp_w = 300,
     .used_price_usd = 0,
     .sm_count = 84, .tf32_tflops = 77.4, .fp8_tflops = 0,
     .source = "hardware.md §1.2: GA102 whitepaper Table 3 (154.8 BF16/FP32acc); techbriefly.com (768 GB/s, "
               "NVLink3 bridge); A40 datasheet (112.5 GB/s bidir = 4 x 14.0625 per dir, §2.5); 38.7 FP32, "
               "300 W; "
               "compute model: 84 SM [D] 10752 cores / 128; TF32 77.4 [D] §1.1; no FP8 (Ampere)"},
    {.key = "rtx-6000-ada", .name = "RTX 6000 Ada Generation", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 48, .memory_bw_gbs = 960, .fp16_fp32acc_tflops = 364.0, .fp16_fp16acc_tflops = 364.0,
     .fp32_tflops = 91.1, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 89,
     .tdp_w = 300, .used_price_usd = 0,
     .sm_count = 142, .tf32_tflops = 182, .fp8_tflops = 728,
     .source = "hardware.md §1.2: NVIDIA RTX PRO Blackwell whitepaper Table 4 (364 dense), "
               "ohdoking/gpu_spec (91.1 FP32, 300 W), store.sourcecode.com (PCIe 4.0 x16); no NVLink [R]; "
               "compute model: 142 SM [D] 18176 cores / 128; TF32 182 [D] §1.1; FP8 728 [D] 2 x 364 (Ada FP8 = "
               "2 x BF16, as L40S 733 vs 362)"},
    {.key = "l40s", .name = "NVIDIA L40S", .vendor = Vendor::Nvidia, .geforce = false, .memory_gb = 48,
     .memory_bw_gbs = 864, .fp16_fp32acc_tflops = 362.0, .fp16_fp16acc_tflops = 362.0, .fp32_tflops = 91.6,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0, .nvlink_link_gbs = 0,
     .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 89, .tdp_w = 350,
     .used_price_usd = 0,
     .sm_count = 142, .tf32_tflops = 183, .fp8_tflops = 733,
     .source = "hardware.md §1.2: L40/L40S datasheet table (mullet.se): 864 GB/s, 362 FP16/BF16, 91.6 FP32, "
               "350 W, PCIe Gen4 x16; 'NVLink is not supported' (itcreations.com); "
               "compute model: 142 SM [D] 18176 cores / 128; TF32 183 and FP8 733 [S] §1.2 mullet.se"},

    // ---- NVIDIA Tesla without tensor cores --------------------------------------------------------
    {.key = "tesla-k80", .name = "Tesla K80 (one GK210 of two)", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 12, .memory_bw_gbs = 240, .fp16_fp32acc_tflops = 4.37, .fp16_fp16acc_tflops = 4.37,
     .fp32_tflops = 4.37, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 37,
     .tdp_w = 150, .used_price_usd = 20,
     .sm_count = 13, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2, per GPU die: AnandTech 8729 (8.74 SP boost per board -> 4.37 [D]; 300 W "
               "per board -> 150 [D]); cnews.cz 240 GB/s per GPU; no fast FP16, fp16 fields = FP32 rate; "
               "the two dies share the board's Gen3 x16 via an on-board switch [R] (layout models it); $40 "
               "per board §1.5 -> 20; "
               "compute model: 13 SMX per GK210 [D] 2496 cores / 192; no tensor units"},
    {.key = "tesla-m40", .name = "Tesla M40 24GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 24, .memory_bw_gbs = 288, .fp16_fp32acc_tflops = 6.84, .fp16_fp16acc_tflops = 6.84,
     .fp32_tflops = 6.84, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 52,
     .tdp_w = 250, .used_price_usd = 80,
     .sm_count = 24, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: alldbin.com (6.844 TFLOPS, 288 GB/s, 250 W, PCIe 3.0 x16); 24 GB variant "
               "chosen because the §1.5 used price (gpudojo $80) is for it (12 GB also exists); no fast "
               "FP16, fp16 = FP32; "
               "compute model: 24 SM [D] 3072 cores / 128; no tensor units"},
    {.key = "tesla-p40", .name = "Tesla P40", .vendor = Vendor::Nvidia, .geforce = false, .memory_gb = 24,
     .memory_bw_gbs = 347, .fp16_fp32acc_tflops = 0.18, .fp16_fp16acc_tflops = 0.18, .fp32_tflops = 11.76,
     .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0, .nvlink_link_gbs = 0,
     .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 61, .tdp_w = 250,
     .used_price_usd = 150,
     .sm_count = 30, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: alldbin.com (11.758 TFLOPS, 347.1 GB/s, 250 W, PCIe 3.0 x16); FP16 0.18 "
               "(1/64 rate, gpuark.com) - FP16 math is that slow, frameworks upcast to FP32; price §1.5 "
               "gpudojo; "
               "compute model: 30 SM [D] 3840 cores / 128; no tensor units"},
    {.key = "tesla-p100-pcie-16gb", .name = "Tesla P100 PCIe 16GB", .vendor = Vendor::Nvidia,
     .geforce = false, .memory_gb = 16, .memory_bw_gbs = 732, .fp16_fp32acc_tflops = 18.7,
     .fp16_fp16acc_tflops = 18.7, .fp32_tflops = 9.3, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0,
     .nvlink_links = 0, .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true,
     .p2p_patchable = false, .sm = 60, .tdp_w = 250, .used_price_usd = 170,
     .sm_count = 56, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: GitHub GPU notes (9.3 FP32, 18.7 FP16 vector - no tensor cores, 732 GB/s, "
               "PCIe Gen3); TDP conflict 250 (NVIDIA datasheet [R]) vs 300 (quattor template): 250 chosen "
               "as the vendor figure; PCIe card has no NVLink; price §1.5 gpudojo; "
               "compute model: 56 SM [D] 3584 cores / 64; no tensor units"},

    // ---- NVIDIA datacenter with tensor cores -------------------------------------------------------
    {.key = "v100-pcie", .name = "Tesla V100 PCIe 16GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 16, .memory_bw_gbs = 900, .fp16_fp32acc_tflops = 112.0, .fp16_fp16acc_tflops = 112.0,
     .fp32_tflops = 14.0, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 70,
     .tdp_w = 250, .used_price_usd = 0,
     .sm_count = 80, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: gmasse-specs (14 FP32, 112 tensor, 900 GB/s, 250 W); 16 GB variant (see "
               "v100-pcie-32gb); "
               "compute model: 80 SM [R]; no TF32/FP8 (Volta)"},
    {.key = "v100-pcie-32gb", .name = "Tesla V100 PCIe 32GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 32, .memory_bw_gbs = 900, .fp16_fp32acc_tflops = 112.0, .fp16_fp16acc_tflops = 112.0,
     .fp32_tflops = 14.0, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 70,
     .tdp_w = 250, .used_price_usd = 0,
     .sm_count = 80, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: gmasse-specs (V100 PCIe 16/32 GB: 14 FP32, 112 tensor, 900 GB/s, 250 W); "
               "compute model: 80 SM [R]; no TF32/FP8 (Volta)"},
    {.key = "v100s-pcie", .name = "Tesla V100S PCIe 32GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 32, .memory_bw_gbs = 1134, .fp16_fp32acc_tflops = 130.0, .fp16_fp16acc_tflops = 130.0,
     .fp32_tflops = 16.4, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 70,
     .tdp_w = 250, .used_price_usd = 0,
     .sm_count = 80, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: gmasse-specs (16.4 FP32, 130 tensor, 1134 GB/s); 32 GB and 250 W [R]; "
               "compute model: 80 SM [R]; no TF32/FP8 (Volta)"},
    {.key = "v100-sxm2", .name = "Tesla V100 SXM2 16GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 16, .memory_bw_gbs = 900, .fp16_fp32acc_tflops = 125.0, .fp16_fp16acc_tflops = 125.0,
     .fp32_tflops = 15.7, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 2, .nvlink_links = 6,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 70,
     .tdp_w = 300, .used_price_usd = 0,
     .sm_count = 80, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2/§2.5: gmasse-specs (15.7 FP32, 125 tensor, 900 GB/s, 300 W); NVLink2 6 "
               "links x 25 GB/s per dir (textbookofai.com); 16 GB variant (see v100-sxm2-32gb); "
               "compute model: 80 SM [R]; no TF32/FP8 (Volta)"},
    {.key = "v100-sxm2-32gb", .name = "Tesla V100 SXM2 32GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 32, .memory_bw_gbs = 900, .fp16_fp32acc_tflops = 125.0, .fp16_fp16acc_tflops = 125.0,
     .fp32_tflops = 15.7, .pcie_gen = 3, .pcie_width = 16, .nvlink_gen = 2, .nvlink_links = 6,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 70,
     .tdp_w = 300, .used_price_usd = 0,
     .sm_count = 80, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2/§2.5: gmasse-specs (V100 SXM2 16/32 GB); NVLink2 6 x 25 GB/s per dir; "
               "compute model: 80 SM [R]; no TF32/FP8 (Volta)"},
    {.key = "a100-pcie-40gb", .name = "A100 PCIe 40GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 40, .memory_bw_gbs = 1555, .fp16_fp32acc_tflops = 312.0, .fp16_fp16acc_tflops = 312.0,
     .fp32_tflops = 19.5, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 12,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = true, .p2p_stock = true, .p2p_patchable = false, .sm = 80,
     .tdp_w = 250, .used_price_usd = 0,
     .sm_count = 108, .tf32_tflops = 156, .fp8_tflops = 0,
     .source = "hardware.md §1.2: gmasse-specs (312 tensor, 19.5 FP32, 1555 GB/s, 250 W); optional NVLink "
               "bridge [R]: chosen as the 3-bridge kit, 12 links x 25 GB/s per dir = 600 GB/s bidir [R]; "
               "compute model: 108 SM [S] A100 whitepaper (stas00 caches table); TF32 156 [S] §1.2; no FP8"},
    {.key = "a100-pcie-80gb", .name = "A100 PCIe 80GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 80, .memory_bw_gbs = 1935, .fp16_fp32acc_tflops = 312.0, .fp16_fp16acc_tflops = 312.0,
     .fp32_tflops = 19.5, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 12,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = true, .p2p_stock = true, .p2p_patchable = false, .sm = 80,
     .tdp_w = 300, .used_price_usd = 0,
     .sm_count = 108, .tf32_tflops = 156, .fp8_tflops = 0,
     .source = "hardware.md §1.2: gmasse-specs (312 tensor, 19.5 FP32, 1935 GB/s, 300 W); optional NVLink "
               "bridge [R]: chosen as the 3-bridge kit, 12 links x 25 GB/s per dir = 600 GB/s bidir [R]; "
               "compute model: 108 SM [S] A100 whitepaper (stas00 caches table); TF32 156 [S] §1.2; no FP8"},
    {.key = "a100-sxm4-40gb", .name = "A100 SXM4 40GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 40, .memory_bw_gbs = 1555, .fp16_fp32acc_tflops = 312.0, .fp16_fp16acc_tflops = 312.0,
     .fp32_tflops = 19.5, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 12,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 80,
     .tdp_w = 400, .used_price_usd = 0,
     .sm_count = 108, .tf32_tflops = 156, .fp8_tflops = 0,
     .source = "hardware.md §1.2/§2.5: gmasse-specs (A100 SXM4 40 GB 1555 GB/s, 400 W; 312 tensor both "
               "accumulations per A100 whitepaper Table 1); NVLink3 12 x 25 GB/s per dir; "
               "compute model: 108 SM [S] A100 whitepaper (stas00 caches table); TF32 156 [S] §1.2; no FP8"},
    {.key = "a100-sxm4-80gb", .name = "A100 SXM4 80GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 80, .memory_bw_gbs = 2039, .fp16_fp32acc_tflops = 312.0, .fp16_fp16acc_tflops = 312.0,
     .fp32_tflops = 19.5, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 3, .nvlink_links = 12,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 80,
     .tdp_w = 400, .used_price_usd = 0,
     .sm_count = 108, .tf32_tflops = 156, .fp8_tflops = 0,
     .source = "hardware.md §1.2/§2.5: gmasse-specs (2039 GB/s, 400 W, 312 tensor); NVLink3 12 x 25 GB/s "
               "per dir (NVIDIA/nccl-tests#149: ~230 GB/s effective); "
               "compute model: 108 SM [S] A100 whitepaper (stas00 caches table); TF32 156 [S] §1.2; no FP8"},
    {.key = "h100-pcie", .name = "H100 PCIe 80GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 80, .memory_bw_gbs = 2000, .fp16_fp32acc_tflops = 756.0, .fp16_fp16acc_tflops = 756.0,
     .fp32_tflops = 51.0, .pcie_gen = 5, .pcie_width = 16, .nvlink_gen = 4, .nvlink_links = 12,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = true, .p2p_stock = true, .p2p_patchable = false, .sm = 90,
     .tdp_w = 350, .used_price_usd = 0,
     .sm_count = 114, .tf32_tflops = 378, .fp8_tflops = 1513,
     .source = "hardware.md §1.2: H100 PCIe product brief PB-11133-001 (>2000 GB/s, 350 W, Gen5); stas00 "
               "(756 tensor, 51 FP32); NVLink bridge 600 GB/s bidir [R] -> 12 links x 25 GB/s per dir [D]; "
               "compute model: 114 SM [R]; TF32 378 and FP8 1513 [S] stas00 (§1.2)"},
    {.key = "h100-sxm5", .name = "H100 SXM5 80GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 80, .memory_bw_gbs = 3350, .fp16_fp32acc_tflops = 989.4, .fp16_fp16acc_tflops = 989.4,
     .fp32_tflops = 66.9, .pcie_gen = 5, .pcie_width = 16, .nvlink_gen = 4, .nvlink_links = 18,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 90,
     .tdp_w = 700, .used_price_usd = 0,
     .sm_count = 132, .tf32_tflops = 494.7, .fp8_tflops = 1978.9,
     .source = "hardware.md §1.2/§2.5: glennklockwood.com/garden/processors/h100 (3350 GB/s, 989.4, 66.9, "
               "700 W, 900 GB/s NVLink); NVLink4 18 links x 25 GB/s per dir; "
               "compute model: 132 SM, TF32 494.7, FP8 1978.9 [S] glennklockwood.com (§1.2)"},
    {.key = "h200-sxm", .name = "H200 SXM 141GB", .vendor = Vendor::Nvidia, .geforce = false,
     .memory_gb = 141, .memory_bw_gbs = 4800, .fp16_fp32acc_tflops = 989.4, .fp16_fp16acc_tflops = 989.4,
     .fp32_tflops = 66.9, .pcie_gen = 5, .pcie_width = 16, .nvlink_gen = 4, .nvlink_links = 18,
     .nvlink_link_gbs = 25.0, .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 90,
     .tdp_w = 700, .used_price_usd = 0,
     .sm_count = 132, .tf32_tflops = 494.5, .fp8_tflops = 1979,
     .source = "[R] not in hardware.md (used by dev-cases.json p2p-8xh200-*): 141 GB HBM3e 4800 GB/s, 700 W "
               "[R]; compute = H100 SXM5 (same GH100, §1.2) [R]; NVLink4 18 x 25 GB/s per dir (dev case: "
               "NV18); "
               "compute model: 132 SM (caches table), TF32 494.5, FP8 1979 [S] stas00 "
               "compute/accelerator/README.md"},

    // ---- AMD -----------------------------------------------------------------------------------------
    {.key = "rx-6800", .name = "Radeon RX 6800", .vendor = Vendor::Amd, .geforce = false, .memory_gb = 16,
     .memory_bw_gbs = 512, .fp16_fp32acc_tflops = 32.3, .fp16_fp16acc_tflops = 32.3, .fp32_tflops = 16.17,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0, .nvlink_link_gbs = 0,
     .nvlink_bridge = false, .p2p_stock = false, .p2p_patchable = false, .sm = 0, .tdp_w = 250,
     .used_price_usd = 0,
     .sm_count = 60, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: gpu-monkey.com (512 GB/s, 16.17 FP32, 250 W, PCIe 4.0); RDNA2 has no "
               "matrix units [R]: both fp16 fields = packed FP16 32.3 [D] 2 x FP32; consumer card, P2P "
               "treated as off; "
               "compute model: 60 CU [S] §1.2; no matrix units, no FP8"},
    {.key = "rx-7900-xtx", .name = "Radeon RX 7900 XTX", .vendor = Vendor::Amd, .geforce = false,
     .memory_gb = 24, .memory_bw_gbs = 960, .fp16_fp32acc_tflops = 123.0, .fp16_fp16acc_tflops = 123.0,
     .fp32_tflops = 61.4, .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0,
     .nvlink_link_gbs = 0, .nvlink_bridge = false, .p2p_stock = false, .p2p_patchable = false, .sm = 0,
     .tdp_w = 355, .used_price_usd = 0,
     .sm_count = 96, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: guru3d review (960 GB/s, 61.4 FP32 dual-issue, 355 W, PCIe 4.0); WMMA "
               "FP16 ~123 [D] tinybox red 738 / 6; FP16-accumulate rate taken equal [R]; consumer card, P2P "
               "treated off; "
               "compute model: 96 CU [S] §1.2 guru3d; no TF32/FP8 matrix math"},
    {.key = "mi100", .name = "Instinct MI100", .vendor = Vendor::Amd, .geforce = false, .memory_gb = 32,
     .memory_bw_gbs = 1230, .fp16_fp32acc_tflops = 184.6, .fp16_fp16acc_tflops = 184.6, .fp32_tflops = 23.1,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0, .nvlink_link_gbs = 0,
     .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 0, .tdp_w = 300,
     .used_price_usd = 0,
     .sm_count = 120, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: AnandTech 17326 table (184.6 FP16 matrix, 23.1 FP32 vector, 1.23 TB/s, "
               "300 W, PCIe 4.0); BF16 is only 92.3 [R]; 3 Infinity Fabric links not modelled as NVLink "
               "(fields 0); ROCm P2P on Instinct [R]; "
               "compute model: 120 CU [S] AnandTech 17326; no TF32/FP8 (FP32 matrix 46.1 not modelled)"},
    {.key = "mi210", .name = "Instinct MI210", .vendor = Vendor::Amd, .geforce = false, .memory_gb = 64,
     .memory_bw_gbs = 1600, .fp16_fp32acc_tflops = 181.0, .fp16_fp16acc_tflops = 181.0, .fp32_tflops = 22.6,
     .pcie_gen = 4, .pcie_width = 16, .nvlink_gen = 0, .nvlink_links = 0, .nvlink_link_gbs = 0,
     .nvlink_bridge = false, .p2p_stock = true, .p2p_patchable = false, .sm = 0, .tdp_w = 300,
     .used_price_usd = 0,
     .sm_count = 104, .tf32_tflops = 0, .fp8_tflops = 0,
     .source = "hardware.md §1.2: AnandTech 17326 table (181 FP16 matrix, 22.6 FP32 vector, 1.6 TB/s, 300 "
               "W, PCIe 4.0); 3 Infinity Fabric links not modelled as NVLink (fields 0); ROCm P2P on "
               "Instinct [R]; "
               "compute model: 104 CU [S] AnandTech 17326; no TF32/FP8 (FP32 matrix 45.3 not modelled)"},
});
// clang-format on

}  // namespace

std::span<const GpuSpec> gpu_catalog() {
  return kGpus;
}

}  // namespace rigsim::topology
