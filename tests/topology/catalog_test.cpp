#include "topology/catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace rigsim::topology {
namespace {

// Keys are lowercase words of [a-z0-9] joined by single hyphens.
bool is_lowercase_hyphenated(std::string_view key) {
  if (key.empty() || key.front() == '-' || key.back() == '-') return false;
  char previous = '\0';
  for (const char c : key) {
    const bool ok = std::islower(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || (c == '-' && previous != '-');
    if (!ok) return false;
    previous = c;
  }
  return true;
}

template <typename List>
void expect_well_formed_keys_and_sources(const List& table, const std::string& catalog) {
  using Spec = std::remove_cvref_t<decltype(*table.begin())>;
  ASSERT_FALSE(table.empty()) << catalog;
  std::set<std::string_view> seen;
  for (const Spec& spec : table) {
    EXPECT_TRUE(is_lowercase_hyphenated(spec.key)) << catalog << ": bad key \"" << spec.key << "\"";
    EXPECT_TRUE(seen.insert(spec.key).second) << catalog << ": duplicate key \"" << spec.key << "\"";
    EXPECT_FALSE(spec.name.empty()) << catalog << " " << spec.key << ": empty name";
    EXPECT_FALSE(spec.source.empty()) << catalog << " " << spec.key << ": empty source";
  }
}

template <typename List>
void expect_keys_listed_in_order(const List& table, const std::vector<std::string>& keys) {
  ASSERT_EQ(keys.size(), table.size());
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(keys[i], table[i].key);
}

bool is_pcie_width(int width) {
  return width == 1 || width == 2 || width == 4 || width == 8 || width == 16;
}

// ---- catalog-wide shape ---------------------------------------------------------------------------

TEST(Catalog, KeysAreUniqueLowercaseHyphenatedAndEveryEntryHasASource) {
  expect_well_formed_keys_and_sources(gpu_catalog(), "gpu");
  expect_well_formed_keys_and_sources(cpu_catalog(), "cpu");
  expect_well_formed_keys_and_sources(chipset_catalog(), "chipset");
  expect_well_formed_keys_and_sources(switch_catalog(), "switch");
  expect_well_formed_keys_and_sources(nic_catalog(), "nic");
  expect_well_formed_keys_and_sources(nvswitch_catalog(), "nvswitch");
  for (const PcieGenSpec& g : pcie_generations()) EXPECT_FALSE(g.source.empty()) << "PCIe gen " << g.gen;
}

TEST(Catalog, KeyListsFollowTheTables) {
  expect_keys_listed_in_order(gpu_catalog(), gpu_keys());
  expect_keys_listed_in_order(cpu_catalog(), cpu_keys());
  expect_keys_listed_in_order(chipset_catalog(), chipset_keys());
  expect_keys_listed_in_order(switch_catalog(), switch_keys());
  expect_keys_listed_in_order(nic_catalog(), nic_keys());
  expect_keys_listed_in_order(nvswitch_catalog(), nvswitch_keys());
}

TEST(Catalog, KeysThatLayoutsUseArePresent) {
  for (const char* key : {"rtx-3060-12gb",  "rtx-3090",       "rtx-3090-ti",    "rtx-4090",
                          "rtx-5090",       "titan-rtx",      "rtx-2080-ti",    "rtx-a4000",
                          "rtx-a5000",      "rtx-a6000",      "rtx-6000-ada",   "l40s",
                          "tesla-k80",      "tesla-m40",      "tesla-p40",      "tesla-p100-pcie-16gb",
                          "v100-pcie",      "v100-sxm2",      "a100-pcie-40gb", "a100-pcie-80gb",
                          "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-pcie",      "h100-sxm5",
                          "rx-6800",        "rx-7900-xtx",    "mi100",          "mi210"}) {
    EXPECT_NE(find_gpu(key), nullptr) << key;
  }
  for (const char* key : {"ryzen-1000",
                          "ryzen-2000",
                          "ryzen-3000",
                          "ryzen-5000",
                          "ryzen-7000",
                          "threadripper-1000",
                          "threadripper-2000",
                          "threadripper-3000",
                          "threadripper-pro-3000",
                          "threadripper-pro-5000",
                          "epyc-7001",
                          "epyc-7002",
                          "epyc-7003",
                          "epyc-9004",
                          "xeon-e5-v1",
                          "xeon-e5-v2",
                          "xeon-e5-v3",
                          "xeon-e5-v4",
                          "xeon-scalable-1",
                          "xeon-scalable-2",
                          "xeon-scalable-3",
                          "xeon-scalable-4",
                          "core-desktop-10",
                          "core-desktop-12"}) {
    EXPECT_NE(find_cpu(key), nullptr) << key;
  }
  for (const char* key :
       {"b450", "x470", "x570", "b550", "x670e", "x399", "trx40", "wrx80", "z690", "z790", "c602", "c612"}) {
    EXPECT_NE(find_chipset(key), nullptr) << key;
  }
  for (const char* key : {"pex8747", "pex8748", "pex8749", "pex8764", "pex8780", "pex8796", "pex9797",
                          "pex88096", "pex89144", "switchtec-pfx-gen4"}) {
    EXPECT_NE(find_switch(key), nullptr) << key;
  }
  for (const char* key :
       {"connectx-3-fdr", "connectx-4-100g", "connectx-5-100g", "connectx-6-200g", "connectx-6dx-100g",
        "connectx-7-400g", "intel-x540-10g", "intel-x550-10g", "intel-i350-1g", "aquantia-aqc107-10g"}) {
    EXPECT_NE(find_nic(key), nullptr) << key;
  }
  for (const char* key : {"nvswitch-gen1", "nvswitch-gen2", "nvswitch-gen3", "nvswitch-gen4"}) {
    EXPECT_NE(find_nvswitch(key), nullptr) << key;
  }
}

TEST(Catalog, FindReturnsTheEntryWithThatKey) {
  const GpuSpec* gpu = find_gpu("rtx-3090");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->key, "rtx-3090");
  EXPECT_EQ(gpu->memory_gb, 24);
  EXPECT_EQ(find_cpu("epyc-7002")->key, "epyc-7002");
  EXPECT_EQ(find_chipset("x570")->key, "x570");
  EXPECT_EQ(find_switch("pex8747")->key, "pex8747");
  EXPECT_EQ(find_nic("connectx-4-100g")->key, "connectx-4-100g");
  EXPECT_EQ(find_nvswitch("nvswitch-gen2")->key, "nvswitch-gen2");
}

TEST(Catalog, UnknownKeyGivesNullptr) {
  EXPECT_EQ(find_gpu("rtx-9090"), nullptr);
  EXPECT_EQ(find_gpu("RTX-3090"), nullptr);  // keys are case-sensitive
  EXPECT_EQ(find_gpu(""), nullptr);
  EXPECT_EQ(find_cpu("xeon-e5-v9"), nullptr);
  EXPECT_EQ(find_chipset("z999"), nullptr);
  EXPECT_EQ(find_switch("generic-gen3"), nullptr);
  EXPECT_EQ(find_nic("connectx-9"), nullptr);
  EXPECT_EQ(find_nvswitch("nvswitch-gen9"), nullptr);
}

TEST(Catalog, EnumNamesAreDistinct) {
  std::set<std::string_view> vendors;
  for (Vendor v : {Vendor::Nvidia, Vendor::Amd, Vendor::Intel, Vendor::Broadcom, Vendor::Microchip,
                   Vendor::Mellanox, Vendor::Other}) {
    EXPECT_TRUE(vendors.insert(to_string(v)).second) << to_string(v);
  }
  std::set<std::string_view> kinds;
  for (InterSocketKind k :
       {InterSocketKind::None, InterSocketKind::Qpi, InterSocketKind::Upi, InterSocketKind::Xgmi}) {
    EXPECT_TRUE(kinds.insert(to_string(k)).second) << to_string(k);
  }
}

// ---- PCIe ---------------------------------------------------------------------------------------

TEST(Pcie, GenerationsOneToSixInOrder) {
  const auto gens = pcie_generations();
  ASSERT_EQ(gens.size(), 6u);
  for (std::size_t i = 0; i < gens.size(); ++i) {
    EXPECT_EQ(gens[i].gen, static_cast<int>(i) + 1);
    EXPECT_EQ(&pcie_gen(gens[i].gen), &gens[i]);
  }
  EXPECT_THROW(pcie_gen(0), std::out_of_range);
  EXPECT_THROW(pcie_gen(7), std::out_of_range);
}

TEST(Pcie, LinkBandwidthIsWidthTimesLaneRate) {
  // hardware.md §2.1: x16 per direction 4.0 / 8.0 / 15.75 / 31.5 / 63.0 GB/s for Gen1..5.
  EXPECT_NEAR(pcie_link_gbs(1, 16), 4.0, 0.1);
  EXPECT_NEAR(pcie_link_gbs(2, 16), 8.0, 0.1);
  EXPECT_NEAR(pcie_link_gbs(3, 16), 15.75, 0.1);
  EXPECT_NEAR(pcie_link_gbs(4, 16), 31.5, 0.1);
  EXPECT_NEAR(pcie_link_gbs(5, 16), 63.0, 0.1);
  EXPECT_NEAR(pcie_link_gbs(3, 1), 0.985, 1e-9);
  EXPECT_THROW(pcie_link_gbs(0, 16), std::out_of_range);
  EXPECT_THROW(pcie_link_gbs(4, 0), std::out_of_range);
}

TEST(Pcie, LinkBandwidthGrowsWithGenerationAndWidth) {
  for (int width : {1, 2, 4, 8, 16}) {
    for (int gen = 2; gen <= 6; ++gen) {
      EXPECT_GT(pcie_link_gbs(gen, width), pcie_link_gbs(gen - 1, width)) << "x" << width << " gen " << gen;
    }
  }
  for (int gen = 1; gen <= 6; ++gen) {
    for (int width : {2, 4, 8, 16}) {
      EXPECT_GT(pcie_link_gbs(gen, width), pcie_link_gbs(gen, width / 2)) << "x" << width << " gen " << gen;
    }
  }
}

// ---- GPUs ---------------------------------------------------------------------------------------

TEST(Gpus, PhysicalQuantitiesArePlausible) {
  for (const GpuSpec& g : gpu_catalog()) {
    SCOPED_TRACE(std::string(g.key));
    EXPECT_GT(g.memory_gb, 0);
    EXPECT_GT(g.memory_bw_gbs, 100);
    EXPECT_GT(g.fp32_tflops, 1);
    EXPECT_GT(g.fp16_fp32acc_tflops, 0);
    EXPECT_LE(g.fp16_fp32acc_tflops, g.fp16_fp16acc_tflops);
    EXPECT_GE(g.pcie_gen, 1);
    EXPECT_LE(g.pcie_gen, 6);
    EXPECT_TRUE(is_pcie_width(g.pcie_width));
    EXPECT_GT(g.tdp_w, 50);
    EXPECT_GE(g.used_price_usd, 0);
  }
}

TEST(Gpus, GeForceAmpereAdaBlackwellRunFp32AccumulateAtHalfRate) {
  // hardware.md §1.2: GeForce FP16 tensor with FP32 accumulate = FP16 accumulate / 2 (e.g. 3090: 71 vs 142).
  int checked = 0;
  for (const GpuSpec& g : gpu_catalog()) {
    if (!g.geforce || g.sm < 86) continue;
    EXPECT_NEAR(g.fp16_fp32acc_tflops, g.fp16_fp16acc_tflops / 2, 0.1) << g.key;
    ++checked;
  }
  EXPECT_GE(checked, 5);  // 3060, 3090, 3090 Ti, 4090, 5090
}

TEST(Gpus, ProAndDatacenterNvidiaRunBothAccumulationsAtFullRate) {
  for (const GpuSpec& g : gpu_catalog()) {
    if (g.geforce || g.vendor != Vendor::Nvidia) continue;
    // The L40 is the documented exception: its datasheet gives 181.05 TFLOPS with FP32 accumulate
    // and 362.1 with FP16 accumulate (the L40S runs both at 362).
    if (g.key == "l40") {
      EXPECT_NEAR(g.fp16_fp32acc_tflops, g.fp16_fp16acc_tflops / 2, 0.1);
      continue;
    }
    EXPECT_DOUBLE_EQ(g.fp16_fp32acc_tflops, g.fp16_fp16acc_tflops) << g.key;
  }
}

TEST(Gpus, NvlinkFieldsAreConsistent) {
  for (const GpuSpec& g : gpu_catalog()) {
    SCOPED_TRACE(std::string(g.key));
    const bool has_nvlink = g.nvlink_gen > 0;
    EXPECT_EQ(g.nvlink_links > 0, has_nvlink);
    EXPECT_EQ(g.nvlink_link_gbs > 0, has_nvlink);
    if (!has_nvlink) {
      EXPECT_FALSE(g.nvlink_bridge);
    }
    if (g.vendor != Vendor::Nvidia) {
      EXPECT_FALSE(has_nvlink);
    }
  }
  // hardware.md §2.5.
  EXPECT_DOUBLE_EQ(find_gpu("rtx-3090")->nvlink_links * find_gpu("rtx-3090")->nvlink_link_gbs, 56.25);
  EXPECT_DOUBLE_EQ(find_gpu("v100-sxm2")->nvlink_links * find_gpu("v100-sxm2")->nvlink_link_gbs, 150.0);
  EXPECT_DOUBLE_EQ(find_gpu("a100-sxm4-80gb")->nvlink_links * find_gpu("a100-sxm4-80gb")->nvlink_link_gbs,
                   300.0);
  EXPECT_DOUBLE_EQ(find_gpu("h100-sxm5")->nvlink_links * find_gpu("h100-sxm5")->nvlink_link_gbs, 450.0);
  EXPECT_DOUBLE_EQ(find_gpu("titan-rtx")->nvlink_links * find_gpu("titan-rtx")->nvlink_link_gbs, 50.0);
  EXPECT_FALSE(find_gpu("v100-sxm2")->nvlink_bridge);
  EXPECT_TRUE(find_gpu("rtx-3090")->nvlink_bridge);
  EXPECT_EQ(find_gpu("rtx-4090")->nvlink_gen, 0);
  EXPECT_EQ(find_gpu("tesla-p100-pcie-16gb")->nvlink_gen, 0);
}

TEST(Gpus, ConsumerCardsHaveNoStockP2pAndOnlyTheyArePatchable) {
  for (const GpuSpec& g : gpu_catalog()) {
    if (g.geforce) {
      EXPECT_FALSE(g.p2p_stock) << g.key;
    }
    if (g.p2p_patchable) {
      EXPECT_FALSE(g.p2p_stock) << g.key;
    }
  }
  for (const char* key : {"rtx-3090", "rtx-3090-ti", "rtx-4090", "rtx-5090"}) {
    EXPECT_TRUE(find_gpu(key)->p2p_patchable) << key;
  }
  for (const char* key : {"rx-6800", "rx-7900-xtx"}) EXPECT_FALSE(find_gpu(key)->p2p_stock) << key;
  for (const char* key : {"rtx-a6000", "l40s", "tesla-p40", "v100-pcie", "a100-pcie-80gb", "h100-pcie"}) {
    EXPECT_TRUE(find_gpu(key)->p2p_stock) << key;
  }
}

TEST(Gpus, ComputeCapabilityMatchesTheArchitecture) {
  for (const GpuSpec& g : gpu_catalog()) {
    if (g.vendor == Vendor::Amd) {
      EXPECT_EQ(g.sm, 0) << g.key;
    } else {
      EXPECT_GE(g.sm, 30) << g.key;
    }
  }
  const std::vector<std::pair<const char*, int>> expected = {
      {"rtx-3060-12gb", 86}, {"rtx-3090", 86},       {"rtx-a6000", 86}, {"rtx-4090", 89},
      {"l40s", 89},          {"rtx-5090", 120},      {"titan-rtx", 75}, {"rtx-2080-ti", 75},
      {"tesla-k80", 37},     {"tesla-m40", 52},      {"tesla-p40", 61}, {"tesla-p100-pcie-16gb", 60},
      {"v100-sxm2", 70},     {"a100-pcie-40gb", 80}, {"h100-sxm5", 90}};
  for (const auto& [key, sm] : expected) EXPECT_EQ(find_gpu(key)->sm, sm) << key;
}

// ---- CPUs ---------------------------------------------------------------------------------------

TEST(Cpus, SingleSocketPartsHaveNoInterSocketLink) {
  for (const CpuSpec& c : cpu_catalog()) {
    SCOPED_TRACE(std::string(c.key));
    if (c.inter_socket == InterSocketKind::None) {
      EXPECT_EQ(c.inter_socket_links, 0);
      EXPECT_EQ(c.inter_socket_link_gbs, 0);
      EXPECT_EQ(c.inter_socket_effective_gbs, 0);
      EXPECT_FALSE(c.p2p_across_sockets);
    } else {
      EXPECT_GT(c.inter_socket_links, 0);
      EXPECT_GT(c.inter_socket_link_gbs, 0);
      EXPECT_GT(c.inter_socket_effective_gbs, 0);
      // NCCL's planning number is an effective rate, below the wire rate of the links together.
      EXPECT_LT(c.inter_socket_effective_gbs, c.inter_socket_links * c.inter_socket_link_gbs);
    }
  }
  for (const char* key : {"ryzen-5000", "threadripper-pro-5000", "core-desktop-12"}) {
    EXPECT_EQ(find_cpu(key)->inter_socket, InterSocketKind::None) << key;
  }
}

TEST(Cpus, PlatformFieldsArePlausible) {
  for (const CpuSpec& c : cpu_catalog()) {
    SCOPED_TRACE(std::string(c.key));
    EXPECT_GE(c.pcie_gen, 3);
    EXPECT_LE(c.pcie_gen, 6);
    EXPECT_GE(c.pcie_lanes, 16);
    EXPECT_GE(c.memory_channels, 2);
    // Theoretical DRAM bandwidth: channels x 8 B x 1333..6400 MT/s.
    EXPECT_GE(c.memory_bw_gbs, c.memory_channels * 8 * 1.333 - 0.1);
    EXPECT_LE(c.memory_bw_gbs, c.memory_channels * 8 * 6.4);
    EXPECT_GT(c.tdp_w, 0);
    if (c.vendor == Vendor::Intel) {
      EXPECT_EQ(c.cpuid_family, 6);
      EXPECT_FALSE(c.root_port_per_x16);   // one host bridge per socket
      EXPECT_FALSE(c.p2p_across_sockets);  // RVS#289: no P2P across QPI/UPI
    } else {
      ASSERT_EQ(c.vendor, Vendor::Amd);
      EXPECT_TRUE(c.cpuid_family == 23 || c.cpuid_family == 25 || c.cpuid_family == 26);  // Zen 1-2, 3-4, 5
    }
  }
}

TEST(Cpus, EpycAndThreadripperHaveAHostBridgePerX16AndEpycDoesP2pAcrossSockets) {
  for (const CpuSpec& c : cpu_catalog()) {
    const std::string key(c.key);
    const bool epyc = key.starts_with("epyc-");
    const bool threadripper = key.starts_with("threadripper-");
    EXPECT_EQ(c.root_port_per_x16, epyc || threadripper) << key;
    EXPECT_EQ(c.p2p_across_sockets, epyc) << key;
    if (epyc) {
      EXPECT_EQ(c.inter_socket, InterSocketKind::Xgmi) << key;
    }
  }
}

TEST(Cpus, IntelInterSocketBandwidthFollowsNcclModelThresholds) {
  // nccl.md §d.2: family 6, model >= 0x8F -> SRP_QPI 22, >= 0x55 -> SKL_QPI 10, else BDW_QPI 6.
  for (const CpuSpec& c : cpu_catalog()) {
    if (c.vendor != Vendor::Intel || c.inter_socket == InterSocketKind::None) continue;
    const double expected = c.cpuid_model >= 0x8F ? 22.0 : c.cpuid_model >= 0x55 ? 10.0 : 6.0;
    EXPECT_EQ(c.inter_socket_effective_gbs, expected) << c.key << " model " << c.cpuid_model;
  }
  EXPECT_EQ(find_cpu("xeon-e5-v4")->inter_socket_effective_gbs, 6.0);
  EXPECT_EQ(find_cpu("xeon-scalable-2")->inter_socket_effective_gbs, 10.0);
  EXPECT_EQ(find_cpu("xeon-scalable-4")->inter_socket_effective_gbs, 22.0);
}

// ---- chipsets, switches, NICs, NVSwitch ---------------------------------------------------------

TEST(Chipsets, LinksArePlausible) {
  for (const ChipsetSpec& c : chipset_catalog()) {
    SCOPED_TRACE(std::string(c.key));
    EXPECT_GE(c.uplink_gen, 2);
    EXPECT_LE(c.uplink_gen, 5);
    EXPECT_TRUE(is_pcie_width(c.uplink_width));
    EXPECT_GE(c.downstream_gen, 2);
    EXPECT_LE(c.downstream_gen, c.uplink_gen + 1);
    EXPECT_GT(c.downstream_lanes, 0);
  }
  EXPECT_EQ(find_chipset("x570")->uplink_gen, 4);
  EXPECT_EQ(find_chipset("b550")->uplink_gen, 3);
}

TEST(Switches, FieldsArePlausible) {
  for (const SwitchSpec& s : switch_catalog()) {
    SCOPED_TRACE(std::string(s.key));
    EXPECT_GE(s.gen, 2);
    EXPECT_LE(s.gen, 6);
    EXPECT_GE(s.lanes, 32);
    EXPECT_GE(s.latency_ns, 50);  // hardware.md §3: 100-150 ns per hop
    EXPECT_LE(s.latency_ns, 300);
    EXPECT_TRUE(s.p2p);
  }
  EXPECT_EQ(find_switch("pex8747")->latency_ns, 100);
  EXPECT_EQ(find_switch("pex88096")->gen, 4);
}

TEST(Nics, HostLinkCarriesOnePortAndRdmaFollowsTheVendor) {
  for (const NicSpec& n : nic_catalog()) {
    SCOPED_TRACE(std::string(n.key));
    EXPECT_GT(n.speed_gbps, 0);
    EXPECT_GE(n.ports, 1);
    EXPECT_TRUE(is_pcie_width(n.pcie_width));
    EXPECT_GE(pcie_link_gbs(n.pcie_gen, n.pcie_width) * 8, n.speed_gbps);  // GB/s -> Gbit/s
    if (n.vendor == Vendor::Mellanox) {
      EXPECT_TRUE(n.gpudirect_rdma);
    }
    if (n.vendor == Vendor::Intel) {
      EXPECT_FALSE(n.gpudirect_rdma);
    }
  }
}

TEST(NvSwitches, GenerationsGrowInPortsAndMatchNvlinkRates) {
  const auto switches = nvswitch_catalog();
  for (std::size_t i = 0; i < switches.size(); ++i) {
    EXPECT_GT(switches[i].ports, 0);
    EXPECT_GT(switches[i].link_gbs, 0);
    if (i > 0) {
      EXPECT_GT(switches[i].nvlink_gen, switches[i - 1].nvlink_gen);
      EXPECT_GT(switches[i].ports, switches[i - 1].ports);
    }
  }
  EXPECT_EQ(find_nvswitch("nvswitch-gen2")->nvlink_gen, find_gpu("a100-sxm4-80gb")->nvlink_gen);
  EXPECT_EQ(find_nvswitch("nvswitch-gen3")->nvlink_gen, find_gpu("h100-sxm5")->nvlink_gen);
  EXPECT_EQ(find_nvswitch("nvswitch-gen4")->nvlink_gen, find_gpu("b200")->nvlink_gen);
  EXPECT_EQ(find_nvswitch("nvswitch-gen4")->link_gbs, find_gpu("b200")->nvlink_link_gbs);
}

}  // namespace
}  // namespace rigsim::topology
