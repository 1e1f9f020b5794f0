#include "topology/nccl_xml.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"

namespace rigsim::topology {
namespace {

namespace fs = std::filesystem;

Topology from_json(const char* text) {
  return build_topology(parse_layout(nlohmann::json::parse(text), "test-layout.json"));
}

Topology from_xml(const std::string& xml) {
  return build_topology(import_nccl_xml(xml, "test.xml"));
}

Topology round_trip(const Topology& t) {
  return from_xml(export_nccl_xml(t));
}

DeviceId gpu(const Topology& t, std::size_t i) {
  return t.gpus().at(i);
}

std::string smi(const Topology& t, std::size_t a, std::size_t b) {
  return t.path(gpu(t, a), gpu(t, b)).smi;
}

PathClass nccl(const Topology& t, std::size_t a, std::size_t b) {
  return t.path(gpu(t, a), gpu(t, b)).nccl;
}

const Link& gpu_link(const Topology& t, std::size_t i) {
  return t.link(*t.uplink(gpu(t, i)));
}

/// The importer's guesses are topology warnings (printed by `topo`), each prefixed "NCCL XML: ".
bool has_note_containing(const Topology& t, const std::string& text) {
  for (const auto& n : t.warnings())
    if (n.starts_with("NCCL XML: ") && n.find(text) != std::string::npos) return true;
  return false;
}

/// What a round trip must keep: GPUs, their models and negotiated links, every GPU/NIC pair's
/// nvidia-smi class and NCCL path class, and the NVLink counts.
void expect_same_connectivity(const Topology& a, const Topology& b) {
  ASSERT_EQ(a.gpus().size(), b.gpus().size());
  ASSERT_EQ(a.nics().size(), b.nics().size());
  EXPECT_EQ(smi_matrix(a), smi_matrix(b));
  for (std::size_t i = 0; i < a.gpus().size(); ++i) {
    EXPECT_EQ(a.device(gpu(a, i)).model, b.device(gpu(b, i)).model) << "GPU " << i;
    EXPECT_EQ(gpu_link(a, i).gen, gpu_link(b, i).gen) << "GPU " << i;
    EXPECT_EQ(gpu_link(a, i).width, gpu_link(b, i).width) << "GPU " << i;
    for (std::size_t j = 0; j < a.gpus().size(); ++j) {
      EXPECT_EQ(nccl(a, i, j), nccl(b, i, j)) << "GPU " << i << " - GPU " << j;
      EXPECT_EQ(a.nvlink_count(gpu(a, i), gpu(a, j)), b.nvlink_count(gpu(b, i), gpu(b, j)))
          << "GPU " << i << " - GPU " << j;
    }
    for (std::size_t n = 0; n < a.nics().size(); ++n)
      EXPECT_EQ(a.path(gpu(a, i), a.nics()[n]).nccl, b.path(gpu(b, i), b.nics()[n]).nccl)
          << "GPU " << i << " - NIC " << n;
  }
  for (std::size_t n = 0; n < a.nics().size(); ++n) {
    const Device& na = a.device(a.nics()[n]);
    const Device& nb = b.device(b.nics()[n]);
    EXPECT_EQ(na.model, nb.model) << "NIC " << n;
    EXPECT_DOUBLE_EQ(na.nic_rate.value, nb.nic_rate.value) << "NIC " << n;
  }
}

// Two Broadwell sockets, one PEX 8796 each, V100 SXM2 wired as a ring of NVLinks (1 or 2 links per
// pair, so GPU0-GPU3 is NVB), a ConnectX-4 behind the first switch, and GPU3 in an x8 slot.
constexpr const char* kPlxNvlink = R"({
  "name": "plx-2s-nvlink",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}, {"id": "cpu1", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}, {"id": "rc1", "cpu": "cpu1", "lanes": 40}],
  "switches": [
    {"id": "sw0", "model": "pex8796", "parent": "rc0", "link": {"gen": 3, "width": 16}},
    {"id": "sw1", "model": "pex8796", "parent": "rc1", "link": {"gen": 3, "width": 16}}
  ],
  "slots": [
    {"id": "S0", "parent": "sw0", "width": 16}, {"id": "S1", "parent": "sw0", "width": 16},
    {"id": "S2", "parent": "sw1", "width": 16}, {"id": "S3", "parent": "sw1", "width": 8}
  ],
  "gpus": [
    {"id": "gpu0", "model": "v100-sxm2", "slot": "S0"}, {"id": "gpu1", "model": "v100-sxm2", "slot": "S1"},
    {"id": "gpu2", "model": "v100-sxm2", "slot": "S2"}, {"id": "gpu3", "model": "v100-sxm2", "slot": "S3"}
  ],
  "nics": [{"id": "ib0", "model": "connectx-4-100g", "parent": "sw0", "link": {"gen": 3, "width": 16}}],
  "nvlinks": [
    {"gpus": ["gpu0", "gpu1"], "links": 2, "bridge": false},
    {"gpus": ["gpu0", "gpu2"], "links": 1, "bridge": false},
    {"gpus": ["gpu1", "gpu3"], "links": 1, "bridge": false},
    {"gpus": ["gpu2", "gpu3"], "links": 2, "bridge": false}
  ]
})";

// HGX A100 style: two EPYC Rome sockets, two x16 root ports each, a PEX 88096 per root port with
// two A100 SXM4 and a ConnectX-6, all eight GPUs on one NVSwitch fabric (12 links each).
constexpr const char* kNvswitch = R"({
  "name": "hgx-a100-2s",
  "cpus": [{"id": "cpu0", "model": "epyc-7002"}, {"id": "cpu1", "model": "epyc-7002"}],
  "host_bridges": [
    {"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
    {"id": "rc2", "cpu": "cpu1", "lanes": 16}, {"id": "rc3", "cpu": "cpu1", "lanes": 16}
  ],
  "switches": [
    {"id": "sw0", "model": "pex88096", "parent": "rc0", "link": {"gen": 4, "width": 16}},
    {"id": "sw1", "model": "pex88096", "parent": "rc1", "link": {"gen": 4, "width": 16}},
    {"id": "sw2", "model": "pex88096", "parent": "rc2", "link": {"gen": 4, "width": 16}},
    {"id": "sw3", "model": "pex88096", "parent": "rc3", "link": {"gen": 4, "width": 16}}
  ],
  "gpus": [
    {"id": "gpu0", "model": "a100-sxm4-40gb", "parent": "sw0"},
    {"id": "gpu1", "model": "a100-sxm4-40gb", "parent": "sw0"},
    {"id": "gpu2", "model": "a100-sxm4-40gb", "parent": "sw1"},
    {"id": "gpu3", "model": "a100-sxm4-40gb", "parent": "sw1"},
    {"id": "gpu4", "model": "a100-sxm4-40gb", "parent": "sw2"},
    {"id": "gpu5", "model": "a100-sxm4-40gb", "parent": "sw2"},
    {"id": "gpu6", "model": "a100-sxm4-40gb", "parent": "sw3"},
    {"id": "gpu7", "model": "a100-sxm4-40gb", "parent": "sw3"}
  ],
  "nics": [
    {"id": "mlx0", "model": "connectx-6-200g", "parent": "sw0"},
    {"id": "mlx1", "model": "connectx-6-200g", "parent": "sw1"},
    {"id": "mlx2", "model": "connectx-6-200g", "parent": "sw2"},
    {"id": "mlx3", "model": "connectx-6-200g", "parent": "sw3"}
  ],
  "nvswitches": [{"id": "fabric", "model": "nvswitch-gen2", "chips": 6, "links_per_gpu": 12,
                  "gpus": ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"]}]
})";

// A consumer board: Ryzen 5000, two RTX 3090 at Gen4 x8/x8 with an NVLink bridge.
constexpr const char* kGeforceBridge = R"({
  "name": "ryzen-2x3090",
  "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 24}],
  "slots": [
    {"id": "PCIE1", "parent": "rc0", "gen": 4, "width": 8},
    {"id": "PCIE2", "parent": "rc0", "gen": 4, "width": 8}
  ],
  "gpus": [
    {"id": "gpu0", "model": "rtx-3090", "slot": "PCIE1"},
    {"id": "gpu1", "model": "rtx-3090", "slot": "PCIE2"}
  ],
  "nvlinks": [{"gpus": ["gpu0", "gpu1"]}]
})";

// ---- round trips: layout -> export -> import -> build ---------------------------------------------

TEST(NcclXmlRoundTrip, TwoSocketPlxWithNvlinkAndNic) {
  const Topology original = from_json(kPlxNvlink);
  const Topology back = round_trip(original);
  expect_same_connectivity(original, back);
  // Closed expectations, so a change in both directions at once is still caught.
  EXPECT_EQ(smi(back, 0, 1), "NV2");
  EXPECT_EQ(nccl(back, 0, 3), PathClass::NVB);  // via GPU1 or GPU2
  EXPECT_EQ(smi(back, 0, 3), "SYS");            // nvidia-smi shows the PCIe class for NVB
  EXPECT_EQ(gpu_link(back, 3).width, 8);        // the x8 slot survives as the stated link width
  EXPECT_EQ(gpu_link(back, 3).gen, 3);
}

TEST(NcclXmlRoundTrip, NvswitchBaseboard) {
  const Topology original = from_json(kNvswitch);
  const Topology back = round_trip(original);
  expect_same_connectivity(original, back);
  EXPECT_EQ(smi(back, 0, 7), "NV12");
  EXPECT_EQ(nccl(back, 0, 7), PathClass::NVL);
  ASSERT_EQ(back.of_kind(DeviceKind::NvSwitch).size(), 1u);
  EXPECT_EQ(back.device(back.of_kind(DeviceKind::NvSwitch)[0]).model, "nvswitch-gen2");
  // Each EPYC switch sits on its own root port: GPUs under different switches of a socket are NODE.
  EXPECT_EQ(back.pcie_path(gpu(back, 0), gpu(back, 2)).smi, "NODE");
}

// A B200 baseboard (NVLink5, two NVLink Switch chips) comes back with the switch of its generation and
// the NVLink5 rate: 18 links x 50 GB/s per direction per GPU, not the H100 switch's 25 GB/s per link.
TEST(NcclXmlRoundTrip, B200BaseboardKeepsItsNvlink5Switch) {
  std::string text = kNvswitch;
  const auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all("a100-sxm4-40gb", "b200");
  replace_all("\"nvswitch-gen2\", \"chips\": 6, \"links_per_gpu\": 12",
              "\"nvswitch-gen4\", \"chips\": 2, \"links_per_gpu\": 18");
  const Topology original = from_json(text.c_str());
  const Topology back = round_trip(original);
  expect_same_connectivity(original, back);
  EXPECT_EQ(smi(back, 0, 7), "NV18");
  ASSERT_EQ(back.of_kind(DeviceKind::NvSwitch).size(), 1u);
  EXPECT_EQ(back.device(back.of_kind(DeviceKind::NvSwitch)[0]).model, "nvswitch-gen4");
  const auto path = back.nvlink_path(gpu(back, 0), gpu(back, 7));
  ASSERT_TRUE(path.has_value());
  EXPECT_DOUBLE_EQ(back.link(path->links.front()).bandwidth.value, 18 * 50e9);
}

TEST(NcclXmlRoundTrip, GeforceNvlinkBridge) {
  const Topology original = from_json(kGeforceBridge);
  const Topology back = round_trip(original);
  expect_same_connectivity(original, back);
  EXPECT_EQ(back.device(back.cpus()[0]).model, "ryzen-5000");
  EXPECT_EQ(smi(back, 0, 1), "NV4");
  EXPECT_EQ(gpu_link(back, 0).width, 8);
}

TEST(NcclXmlExport, IsDeterministicAndShapedLikeAnNcclDump) {
  const Topology t = from_json(kNvswitch);
  const std::string xml = export_nccl_xml(t);
  EXPECT_EQ(xml, export_nccl_xml(from_json(kNvswitch)));
  EXPECT_EQ(xml.rfind("<system version=\"1\">\n  <cpu numaid=\"0\"", 0), 0u) << xml.substr(0, 200);
  EXPECT_NE(xml.find("vendor=\"AuthenticAMD\" familyid=\"23\" modelid=\"49\""), std::string::npos);
  EXPECT_NE(xml.find("busid=\"0000:01:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc010\" "
                     "link_speed=\"16.0 GT/s PCIe\" link_width=\"16\""),
            std::string::npos);
  EXPECT_NE(xml.find("count=\"12\" tclass=\"0x068000\""), std::string::npos);
  EXPECT_NE(xml.find("<net name=\"nic0\" dev=\"0\" speed=\"200000\" port=\"1\""), std::string::npos);
  EXPECT_EQ(xml.find(" />"), std::string::npos) << "empty elements end in \"/>\", as NCCL writes them";
  EXPECT_EQ(xml.find(" class=\"0x068000\""), std::string::npos)
      << "NVSwitches appear only as nvlink targets, not as <pci> nodes";
}

TEST(NcclXmlExport, WritesOneCpuPerNumaNodeWithItsQuadrantsDevices) {
  // NCCL's CPU nodes are NUMA domains (nccl.md §d.1): an EPYC in NPS4 with GPUs in quadrants 1, 1, 3
  // exports <cpu numaid="1"> with two GPUs and <cpu numaid="3"> with one; node 0 and 2 have none.
  const Topology t = from_json(R"({"name": "t", "cpus": [{"id": "cpu0", "model": "epyc-7002", "nps": 4}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 16, "quadrant": 1},
                     {"id": "rc1", "cpu": "cpu0", "lanes": 16, "quadrant": 1},
                     {"id": "rc2", "cpu": "cpu0", "lanes": 16, "quadrant": 3}],
    "gpus": [{"id": "g0", "model": "a100-pcie-40gb", "parent": "rc0"},
             {"id": "g1", "model": "a100-pcie-40gb", "parent": "rc1"},
             {"id": "g2", "model": "a100-pcie-40gb", "parent": "rc2"}]})");
  const std::string xml = export_nccl_xml(t);
  const auto one = xml.find("<cpu numaid=\"1\"");
  const auto three = xml.find("<cpu numaid=\"3\"");
  ASSERT_NE(one, std::string::npos) << xml;
  ASSERT_NE(three, std::string::npos) << xml;
  EXPECT_EQ(xml.find("<cpu numaid=\"0\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<cpu numaid=\"2\""), std::string::npos) << xml;
  const std::string first = xml.substr(one, three - one);
  EXPECT_NE(first.find("dev=\"0\""), std::string::npos);
  EXPECT_NE(first.find("dev=\"1\""), std::string::npos);
  EXPECT_NE(xml.substr(three).find("dev=\"2\""), std::string::npos);
}

// ---- tolerance and errors -------------------------------------------------------------------------

// The sketch of reference nccl.md §d.6: GPU0-1 behind one PLX switch, GPU2 on an x1 riser on the
// other socket, a 100 GbE NIC.
constexpr const char* kSketch = R"(<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="63">
    <pci busid="0000:02:00.0" class="0x060400" link_speed="8.0 GT/s PCIe" link_width="16">
      <pci busid="0000:04:00.0" class="0x030000" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="61" rank="0" gdr="0"/>
      </pci>
      <pci busid="0000:05:00.0" class="0x030000" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="61" rank="1" gdr="0"/>
      </pci>
    </pci>
    <pci busid="0000:81:00.0" class="0x020000" link_speed="8.0 GT/s PCIe" link_width="8">
      <nic><net name="mlx5_0" dev="0" speed="100000" port="1" gdr="0"/></nic>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ffff0000" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="63">
    <pci busid="0000:83:00.0" class="0x030000" link_speed="8.0 GT/s PCIe" link_width="1">
      <gpu dev="2" sm="61" rank="2" gdr="0"/>
    </pci>
  </cpu>
</system>
)";

TEST(NcclXmlImport, ReferenceSketch) {
  const LayoutSpec spec = import_nccl_xml(kSketch, "sketch.xml");
  ASSERT_EQ(spec.cpus.size(), 2u);
  EXPECT_EQ(spec.cpus[0].model, "xeon-e5-v3");
  EXPECT_EQ(spec.gpus[0].where, "line 4");
  const Topology t = build_topology(spec);
  ASSERT_EQ(t.gpus().size(), 3u);
  EXPECT_EQ(smi(t, 0, 1), "PIX");
  EXPECT_EQ(smi(t, 0, 2), "SYS");
  EXPECT_EQ(gpu_link(t, 2).width, 1);  // the x1 riser
  EXPECT_EQ(gpu_link(t, 2).gen, 3);
  ASSERT_EQ(t.nics().size(), 1u);
  EXPECT_EQ(t.device(t.nics()[0]).model, "connectx-4-100g");
  EXPECT_EQ(t.link(*t.uplink(t.nics()[0])).width, 8);
  EXPECT_TRUE(has_note_containing(t, "sm 61")) << "the GPU model is a guess and must say so";
}

TEST(NcclXmlImport, ToleratesEmptyLinkSpeedZeroWidthNegativeNumaAndMissingRank) {
  const Topology t = from_xml(R"(<system version="1">
  <cpu numaid="-1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:17:00.0" class="0x030200" vendor="0x10de" device="0x1db4" link_speed="" link_width="0">
      <gpu dev="0" sm="70" gdr="1"/>
    </pci>
  </cpu>
</system>)");
  ASSERT_EQ(t.gpus().size(), 1u);
  EXPECT_EQ(t.device(gpu(t, 0)).model, "v100-pcie");
  EXPECT_EQ(t.device(t.cpus()[0]).numa, 0);  // numaid -1: the <cpu>'s position
  EXPECT_EQ(gpu_link(t, 0).gen, 3);          // empty link_speed: the V100's own Gen3
  EXPECT_EQ(gpu_link(t, 0).width, 16);       // link_width 0: the V100's own x16
  EXPECT_TRUE(has_note_containing(t, "without rank"));
}

TEST(NcclXmlImport, DesktopCpuIdInAMultiSocketFileBecomesTheServerPart) {
  // Threadripper 2990WX dumps show several NUMA nodes with the Ryzen 2000 CPUID (family 23 model 8).
  const LayoutSpec spec = import_nccl_xml(R"(<system version="1">
  <cpu numaid="0" vendor="AuthenticAMD" familyid="143" modelid="8">
    <pci busid="0000:08:00.0" class="0x030000" vendor="0x10de" device="0x2204" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="86" rank="0" gdr="0"/>
    </pci>
  </cpu>
  <cpu numaid="1" vendor="AuthenticAMD" familyid="143" modelid="8"/>
</system>)",
                                          "tr.xml");
  ASSERT_EQ(spec.cpus.size(), 2u);
  EXPECT_EQ(spec.cpus[0].model, "epyc-7001");
  EXPECT_NO_THROW(build_topology(spec));
  const LayoutSpec single = import_nccl_xml(R"(<system version="1">
  <cpu numaid="0" vendor="AuthenticAMD" familyid="175" modelid="33">
    <pci busid="0000:08:00.0" class="0x030000" vendor="0x10de" device="0x2204" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="86" rank="0" gdr="0"/>
    </pci>
  </cpu>
</system>)",
                                            "r5000.xml");
  EXPECT_EQ(single.cpus[0].model, "ryzen-5000");
}

TEST(NcclXmlImport, MalformedXmlNamesTheLine) {
  try {
    import_nccl_xml("<system version=\"1\">\n  <cpu numaid=\"0\">\n  </pci>\n</system>\n", "bad.xml");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.xml");
    EXPECT_EQ(e.location().rfind("line 3", 0), 0u) << e.location();
  }
}

TEST(NcclXmlImport, RejectsOtherVersionsAndMissingSystem) {
  try {
    import_nccl_xml("<system version=\"2\">\n  <cpu/>\n</system>", "v2.xml");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.location(), "line 1");
    EXPECT_NE(std::string(e.what()).find("version"), std::string::npos) << e.what();
  }
  try {
    import_nccl_xml("<graphs version=\"1\"/>", "graph.xml");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.location().rfind("line", 0), 0u) << e.location();
  }
  EXPECT_THROW(load_nccl_xml("/nonexistent/topo.xml"), InputError);
}

// ---- the published dumps in ../shared/data/nccl-topo ----------------------------------------------

fs::path dump_dir() {
  return fs::path(RIGSIM_SHARED_DIR) / "data" / "nccl-topo";
}

Topology load_dump(const std::string& name) {
  return load_nccl_xml((dump_dir() / name).string());
}

#define REQUIRE_DUMPS() \
  if (!fs::is_directory(dump_dir())) GTEST_SKIP() << "shared data absent"

TEST(NcclXmlDumps, EveryDumpImportsAndBuildsWithItsGpuCount) {
  REQUIRE_DUMPS();
  // GPU counts read from each file (<pci class=0x03...> elements).
  const std::map<std::string, std::size_t> expected = {
      {"azure-ncv4-topo.xml", 4},
      {"azure-ndv4-topo.xml", 8},
      {"azure-ndv5-topo.xml", 8},
      {"blinkplus-8xv100-sxm2-hcm-plx-2s-bdw.xml", 8},
      {"ibmcloud-gx3d-8xh100-vm-nvswitch.xml", 8},
      {"nccl-issue2397-2xa100pcie-2s-icx-cx6dx.xml", 2},
      {"proteus-dgx1-v100-8gpu-nvlink-plx.xml", 8},
      {"proteus-gtx1080-8gpu-2s-plx-ib.xml", 8},
      {"proteus-titanx-8gpu-2s-plx.xml", 8},
  };
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(dump_dir())) {
    if (entry.path().extension() != ".xml") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << "new dump: add its GPU count here";
    try {
      EXPECT_EQ(load_dump(name).gpus().size(), it->second);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
    ++seen;
  }
  EXPECT_EQ(seen, expected.size());
}

TEST(NcclXmlDumps, ReExportingADumpKeepsItsConnectivity) {
  REQUIRE_DUMPS();
  for (const auto& entry : fs::directory_iterator(dump_dir())) {
    if (entry.path().extension() != ".xml") continue;
    SCOPED_TRACE(entry.path().filename().string());
    try {
      const Topology t = load_nccl_xml(entry.path().string());
      expect_same_connectivity(t, round_trip(t));
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

TEST(NcclXmlDumps, ProteusDgx1NvlinkUnderPlx) {
  REQUIRE_DUMPS();
  const Topology t = load_dump("proteus-dgx1-v100-8gpu-nvlink-plx.xml");
  // GPU0 (1a) lists 1b count 1, 3d count 1, 3e count 2, 88 count 2.
  EXPECT_EQ(nccl(t, 0, 1), PathClass::NVL);
  EXPECT_EQ(smi(t, 0, 1), "NV1");
  EXPECT_EQ(smi(t, 0, 3), "NV2");
  EXPECT_EQ(smi(t, 0, 4), "NV2");
  EXPECT_EQ(nccl(t, 0, 5), PathClass::NVB);  // 89 is not a peer of 1a: via an intermediate GPU
  EXPECT_EQ(smi(t, 0, 5), "SYS");
  EXPECT_EQ(t.pcie_path(gpu(t, 0), gpu(t, 1)).smi, "PIX");  // same PEX 9765
  EXPECT_EQ(t.device(gpu(t, 0)).model, "v100-sxm2-32gb");   // 10de:1db5
  ASSERT_EQ(t.nics().size(), 2u);
  EXPECT_DOUBLE_EQ(t.device(t.nics()[0]).nic_rate.value * 8 / 1e9,
                   600);  // speed="600000" kept as NCCL reads it
}

TEST(NcclXmlDumps, Issue2397A100PcieOnTwoSockets) {
  REQUIRE_DUMPS();
  const Topology t = load_dump("nccl-issue2397-2xa100pcie-2s-icx-cx6dx.xml");
  ASSERT_EQ(t.gpus().size(), 2u);
  EXPECT_EQ(smi(t, 0, 1), "SYS");
  EXPECT_EQ(nccl(t, 0, 1), PathClass::SYS);
  EXPECT_EQ(t.device(gpu(t, 0)).model, "a100-pcie-80gb");
  EXPECT_EQ(gpu_link(t, 0).gen, 4);
  EXPECT_EQ(gpu_link(t, 0).width, 16);
  ASSERT_EQ(t.nics().size(), 1u);  // one ConnectX-6 Dx with two ports
  EXPECT_EQ(t.device(t.nics()[0]).model, "connectx-6dx-100g");
  EXPECT_EQ(t.link(*t.uplink(t.nics()[0])).width, 8);
  EXPECT_EQ(t.path(gpu(t, 0), t.nics()[0]).smi, "PHB");  // same socket, each on the root complex
}

TEST(NcclXmlDumps, ProteusTitanxBridgesAndSockets) {
  REQUIRE_DUMPS();
  const Topology t = load_dump("proteus-titanx-8gpu-2s-plx.xml");
  EXPECT_EQ(smi(t, 0, 1), "PIX");  // both under bridge 02:00.0
  EXPECT_EQ(nccl(t, 0, 1), PathClass::PIX);
  EXPECT_EQ(smi(t, 0, 2), "PHB");  // bridges 02 and 06 of the same socket: through its host bridge
  EXPECT_EQ(smi(t, 0, 4), "SYS");
  EXPECT_EQ(nccl(t, 0, 4), PathClass::SYS);
  EXPECT_EQ(t.device(gpu(t, 0)).model, "tesla-m40");  // sm 52, no PCI id: a guess, noted
  EXPECT_TRUE(has_note_containing(t, "sm 52"));
  ASSERT_EQ(t.nics().size(), 1u);
  EXPECT_EQ(t.device(t.socket_of(t.nics()[0])).name, "cpu1");
}

TEST(NcclXmlDumps, ProteusGtx1080NegativeNuma) {
  REQUIRE_DUMPS();
  const Topology t = load_dump("proteus-gtx1080-8gpu-2s-plx-ib.xml");
  EXPECT_EQ(t.device(t.cpus()[1]).numa, 1);  // numaid="-1" on the second <cpu>
  EXPECT_EQ(t.device(gpu(t, 4)).numa, 1);
  EXPECT_EQ(smi(t, 4, 5), "PIX");
  EXPECT_EQ(smi(t, 0, 7), "SYS");
  ASSERT_EQ(t.nics().size(), 1u);
  EXPECT_EQ(t.device(t.nics()[0]).model, "connectx-3-fdr");  // speed 56000
}

TEST(NcclXmlDumps, IbmCloudH100VmNvswitchAndVirtualBridges) {
  REQUIRE_DUMPS();
  const Topology t = load_dump("ibmcloud-gx3d-8xh100-vm-nvswitch.xml");
  // Every GPU lists 5+5+4+4 = 18 links to four NVSwitch chips: one fabric, NV18 between all pairs.
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 8; ++j)
      if (i != j) {
        EXPECT_EQ(smi(t, i, j), "NV18") << i << "-" << j;
      }
  ASSERT_EQ(t.of_kind(DeviceKind::NvSwitch).size(), 1u);
  EXPECT_EQ(t.device(t.of_kind(DeviceKind::NvSwitch)[0]).model, "nvswitch-gen3");
  EXPECT_EQ(t.device(gpu(t, 0)).model, "h100-sxm5");
  // The 104c:8232 bridges claim 2.5 GT/s x1: taken as unknown, so the H100 keeps Gen5 x16.
  EXPECT_EQ(gpu_link(t, 0).gen, 5);
  EXPECT_EQ(gpu_link(t, 0).width, 16);
  EXPECT_TRUE(has_note_containing(t, "2.5 GT/s x1"));
  EXPECT_EQ(t.nics().size(), 8u);
  EXPECT_EQ(t.pcie_path(gpu(t, 0), gpu(t, 4)).smi, "SYS");
}

TEST(NcclXmlDumps, BlinkplusHybridCubeMesh) {
  REQUIRE_DUMPS();
  const Topology t = load_dump("blinkplus-8xv100-sxm2-hcm-plx-2s-bdw.xml");
  // GPU0 (06) lists 07 count 1, 0a count 1, 0b count 2, 85 count 2.
  EXPECT_EQ(smi(t, 0, 1), "NV1");
  EXPECT_EQ(smi(t, 0, 3), "NV2");
  EXPECT_EQ(smi(t, 0, 4), "NV2");
  EXPECT_EQ(gpu_link(t, 0).gen, 3);  // "8 GT/s"
  EXPECT_EQ(gpu_link(t, 0).width, 16);
  // The X540 is a NIC; lxcbr0 and br-* (Linux bridges listed under the CPU) are not.
  ASSERT_EQ(t.nics().size(), 1u);
  EXPECT_EQ(t.device(t.nics()[0]).model, "intel-x540-10g");
}

TEST(NcclXmlDumps, AzureHandWrittenFilesWithoutGpuElements) {
  REQUIRE_DUMPS();
  const Topology nd4 = load_dump("azure-ndv4-topo.xml");
  // Without dev attributes GPUs are numbered by bus id: 0001 and 0002 share ffff:ff:02.0.
  EXPECT_EQ(smi(nd4, 0, 1), "PIX");
  EXPECT_EQ(smi(nd4, 0, 2), "SYS");
  EXPECT_EQ(nd4.nics().size(), 8u);
  EXPECT_EQ(gpu_link(nd4, 0).gen, 4);
  const Topology nd5 = load_dump("azure-ndv5-topo.xml");
  EXPECT_EQ(smi(nd5, 0, 1), "PHB");  // separate virtual switches on one Intel socket
  EXPECT_EQ(smi(nd5, 0, 4), "SYS");
  EXPECT_EQ(gpu_link(nd5, 0).gen, 5);
  const Topology nc4 = load_dump("azure-ncv4-topo.xml");
  EXPECT_EQ(smi(nc4, 0, 1), "SYS");
  EXPECT_EQ(nc4.nvlink_count(gpu(nc4, 0), gpu(nc4, 1)), 0);  // self-targeted nvlinks ignored
  EXPECT_TRUE(has_note_containing(nc4, "own bus id"));
  EXPECT_EQ(nc4.nics().size(), 1u);
}

}  // namespace
}  // namespace rigsim::topology
