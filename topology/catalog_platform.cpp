// Platform catalogs: CPU families, chipsets, PCIe switches, NICs and NVSwitch generations. Numbers
// come from ../shared/reference/hardware.md (section given per entry), hardware_facts.json and, for
// NCCL's effective inter-socket bandwidths, nccl.md §d.2. Tags: [R] recalled/unconfirmed, [D] derived.
//
// Choices that apply to several rows:
// - pcie_lanes counts the CPU's PCIe lanes as the references list them. On AMD the chipset link is
//   carved out of those lanes (AM4: 24 = 16 slots + 4 NVMe + 4 chipset); Intel's DMI link to the PCH is
//   a separate port and is NOT counted (Xeon E5: 40 lanes + DMI2 x4). EPYC counts are for one socket in
//   a 1P board: in 2P each xGMI link takes an x16 from each socket (4 links -> 64 lanes per socket left).
// - DRAM bandwidth is channels x MT/s x 8 B [D] at the family's usual rated speed.
// - inter_socket_effective_gbs is what NCCL 2.30.7 assumes (nccl.md §d.2): Intel by CPUID model
//   (< 0x55 BDW_QPI 6, >= 0x55 SKL_QPI 10, >= 0x8F SRP_QPI 22), AMD 16 for every Zen generation. A newer
//   topo.h (hardware.md §2.4) splits AMD into ZEN12 16 / ZEN34 24 / ZEN5 32; we keep the 2.30.7 value
//   because nccl.md is the version rigsim mimics.
// - tdp_w is the top mainstream SKU of the family (all [R]).
#include <array>

#include "topology/catalog.hpp"

namespace rigsim::topology {
namespace {

// Tables keep a few fields per line; clang-format would put each designated initializer on its own.
// clang-format off
constexpr auto kCpus = std::to_array<CpuSpec>({
    // ---- AMD desktop (AM4/AM5): one socket, one host bridge ---------------------------------------
    {.key = "ryzen-1000", .name = "AMD Ryzen 1000 (Zen, AM4)", .vendor = Vendor::Amd, .pcie_gen = 3,
     .pcie_lanes = 24, .memory_channels = 2, .memory_bw_gbs = 42.7, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 23, .cpuid_model = 1,
     .tdp_w = 95,
     .source = "hardware.md §4.2/§5: 24 Gen3 lanes (16 slot + 4 NVMe + 4 chipset; techpowerup forum); 2 x "
               "DDR4-2666 [R] = 42.7 [D]; CPUID 23/0x01 [R]; 95 W (1800X) [R]"},
    {.key = "ryzen-2000", .name = "AMD Ryzen 2000 (Zen+, AM4)", .vendor = Vendor::Amd, .pcie_gen = 3,
     .pcie_lanes = 24, .memory_channels = 2, .memory_bw_gbs = 46.9, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 23, .cpuid_model = 8,
     .tdp_w = 105,
     .source = "hardware.md §4.2/§5: 24 Gen3 lanes (AM4); 2 x DDR4-2933 [R] = 46.9 [D]; CPUID 23/0x08 [R]; "
               "105 W (2700X) [R]"},
    {.key = "ryzen-3000", .name = "AMD Ryzen 3000 (Zen 2, AM4)", .vendor = Vendor::Amd, .pcie_gen = 4,
     .pcie_lanes = 24, .memory_channels = 2, .memory_bw_gbs = 51.2, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 23, .cpuid_model = 113,
     .tdp_w = 105,
     .source = "hardware.md §5: 24 PCIe 4.0 lanes (Zen2/3, non-APU); §2.8: 2 x DDR4-3200 = 51.2 [D]; CPUID "
               "23/0x71 Matisse [R]; 105 W (3950X) [R]"},
    {.key = "ryzen-5000", .name = "AMD Ryzen 5000 (Zen 3, AM4)", .vendor = Vendor::Amd, .pcie_gen = 4,
     .pcie_lanes = 24, .memory_channels = 2, .memory_bw_gbs = 51.2, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 25, .cpuid_model = 33,
     .tdp_w = 105,
     .source = "hardware.md §5: 24 PCIe 4.0 lanes; §2.8: 2 x DDR4-3200 = 51.2 [D]; CPUID 25/0x21 Vermeer "
               "[R]; 105 W (5950X) [R]"},
    {.key = "ryzen-7000", .name = "AMD Ryzen 7000 (Zen 4, AM5)", .vendor = Vendor::Amd, .pcie_gen = 5,
     .pcie_lanes = 28, .memory_channels = 2, .memory_bw_gbs = 83.2, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 25, .cpuid_model = 97,
     .tdp_w = 170,
     .source = "hardware.md §4.2/§5: 28 Gen5 lanes (16 GPU + 4 NVMe + 4 GPP + 4 chipset at Gen4; "
               "gamezoom.net); §2.8 2 x DDR5, DDR5-5200 rating [R] = 83.2 [D]; CPUID 25/0x61 Raphael [R]; "
               "170 W [R]"},

    // ---- AMD Threadripper: one socket, every x16 root port its own host bridge -------------------
    {.key = "threadripper-1000", .name = "AMD Ryzen Threadripper 1000 (Zen, X399)", .vendor = Vendor::Amd,
     .pcie_gen = 3, .pcie_lanes = 64, .memory_channels = 4, .memory_bw_gbs = 85.3, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 23, .cpuid_model = 1,
     .tdp_w = 180,
     .source = "hardware.md §4.2: 64 Gen3 lanes, 4 to chipset (hardwareluxx X399); two dies = two NUMA "
               "nodes in NUMA mode (dev-cases p2p-2x3070Ti-tr2950x-*); root port per x16 as EPYC (§2.7) "
               "[R]; 4 x DDR4-2666 [R] = 85.3 [D]; CPUID 23/0x01 [R]; 180 W [R]"},
    {.key = "threadripper-2000", .name = "AMD Ryzen Threadripper 2000 (Zen+, X399)", .vendor = Vendor::Amd,
     .pcie_gen = 3, .pcie_lanes = 64, .memory_channels = 4, .memory_bw_gbs = 93.9, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 23, .cpuid_model = 8,
     .tdp_w = 250,
     .source = "hardware.md §4.2/§5: 64 Gen3 lanes (60 usable + 4 chipset); 4 x DDR4-2933 [R] = 93.9 [D]; "
               "CPUID 23/0x08 [R]; 250 W (2990WX) [R]"},
    {.key = "threadripper-3000", .name = "AMD Ryzen Threadripper 3000 (Zen 2, TRX40)", .vendor = Vendor::Amd,
     .pcie_gen = 4, .pcie_lanes = 64, .memory_channels = 4, .memory_bw_gbs = 102.4, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 23, .cpuid_model = 49,
     .tdp_w = 280,
     .source = "hardware.md §4.2: 64 PCIe 4.0 CPU lanes (hwsw.hu), 8 of them to the chipset [R]; 4 x "
               "DDR4-3200 = 102.4 [D]; CPUID 23/0x31 [R]; 280 W [R]"},
    {.key = "threadripper-pro-3000", .name = "AMD Threadripper PRO 3000WX (Zen 2, WRX80)",
     .vendor = Vendor::Amd, .pcie_gen = 4, .pcie_lanes = 128, .memory_channels = 8, .memory_bw_gbs = 204.8,
     .root_port_per_x16 = true, .inter_socket = InterSocketKind::None, .inter_socket_links = 0,
     .inter_socket_link_gbs = 0, .inter_socket_effective_gbs = 0, .p2p_across_sockets = false,
     .cpuid_family = 23, .cpuid_model = 49, .tdp_w = 280,
     .source = "hardware.md §4.2/§2.8: 128 PCIe 4.0 lanes, 8 channels (heise.de); 8 x DDR4-3200 = 204.8; "
               "CPUID 23/0x31 [R]; 280 W [R]"},
    {.key = "threadripper-pro-5000", .name = "AMD Threadripper PRO 5000WX (Zen 3, WRX80)",
     .vendor = Vendor::Amd, .pcie_gen = 4, .pcie_lanes = 128, .memory_channels = 8, .memory_bw_gbs = 204.8,
     .root_port_per_x16 = true, .inter_socket = InterSocketKind::None, .inter_socket_links = 0,
     .inter_socket_link_gbs = 0, .inter_socket_effective_gbs = 0, .p2p_across_sockets = false,
     .cpuid_family = 25, .cpuid_model = 8, .tdp_w = 280,
     .source = "hardware.md §4.2/§2.8: 128 PCIe 4.0 lanes, 8 channels (heise.de; 5975WX rigs, train.sh); 8 "
               "x DDR4-3200 = 204.8; CPUID 25/0x08 Chagall [R]; 280 W [R]"},

    // ---- AMD EPYC: per-x16 host bridges (§2.7), xGMI between sockets, P2P across sockets ---------
    {.key = "epyc-7001", .name = "AMD EPYC 7001 (Naples, Zen)", .vendor = Vendor::Amd, .pcie_gen = 3,
     .pcie_lanes = 128, .memory_channels = 8, .memory_bw_gbs = 170.7, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::Xgmi, .inter_socket_links = 4, .inter_socket_link_gbs = 21.3,
     .inter_socket_effective_gbs = 16.0, .p2p_across_sockets = true, .cpuid_family = 23, .cpuid_model = 1,
     .tdp_w = 180,
     .source = "hardware.md §2.6/§5: 128 lanes 1P; 4 x16 socket links at 10.67 GT/s, 42.67 GB/s per link "
               "both directions -> 21.3 per dir [D] (xryan.net); NCCL AMD 16 (nccl.md §d.2); P2P across "
               "sockets extrapolated from Rome [R]; 8 x DDR4-2666 [R] = 170.7 [D]; CPUID 23/0x01 [R]; 180 W "
               "[R]"},
    {.key = "epyc-7002", .name = "AMD EPYC 7002 (Rome, Zen 2)", .vendor = Vendor::Amd, .pcie_gen = 4,
     .pcie_lanes = 128, .memory_channels = 8, .memory_bw_gbs = 204.8, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::Xgmi, .inter_socket_links = 4, .inter_socket_link_gbs = 36.0,
     .inter_socket_effective_gbs = 16.0, .p2p_across_sockets = true, .cpuid_family = 23, .cpuid_model = 49,
     .tdp_w = 225,
     .source = "hardware.md §2.6/§2.7: 8 x16 Gen4 root links, 'full PCIe peer-to-peer support both within a "
               "single socket and across sockets' (AnandTech Rome p.3); xGMI-2 18 GT/s x16 = 36 per dir "
               "[D], 4 links default (3 frees 160 lanes 2P); NCCL AMD 16 (nccl.md §d.2; ZEN34 24 in newer "
               "NCCL); §2.8 204.8; CPUID 23/0x31 [R]; 225 W (7742) [R]"},
    {.key = "epyc-7003", .name = "AMD EPYC 7003 (Milan, Zen 3)", .vendor = Vendor::Amd, .pcie_gen = 4,
     .pcie_lanes = 128, .memory_channels = 8, .memory_bw_gbs = 204.8, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::Xgmi, .inter_socket_links = 4, .inter_socket_link_gbs = 36.0,
     .inter_socket_effective_gbs = 16.0, .p2p_across_sockets = true, .cpuid_family = 25, .cpuid_model = 1,
     .tdp_w = 280,
     .source = "hardware.md §2.6: as Rome (xGMI-2 18 GT/s, 36 per dir [D], 4 links default); NCCL AMD 16 "
               "(nccl.md §d.2; ZEN34 24 in newer NCCL); §2.8 204.8; CPUID 25/0x01 [R]; 280 W (7763) [R]"},
    {.key = "epyc-9004", .name = "AMD EPYC 9004 (Genoa, Zen 4)", .vendor = Vendor::Amd, .pcie_gen = 5,
     .pcie_lanes = 128, .memory_channels = 12, .memory_bw_gbs = 460.8, .root_port_per_x16 = true,
     .inter_socket = InterSocketKind::Xgmi, .inter_socket_links = 4, .inter_socket_link_gbs = 64.0,
     .inter_socket_effective_gbs = 16.0, .p2p_across_sockets = true, .cpuid_family = 25, .cpuid_model = 17,
     .tdp_w = 360,
     .source = "hardware.md §2.6/§2.7/§5: 128 Gen5 lanes 1P, 12 x DDR5-4800 = 460.8 (tomshardware); xGMI-3 "
               "4 links (or 3 for 160 lanes 2P), 32 GT/s [R] x16 = 64 per dir [D]; NCCL AMD 16 (nccl.md "
               "§d.2; ZEN34 24 in newer NCCL); CPUID 25/0x11 [R]; 360 W (9654) [R]"},

    // ---- Intel Xeon: one host bridge per socket, no P2P across QPI/UPI (RVS#289) ----------------
    {.key = "xeon-e5-v1", .name = "Intel Xeon E5-2600 (Sandy Bridge-EP)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 40, .memory_channels = 4, .memory_bw_gbs = 51.2, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::Qpi, .inter_socket_links = 2, .inter_socket_link_gbs = 16.0,
     .inter_socket_effective_gbs = 6.0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 45,
     .tdp_w = 135,
     .source = "hardware.md §5 40 Gen3 lanes (istorya.net) + DMI2 x4; §2.6 QPI 8 GT/s, 2 links, 16 per dir; "
               "§2.8 4 x DDR3-1600 = 51.2; NCCL BDW_QPI 6 (nccl.md §d.2); no P2P across QPI (RVS#289); "
               "CPUID 6/0x2D [R]; 135 W [R]"},
    {.key = "xeon-e5-v2", .name = "Intel Xeon E5-2600 v2 (Ivy Bridge-EP)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 40, .memory_channels = 4, .memory_bw_gbs = 51.2, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::Qpi, .inter_socket_links = 2, .inter_socket_link_gbs = 16.0,
     .inter_socket_effective_gbs = 6.0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 62,
     .tdp_w = 130,
     .source = "hardware.md §5/§2.6/§2.8: 40 Gen3 lanes, QPI 8 GT/s 2 x 16 per dir (xryan.net), 4 x "
               "DDR3-1600 = 51.2 (DDR3-1866 parts exist [R]); NCCL BDW_QPI 6; no P2P across QPI; CPUID "
               "6/0x3E [R]; 130 W [R]"},
    {.key = "xeon-e5-v3", .name = "Intel Xeon E5-2600 v3 (Haswell-EP)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 40, .memory_channels = 4, .memory_bw_gbs = 68.3, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::Qpi, .inter_socket_links = 2, .inter_socket_link_gbs = 19.2,
     .inter_socket_effective_gbs = 6.0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 63,
     .tdp_w = 145,
     .source = "hardware.md §5/§2.6/§2.8: 40 Gen3 lanes, QPI 9.6 GT/s 2 x 19.2 per dir, 4 x DDR4-2133 = "
               "68.3 [D]; NCCL BDW_QPI 6; no P2P across QPI; CPUID 6/0x3F (nccl.md §d.6 example) [R]; 145 W "
               "[R]"},
    {.key = "xeon-e5-v4", .name = "Intel Xeon E5-2600 v4 (Broadwell-EP)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 40, .memory_channels = 4, .memory_bw_gbs = 76.8, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::Qpi, .inter_socket_links = 2, .inter_socket_link_gbs = 19.2,
     .inter_socket_effective_gbs = 6.0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 79,
     .tdp_w = 145,
     .source = "hardware.md §5/§2.6/§2.8: 40 Gen3 lanes (hothardware), QPI 9.6 GT/s 2 x 19.2 per dir (STH), "
               "4 x DDR4-2400 = 76.8 [D]; NCCL BDW_QPI 6; no P2P across QPI; CPUID 6/0x4F [R]; 145 W [R]"},
    {.key = "xeon-scalable-1", .name = "Intel Xeon Scalable 1st gen (Skylake-SP)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 48, .memory_channels = 6, .memory_bw_gbs = 128.0,
     .root_port_per_x16 = false, .inter_socket = InterSocketKind::Upi, .inter_socket_links = 2,
     .inter_socket_link_gbs = 20.8, .inter_socket_effective_gbs = 10.0, .p2p_across_sockets = false,
     .cpuid_family = 6, .cpuid_model = 85, .tdp_w = 205,
     .source = "hardware.md §5/§2.6/§2.8: 48 Gen3 lanes (hdtechnews.com), UPI 10.4 GT/s 20.8 per dir, 2 "
               "links in 2P per the UPI wiki copy (3 on some Gold/Platinum boards [R]), 6 x DDR4-2666 = "
               "128; NCCL SKL_QPI 10 (model >= 0x55); no P2P across UPI (RVS#289: 'No peers found'); 205 W "
               "[R]"},
    {.key = "xeon-scalable-2", .name = "Intel Xeon Scalable 2nd gen (Cascade Lake-SP)",
     .vendor = Vendor::Intel, .pcie_gen = 3, .pcie_lanes = 48, .memory_channels = 6, .memory_bw_gbs = 140.8,
     .root_port_per_x16 = false, .inter_socket = InterSocketKind::Upi, .inter_socket_links = 2,
     .inter_socket_link_gbs = 20.8, .inter_socket_effective_gbs = 10.0, .p2p_across_sockets = false,
     .cpuid_family = 6, .cpuid_model = 85, .tdp_w = 205,
     .source = "hardware.md §5/§2.6/§2.8: 48 Gen3 lanes, UPI 10.4 GT/s 20.8 per dir, 2 links (3 on some "
               "boards [R]), 6 x DDR4-2933 = 140.8 (98 measured, xryan.net); NCCL SKL_QPI 10; no P2P across "
               "UPI; 205 W [R]"},
    {.key = "xeon-scalable-3", .name = "Intel Xeon Scalable 3rd gen (Ice Lake-SP)", .vendor = Vendor::Intel,
     .pcie_gen = 4, .pcie_lanes = 64, .memory_channels = 8, .memory_bw_gbs = 204.8,
     .root_port_per_x16 = false, .inter_socket = InterSocketKind::Upi, .inter_socket_links = 3,
     .inter_socket_link_gbs = 22.4, .inter_socket_effective_gbs = 10.0, .p2p_across_sockets = false,
     .cpuid_family = 6, .cpuid_model = 106, .tdp_w = 270,
     .source = "hardware.md §5/§2.6: 64 Gen4 lanes [R], 8 x DDR4-3200 = 204.8 [D], 3 UPI at 11.2 GT/s = "
               "22.4 per dir [D] (io-tech.fi); NCCL classes model 0x6A as SKL -> 10 (nccl.md §d.2); no P2P "
               "across UPI; CPUID 6/0x6A [R]; 270 W [R]"},
    {.key = "xeon-scalable-4", .name = "Intel Xeon Scalable 4th gen (Sapphire Rapids)",
     .vendor = Vendor::Intel, .pcie_gen = 5, .pcie_lanes = 80, .memory_channels = 8, .memory_bw_gbs = 307.2,
     .root_port_per_x16 = false, .inter_socket = InterSocketKind::Upi, .inter_socket_links = 4,
     .inter_socket_link_gbs = 32.0, .inter_socket_effective_gbs = 22.0, .p2p_across_sockets = false,
     .cpuid_family = 6, .cpuid_model = 143, .tdp_w = 350,
     .source = "hardware.md §5/§2.6: 80 Gen5 lanes (i2hard.ru), 8 x DDR5-4800 = 307.2 [D], 4 UPI 2.0 at 16 "
               "GT/s = 32 per dir [D] (io-tech.fi); NCCL SRP_QPI 22 (model >= 0x8F); no P2P across UPI; "
               "CPUID 6/0x8F [R]; 350 W [R]"},

    // ---- Intel desktop: one socket, one host bridge; DMI to the PCH not counted in pcie_lanes ------
    {.key = "core-desktop-6", .name = "Intel Core 6th-9th gen (Skylake-S to Coffee Lake-S)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 16, .memory_channels = 2, .memory_bw_gbs = 34.1, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 94,
     .tdp_w = 65,
     .source = "16 CPU PCIe 3.0 lanes, chipset on DMI 3.0 (AnandTech Skylake review 9483 p5; tomshardware "
               "answers 3014974: 'Intel CPU = 16 PCI-E 3.0 lanes'); 2 x DDR4-2133 = 34.1 [D]; CPUID 6/0x5E "
               "(Skylake-S) [R]; 65 W (i7-6700; 6700K 91 W) [R]"},
    {.key = "core-hedt-haswell-e", .name = "Intel Core i7 5000 HEDT (Haswell-E, X99)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 40, .memory_channels = 4, .memory_bw_gbs = 68.3, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 63,
     .tdp_w = 140,
     .source = "40 PCIe 3.0 lanes on the i7-5930K/5960X, 28 on the i7-5820K (set the host bridge's lanes) "
               "(hardwareluxx MSI X99S SLI Krait test p3: 'Core i7-5930K und der Core i7-5960X mit ihren 40 "
               "Lanes'); 4 x DDR4-2133 = 68.3 [D]; CPUID 6/0x3F (Haswell-E) [R]; 140 W [R]"},
    {.key = "core-desktop-10", .name = "Intel Core 10th gen (Comet Lake-S)", .vendor = Vendor::Intel,
     .pcie_gen = 3, .pcie_lanes = 16, .memory_channels = 2, .memory_bw_gbs = 46.9, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 165,
     .tdp_w = 125,
     .source = "hardware.md §4.2/§5: 16 CPU lanes + DMI 3.0 x4; 2 x DDR4-2933 [R] = 46.9 [D]; CPUID 6/0xA5 "
               "[R]; 125 W (10900K) [R]"},
    {.key = "core-desktop-12", .name = "Intel Core 12th gen (Alder Lake-S)", .vendor = Vendor::Intel,
     .pcie_gen = 5, .pcie_lanes = 20, .memory_channels = 2, .memory_bw_gbs = 76.8, .root_port_per_x16 = false,
     .inter_socket = InterSocketKind::None, .inter_socket_links = 0, .inter_socket_link_gbs = 0,
     .inter_socket_effective_gbs = 0, .p2p_across_sockets = false, .cpuid_family = 6, .cpuid_model = 151,
     .tdp_w = 125,
     .source = "hardware.md §4.2/§5: 16 Gen5 (x16 or x8/x8) + 4 Gen4 lanes + DMI 4.0 x8 (the 4 Gen4 lanes "
               "are counted at the family's gen 5); §2.8 2 x DDR5-4800 = 76.8 [D]; CPUID 6/0x97 [R]; 125 W "
               "[R]"},
});

constexpr auto kChipsets = std::to_array<ChipsetSpec>({
    {.key = "x370", .name = "AMD X370", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 2,
     .downstream_lanes = 8,
     .source = "hardware.md §4.2: 8 PCIe 2.0 lanes, allows x8/x8 (techpowerup forum); uplink = the CPU's "
               "Gen3 x4 chipset link (§5) [R]"},
    {.key = "b450", .name = "AMD B450", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 2,
     .downstream_lanes = 6,
     .source = "hardware.md §4.2: uplink PCIe3 x4 [R]; Gen2 downstream, second x16 slot is chipset x4 Gen2 "
               "[R]; 6 lanes [R]"},
    {.key = "x470", .name = "AMD X470", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 2,
     .downstream_lanes = 8,
     .source = "hardware.md §4.2: x8/x8 CPU split; chipset as X370 (8 Gen2 lanes) [R]; uplink Gen3 x4 [R]"},
    {.key = "x570", .name = "AMD X570", .uplink_gen = 4, .uplink_width = 4, .downstream_gen = 4,
     .downstream_lanes = 16,
     .source = "hardware.md §4.2: chipset link PCIe 4.0 x4, up to 16 Gen4 lanes sharing it (hardforum)"},
    {.key = "b550", .name = "AMD B550", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 3,
     .downstream_lanes = 10,
     .source = "hardware.md §4.2: chipset link PCIe 3.0 x4 (computerbase forum, MSI B550 Unify); 10 Gen3 "
               "downstream lanes [R]"},
    {.key = "x670e", .name = "AMD X670E (two Promontory 21)", .uplink_gen = 4, .uplink_width = 4,
     .downstream_gen = 4, .downstream_lanes = 12,
     .source = "hardware.md §4.2: two daisy-chained Promontory 21 behind one PCIe 4.0 x4 uplink "
               "(gamezoom.net); 12 Gen4 downstream lanes (+8 Gen3 not counted) [R]"},
    {.key = "x399", .name = "AMD X399", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 2,
     .downstream_lanes = 8,
     .source = "hardware.md §4.2: 4 CPU lanes to the chipset, chipset adds 8 Gen2 (hardwareluxx X399; "
               "pcper)"},
    {.key = "trx40", .name = "AMD TRX40", .uplink_gen = 4, .uplink_width = 8, .downstream_gen = 4,
     .downstream_lanes = 16,
     .source = "hardware.md §4.2: +16 Gen4 lanes from the chipset (hwsw.hu); uplink Gen4 x8 [R]"},
    {.key = "wrx80", .name = "AMD WRX80", .uplink_gen = 4, .uplink_width = 8, .downstream_gen = 4,
     .downstream_lanes = 16,
     .source = "hardware.md §4.2 names WRX80 only; uplink Gen4 x8 and 16 Gen4 lanes taken as TRX40 (same "
               "Promontory silicon) [R]"},
    {.key = "z170", .name = "Intel Z170", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 3,
     .downstream_lanes = 20,
     .source = "AnandTech Skylake review 9483 p5: '26 High Speed IO Lanes (20x PCIe 3.0)'; DMI 3.0 = PCIe 3.0 "
               "x4 (tomshardware answers 3014974: 'essentially limited to a PCI-E 3.0 x4 connection')"},
    {.key = "x99", .name = "Intel X99 (Haswell-E / Broadwell-E PCH)", .uplink_gen = 2, .uplink_width = 4,
     .downstream_gen = 2, .downstream_lanes = 8,
     .source = "DMI 2.0 x4: '5 GT/s ... 2 GB/s in each direction' (Intel datasheet quoted on pcdvd.com.tw "
               "1084898608); chipset slots and M.2 fall back to PCIe 2.0 (hardwareluxx MSI X99S SLI Krait "
               "p3); 8 Gen2 lanes as its X79 predecessor (techpowerup Rampage IV Black p2) [R]"},
    {.key = "z490", .name = "Intel Z490", .uplink_gen = 3, .uplink_width = 4, .downstream_gen = 3,
     .downstream_lanes = 24,
     .source = "hardware.md §5: DMI x4 Gen3 for <= 11th gen; 24 Gen3 downstream lanes [R]"},
    {.key = "z690", .name = "Intel Z690", .uplink_gen = 4, .uplink_width = 8, .downstream_gen = 4,
     .downstream_lanes = 12,
     .source = "hardware.md §4.2: DMI 4.0 x8 (~PCIe 4.0 x8); 12 Gen4 (+16 Gen3 not counted) downstream "
               "(mbreview.com/AnandTech)"},
    {.key = "z790", .name = "Intel Z790", .uplink_gen = 4, .uplink_width = 8, .downstream_gen = 4,
     .downstream_lanes = 20,
     .source = "hardware.md §4.2: DMI 4.0 x8; 20 Gen4 (+8 Gen3 not counted) downstream (guru3d 13600K "
               "review)"},
    {.key = "c602", .name = "Intel C602 (Xeon E5 v1/v2 PCH)", .uplink_gen = 2, .uplink_width = 4,
     .downstream_gen = 2, .downstream_lanes = 8,
     .source = "DMI 2.0 x4 = Gen2 x4 [R]; 8 Gen2 downstream lanes [R] (not in hardware.md)"},
    {.key = "c612", .name = "Intel C612 (Xeon E5 v3/v4 PCH)", .uplink_gen = 2, .uplink_width = 4,
     .downstream_gen = 2, .downstream_lanes = 8,
     .source = "DMI 2.0 x4 = Gen2 x4 [R]; 8 Gen2 downstream lanes [R] (not in hardware.md)"},
    {.key = "c621", .name = "Intel C621 (Xeon Scalable 1/2 PCH)", .uplink_gen = 3, .uplink_width = 4,
     .downstream_gen = 3, .downstream_lanes = 20,
     .source = "DMI 3.0 x4 = Gen3 x4 [R]; 20 Gen3 downstream lanes [R] (not in hardware.md)"},
});

constexpr auto kSwitches = std::to_array<SwitchSpec>({
    {.key = "pex8648", .name = "Broadcom/PLX PEX 8648", .vendor = Vendor::Broadcom, .gen = 2, .lanes = 48,
     .latency_ns = 140, .p2p = true, .source = "hardware.md §3: product brief (48 lanes, 12 ports, 140 ns)"},
    {.key = "pex8747", .name = "Broadcom/PLX PEX 8747", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 48,
     .latency_ns = 100, .p2p = true,
     .source = "hardware.md §3: PEX 8747 product brief (48 lanes, 5 ports, 100 ns, P2P)"},
    {.key = "pex8748", .name = "Broadcom/PLX PEX 8748", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 48,
     .latency_ns = 100, .p2p = true,
     .source = "hardware.md §3: datasheet.eeworld.com.cn (48 lanes, 12 ports, 100 ns)"},
    {.key = "pex8749", .name = "Broadcom/PLX PEX 8749", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 48,
     .latency_ns = 126, .p2p = true,
     .source = "hardware.md §3: grokipedia summary (48 lanes, 18 ports, DMA, 126 ns)"},
    {.key = "pex8764", .name = "Broadcom/PLX PEX 8764", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 64,
     .latency_ns = 150, .p2p = true,
     .source = "not in hardware.md: 64 lanes [R]; latency taken as the PEX 8796 (same family, §3) 150 ns "
               "[R]"},
    {.key = "pex8780", .name = "Broadcom/PLX PEX 8780", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 80,
     .latency_ns = 150, .p2p = true,
     .source = "not in hardware.md: 80 lanes [R]; latency taken as the PEX 8796 (same family, §3) 150 ns "
               "[R]"},
    {.key = "pex8796", .name = "Broadcom/PLX PEX 8796", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 96,
     .latency_ns = 150, .p2p = true,
     .source = "hardware.md §3: PEX8796 datasheet (xonelec.com copy): 96 lanes, 24 ports, 150 ns, P2P"},
    {.key = "pex9797", .name = "Broadcom/PLX PEX 9797", .vendor = Vendor::Broadcom, .gen = 3, .lanes = 97,
     .latency_ns = 150, .p2p = true,
     .source = "hardware.md §3: AnandTech PEX9700 announcement; 97 lanes [R] from the part number; ~150 ns "
               "[D] (PEX88000 at 105 ns claims 30% lower than PEX9700)"},
    {.key = "pex88096", .name = "Broadcom PEX 88096", .vendor = Vendor::Broadcom, .gen = 4, .lanes = 96,
     .latency_ns = 105, .p2p = true,
     .source = "hardware.md §3: Linley Newsletter 2019-09-24, aichiplink.com (96 lanes, 105 ns, 36 W)"},
    {.key = "pex89104", .name = "Broadcom PEX 89104", .vendor = Vendor::Broadcom, .gen = 5, .lanes = 104,
     .latency_ns = 115, .p2p = true,
     .source = "hardware.md §3: 104 lanes (probsee.com, hyper-server.com); latency as PEX 89144 115 ns [R]"},
    {.key = "pex89144", .name = "Broadcom PEX 89144", .vendor = Vendor::Broadcom, .gen = 5, .lanes = 144,
     .latency_ns = 115, .p2p = true, .source = "hardware.md §3: probsee.com (144 lanes, 115 ns)"},
    {.key = "switchtec-pfx-gen4", .name = "Microchip Switchtec PFX Gen4 (PM40100)",
     .vendor = Vendor::Microchip, .gen = 4, .lanes = 100, .latency_ns = 150, .p2p = true,
     .source = "hardware.md §3: Linley 2021-03-09 (28-100 lanes; 100-lane part, C-Payne PM40100 board); "
               "latency not found (§6.10): 150 ns assumed, the top of the 100-150 ns Broadcom range [R]"},
    {.key = "switchtec-pfx-gen5", .name = "Microchip Switchtec PFX Gen5 (PM50100)",
     .vendor = Vendor::Microchip, .gen = 5, .lanes = 100, .latency_ns = 150, .p2p = true,
     .source = "hardware.md §3: C-Payne PM50100 Gen5 100-lane board; latency not found: 150 ns assumed [R]"},
});

constexpr auto kNics = std::to_array<NicSpec>({
    {.key = "connectx-3-fdr", .name = "Mellanox ConnectX-3 FDR", .vendor = Vendor::Mellanox, .speed_gbps = 56,
     .ports = 1, .pcie_gen = 3, .pcie_width = 8, .gpudirect_rdma = true,
     .source = "hardware.md §2.9: FDR 56 nominal (54.5 usable), fits Gen3 x8; single-port card chosen [R]; "
               "GPUDirect RDMA ConnectX-3 and later [R]"},
    {.key = "connectx-4-100g", .name = "Mellanox ConnectX-4 EDR/100GbE", .vendor = Vendor::Mellanox,
     .speed_gbps = 100, .ports = 1, .pcie_gen = 3, .pcie_width = 16, .gpudirect_rdma = true,
     .source = "hardware.md §2.9: EDR/100GbE needs Gen3 x16; §4.1 ConnectX-4 100GbE in 4028GR-TR2; single "
               "port [R]; GPUDirect RDMA [R]"},
    {.key = "connectx-5-100g", .name = "Mellanox ConnectX-5 EDR/100GbE", .vendor = Vendor::Mellanox,
     .speed_gbps = 100, .ports = 1, .pcie_gen = 3, .pcie_width = 16, .gpudirect_rdma = true,
     .source = "hardware.md §2.9: 100 Gb/s needs Gen3 x16; single port, Gen3 (non-Ex) [R]; GPUDirect RDMA "
               "[R]"},
    {.key = "connectx-6-200g", .name = "Mellanox ConnectX-6 HDR/200GbE", .vendor = Vendor::Mellanox,
     .speed_gbps = 200, .ports = 1, .pcie_gen = 4, .pcie_width = 16, .gpudirect_rdma = true,
     .source = "hardware.md §2.9: HDR 200 Gb/s needs Gen4 x16; single port [R]; GPUDirect RDMA [R]"},
    {.key = "connectx-6dx-100g", .name = "NVIDIA ConnectX-6 Dx 2x100GbE", .vendor = Vendor::Mellanox,
     .speed_gbps = 100, .ports = 2, .pcie_gen = 4, .pcie_width = 16, .gpudirect_rdma = true,
     .source = "not in hardware.md: dual-port 100GbE part (MCX623106AN) is Gen4 x16 [R] - a Gen4 x8 host "
               "link (126 Gb/s) could not carry two 100G ports; GPUDirect RDMA [R]"},
    {.key = "connectx-7-400g", .name = "NVIDIA ConnectX-7 NDR/400GbE", .vendor = Vendor::Mellanox,
     .speed_gbps = 400, .ports = 1, .pcie_gen = 5, .pcie_width = 16, .gpudirect_rdma = true,
     .source = "hardware.md §2.9: NDR 400 Gb/s; Gen5 x16, single port [R]; GPUDirect RDMA [R]"},
    {.key = "intel-x540-10g", .name = "Intel X540 10GBASE-T", .vendor = Vendor::Intel, .speed_gbps = 10,
     .ports = 2, .pcie_gen = 2, .pcie_width = 8, .gpudirect_rdma = false,
     .source = "not in hardware.md: dual port, PCIe 2.1 x8 [R]; Intel Ethernet has no GPUDirect RDMA [R]"},
    {.key = "intel-x550-10g", .name = "Intel X550 10GBASE-T", .vendor = Vendor::Intel, .speed_gbps = 10,
     .ports = 2, .pcie_gen = 3, .pcie_width = 4, .gpudirect_rdma = false,
     .source = "hardware.md §4.2 (dual 10GbE X550 on ROMED8-2T); PCIe 3.0 x4 [R]; no GPUDirect RDMA [R]"},
    {.key = "intel-i350-1g", .name = "Intel I350 1GbE", .vendor = Vendor::Intel, .speed_gbps = 1, .ports = 2,
     .pcie_gen = 2, .pcie_width = 4, .gpudirect_rdma = false,
     .source = "not in hardware.md: PCIe 2.1 x4, dual-port server-board variant [R]; no GPUDirect RDMA [R]"},
    {.key = "aquantia-aqc107-10g", .name = "Aquantia (Marvell) AQC107 10GbE", .vendor = Vendor::Other,
     .speed_gbps = 10, .ports = 1, .pcie_gen = 3, .pcie_width = 4, .gpudirect_rdma = false,
     .source = "not in hardware.md: single port, PCIe 3.0 x4 [R]; no GPUDirect RDMA [R]"},
});

constexpr auto kNvSwitches = std::to_array<NvSwitchSpec>({
    {.key = "nvswitch-gen1", .name = "NVSwitch gen 1 (DGX-2, V100)", .nvlink_gen = 2, .ports = 18,
     .link_gbs = 25.0,
     .source = "18 NVLink2 ports [R]; 25 GB/s per dir per NVLink2 link (hardware.md §2.5, textbookofai.com)"},
    {.key = "nvswitch-gen2", .name = "NVSwitch gen 2 (DGX/HGX A100)", .nvlink_gen = 3, .ports = 36,
     .link_gbs = 25.0, .source = "36 NVLink3 ports [R]; 25 GB/s per dir per NVLink3 link (hardware.md §2.5)"},
    {.key = "nvswitch-gen3", .name = "NVSwitch gen 3 (DGX/HGX H100)", .nvlink_gen = 4, .ports = 64,
     .link_gbs = 25.0,
     .source = "64 NVLink4 ports [R]; 25 GB/s per dir per NVLink4 link (hardware.md §2.5: 18 links, 900 "
               "GB/s bidir)"},
});
// clang-format on

}  // namespace

std::span<const CpuSpec> cpu_catalog() {
  return kCpus;
}
std::span<const ChipsetSpec> chipset_catalog() {
  return kChipsets;
}
std::span<const SwitchSpec> switch_catalog() {
  return kSwitches;
}
std::span<const NicSpec> nic_catalog() {
  return kNics;
}
std::span<const NvSwitchSpec> nvswitch_catalog() {
  return kNvSwitches;
}

}  // namespace rigsim::topology
