// `rigsim import nvidia-smi-topo`: a layout sketch rebuilt from the relation matrix. The strongest
// check is the round trip on real captures: the sketch's own nvidia-smi matrix (smi_matrix) equals
// the captured one, cell for cell, except where rigsim's model cannot say what the capture says (named
// per file). Also: layout_to_json is the inverse of parse_layout on every catalog layout.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/importers.hpp"
#include "topology/layout_json.hpp"
#include "tests/topology/layout_fixture.hpp"

namespace rigsim::topology {
namespace {

namespace fs = std::filesystem;

std::string capture(const std::string& name) {
  return std::string(RIGSIM_SHARED_DIR) + "/data/nvidia-smi-topo/" + name;
}

/// The captured matrix: rows of relation cells in header order (GPUs then NICs).
std::vector<std::vector<std::string>> captured_matrix(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::vector<std::string>> rows;
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::vector<std::string> t;
    for (std::string x; ls >> x;) t.push_back(x);
    if (t.empty()) continue;
    if (t.front() == "Legend:") break;
    if (t.front() == "GPU0" && n == 0) {
      // Device columns only: "GPU0", "NIC3" - not the "GPU" of the trailing "GPU NUMA ID" heading.
      const auto device = [](const std::string& x) {
        return (x.rfind("GPU", 0) == 0 || x.rfind("NIC", 0) == 0) && x.size() > 3 &&
               std::isdigit(static_cast<unsigned char>(x[3]));
      };
      for (const std::string& x : t) n += device(x);
      continue;
    }
    if (n == 0) continue;
    EXPECT_GE(t.size(), n + 1) << "short matrix row: " << line;
    if (t.size() >= n + 1) rows.emplace_back(t.begin() + 1, t.begin() + 1 + static_cast<long>(n));
  }
  return rows;
}

struct Case {
  std::string file, gpu, cpu;
  std::map<std::pair<std::string, std::string>, int> allowed;  // (captured, rigsim) -> how many cells
};

TEST(ImportSmi, RebuildsTheCapturedMatrix) {
  if (!fs::exists(capture(""))) GTEST_SKIP() << "no ../shared/data";
  const std::vector<Case> cases = {
      {"UNATTRIBUTED-gooxi-as4110g-8x4090-2xpex8747-before.txt", "rtx-4090", "epyc-7002", {}},
      {"UNATTRIBUTED-gooxi-as4110g-8x4090-2xpex8747-after.txt", "rtx-4090", "epyc-7002", {}},
      {"autodl-2x2080ti-pix-p2p-ns.txt", "rtx-2080-ti", "xeon-scalable-2", {}},
      {"llmaction-8xa800-sxm-nv8-2s-4nic.txt", "a100-sxm4-80gb", "xeon-scalable-3", {}},
      {"stelline-asus-esc8000a-4xrtx6000ada-2s-genoa.txt", "rtx-6000-ada", "epyc-9004", {}},
      // rigsim gives each x16 root port of a Threadripper its own host bridge: NODE, not PHB.
      {"stelline-puget-wrx90-2xrtx6000ada-phb.txt", "rtx-6000-ada", "threadripper-pro-5000", {{{"PHB", "NODE"}, 2}}},
      // NICs SYS to every GPU sit on NUMA nodes without GPUs (NPS > 1), which rigsim does not model.
      {"distserve-issue3-8xa100-sxm4-nv12-2s-4nic.txt", "a100-sxm4-80gb", "epyc-7003", {{{"SYS", "NODE"}, 40}}},
  };
  for (const Case& c : cases) {
    const std::string text = read_input_file(capture(c.file));
    const LayoutSpec spec = import_nvidia_smi_topo(text, c.file, {{c.gpu}, c.cpu, "", "", 0, "t"});
    const Topology topo = build_topology(spec);
    const auto want = captured_matrix(text);
    const auto got = smi_matrix(topo);
    ASSERT_EQ(got.size(), want.size()) << c.file;
    std::map<std::pair<std::string, std::string>, int> diff;
    for (std::size_t i = 0; i < want.size(); ++i)
      for (std::size_t j = 0; j < want.size(); ++j)
        if (want[i][j] != got[i][j]) ++diff[{want[i][j], got[i][j]}];
    EXPECT_EQ(diff, c.allowed) << c.file;
  }
}

TEST(ImportSmi, HgxNvSwitchAndBridgedPairs) {
  if (!fs::exists(capture(""))) GTEST_SKIP() << "no ../shared/data";
  const LayoutSpec hgx = import_nvidia_smi_topo(read_input_file(capture("llmaction-8xa800-sxm-nv8-2s-4nic.txt")),
                                                "x", {{"a100-sxm4-80gb"}, "xeon-scalable-3", "", "", 0, "t"});
  ASSERT_EQ(hgx.nvswitches.size(), 1u);
  EXPECT_EQ(hgx.nvswitches[0].gpus.size(), 8u);
  EXPECT_EQ(hgx.nvswitches[0].links_per_gpu, 8);
  EXPECT_EQ(hgx.cpus.size(), 2u);
  const LayoutSpec bridged = import_nvidia_smi_topo(
      read_input_file(capture("unige-baobab-gpu048-8xrtxa6000-nvbridge-nv4-2s.txt")), "x",
      {{"rtx-a6000"}, "epyc-7002", "", "", 0, "t"});
  ASSERT_EQ(bridged.nvlinks.size(), 4u);
  EXPECT_EQ(bridged.nvlinks[0].links, 4);
  EXPECT_TRUE(bridged.nvlinks[0].bridge);
  // Socket 1 holds four x16 GPUs and a NIC: only 3 xGMI links leave it enough lanes.
  ASSERT_EQ(bridged.inter_socket.size(), 1u);
  EXPECT_EQ(bridged.inter_socket[0].links, 3);
  EXPECT_NO_THROW((void)build_topology(bridged));
}

TEST(ImportSmi, OneGpuWithTheUnderlinedHeader) {
  // nvidia-smi topo -m on a one-GPU H200 VM (driver 580, the probe's first run on hardware): the header
  // is underlined with terminal escapes even into a pipe, and the only row is GPU0's.
  const std::string text =
      "\t\x1b[4mGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
      "GPU0\t X \t0-15\t0\t\tN/A\n\nLegend:\n\n  X    = Self\n";
  const LayoutSpec spec =
      import_nvidia_smi_topo(text, "h200.txt", {{"h200-sxm"}, "xeon-scalable-4", "", "", 0, "t"});
  ASSERT_EQ(spec.gpus.size(), 1u);
  EXPECT_EQ(spec.cpus.size(), 1u);
  EXPECT_NO_THROW((void)build_topology(spec));
}

std::string error_of(const std::string& text, ImportHints h = {{"rtx-4090"}, "epyc-7002", "", "", 0, "t"}) {
  try {
    (void)import_nvidia_smi_topo(text, "m.txt", h);
  } catch (const InputError& e) {
    return e.location() + ": " + e.what();
  }
  return "no error";
}

TEST(ImportSmi, BadInputIsNamed) {
  const std::string ok = "        GPU0    GPU1    CPU Affinity    NUMA Affinity\nGPU0     X      PIX     0-7  0\nGPU1    PIX      X      0-7  0\n";
  EXPECT_EQ(error_of(ok), "no error");
  EXPECT_NE(error_of("hello\n").find("header line starting with GPU0"), std::string::npos);
  EXPECT_NE(error_of("  GPU0 GPU1\nGPU0 X OK\nGPU1 OK X\n").find("topo -p2p"), std::string::npos);
  EXPECT_NE(error_of("  GPU0 GPU1\nGPU0 X FOO\nGPU1 PIX X\n").find("line 2"), std::string::npos);
  EXPECT_NE(error_of("  GPU0 GPU1\nGPU0 X PIX\n").find("no row for GPU1"), std::string::npos);
  EXPECT_NE(error_of("  GPU0 GPU1\nGPU0 X\nGPU1 PIX X\n").find("truncated"), std::string::npos);
  EXPECT_NE(error_of(ok, {{}, "epyc-7002", "", "", 0, "t"}).find("--gpu"), std::string::npos);
  EXPECT_NE(error_of(ok, {{"rtx-4090"}, "", "", "", 0, "t"}).find("--cpu"), std::string::npos);
  EXPECT_NE(error_of(ok, {{"rtx-4090"}, "epyc-7002", "", "", 0, "t"}).find("no error"), std::string::npos);
  EXPECT_NE(error_of(ok, {{"rtx-4090x"}, "epyc-7002", "", "", 0, "t"}).find("did you mean"), std::string::npos);
  EXPECT_NE(error_of(ok, {{"rtx-4090", "rtx-4090", "rtx-4090"}, "epyc-7002", "", "", 0, "t"}).find("one per GPU"),
            std::string::npos);
}

std::string hwloc_capture(const std::string& name) {
  return std::string(RIGSIM_SHARED_DIR) + "/data/hwloc/" + name;
}

TEST(ImportHwloc, RealTreesBecomeLayouts) {
  if (!fs::exists(hwloc_capture(""))) GTEST_SKIP() << "no ../shared/data";
  // DGX-2H: 16 V100 in pairs under PLX switches, two pairs per upper switch, 8 per socket.
  const LayoutSpec dgx = import_hwloc(read_input_file(hwloc_capture("hwloc-nvidia-dgx2h-16xv100.xml")), "dgx",
                                      {{"v100-sxm2-32gb"}, "", "", "", 0, "t"});
  EXPECT_EQ(dgx.cpus.size(), 2u);
  EXPECT_EQ(dgx.cpus[0].model, "xeon-scalable-1");  // from "Intel(R) Xeon(R) Platinum 8174"
  EXPECT_EQ(dgx.gpus.size(), 16u);
  EXPECT_EQ(dgx.switches.size(), 12u);
  const Topology t = build_topology(dgx);
  const auto m = smi_matrix(t);
  EXPECT_EQ(m[0][1], "PIX");
  EXPECT_EQ(m[0][2], "PXB");
  EXPECT_EQ(m[0][4], "NODE");
  EXPECT_EQ(m[0][8], "SYS");
  // HP SL390s: one GPU on socket 0, two under one root complex of socket 1; the 1 GbE port is left out.
  const LayoutSpec hp = import_hwloc(read_input_file(hwloc_capture("hwloc-hp-sl390s-g7-2s-3xtesla-m2070.xml")), "hp",
                                     {{"tesla-m40"}, "xeon-e5-v1", "", "", 0, "t"});
  EXPECT_EQ(hp.nics.size(), 0u);
  const auto h = smi_matrix(build_topology(hp));
  EXPECT_EQ(h[0][1], "SYS");
  EXPECT_EQ(h[1][2], "PHB");
}

TEST(ImportHwloc, MistakesAreNamed) {
  const auto error_of = [](const std::string& xml, ImportHints hints) {
    try {
      (void)import_hwloc(xml, "h.xml", hints);
    } catch (const InputError& e) {
      return e.location() + ": " + e.what();
    }
    return std::string("no error");
  };
  const ImportHints none{{}, "", "", "", 0, "t"};
  EXPECT_NE(error_of("<topology><object type=\"Machine\">", none).find("malformed XML"), std::string::npos);
  EXPECT_NE(error_of("<lstopo/>", none).find("<topology>"), std::string::npos);
  EXPECT_NE(error_of("<topology><object type=\"Machine\"/></topology>", none).find("Package"), std::string::npos);
  const std::string cpu_only =
      "<topology>\n<object type=\"Machine\">\n<object type=\"Package\" os_index=\"0\">\n"
      "<info name=\"CPUModel\" value=\"Mystery CPU 9000\"/>\n</object></object></topology>";
  EXPECT_NE(error_of(cpu_only, none).find("line 3"), std::string::npos);
  EXPECT_NE(error_of(cpu_only, none).find("--cpu"), std::string::npos);
  EXPECT_NE(error_of(cpu_only, {{}, "epyc-7002", "", "", 0, "t"}).find("no GPU"), std::string::npos);
  if (fs::exists(hwloc_capture(""))) {
    // A capture whose devices need more lanes than the CPU has: the import works, the build says why.
    const LayoutSpec x9 = import_hwloc(read_input_file(hwloc_capture("hwloc-supermicro-x9drg-2s-3xtesla-m2075.xml")),
                                       "x9", {{"tesla-m40"}, "xeon-e5-v2", "", "", 0, "t"});
    EXPECT_NE(rigsim::testing::input_error_of([&] { (void)build_topology(x9); }).second.find("lanes"), std::string::npos);
  }
}

/// A two-socket E5 v4 box as `lspci -tvnn` prints it (written for this test): four RTX 3090 under two
/// PEX switches behind one upper switch on the second socket's root bus, one on socket 0's root port.
const char* kLspci =
    "-+-[0000:80]-+-00.0  Intel Corporation Xeon E7 v4/Xeon E5 v4/Xeon E3 v4/Xeon D DMI2 [8086:6f00]\n"
    " |           +-02.0-[81-8b]----00.0-[82-8b]--+-08.0-[83-86]----00.0-[84-86]--+-08.0-[85]--+-00.0  NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204]\n"
    " |           |                               |                               |            \\-00.1  NVIDIA Corporation GA102 High Definition Audio Controller [10de:1aef]\n"
    " |           |                               |                               \\-10.0-[86]--+-00.0  NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204]\n"
    " |           |                               |                                            \\-00.1  NVIDIA Corporation GA102 High Definition Audio Controller [10de:1aef]\n"
    " |           |                               \\-10.0-[87-8b]----00.0-[88-8b]--+-08.0-[89]--+-00.0  NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204]\n"
    " |           |                                                               |            \\-00.1  NVIDIA Corporation GA102 High Definition Audio Controller [10de:1aef]\n"
    " |           |                                                               \\-10.0-[8a]--+-00.0  NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204]\n"
    " |           |                                                                            \\-00.1  NVIDIA Corporation GA102 High Definition Audio Controller [10de:1aef]\n"
    " |           \\-05.0  Intel Corporation Xeon E7 v4/Xeon E5 v4/Xeon E3 v4/Xeon D Map/VTd_Misc/System Management [8086:6f28]\n"
    " \\-[0000:00]-+-00.0  Intel Corporation Xeon E7 v4/Xeon E5 v4/Xeon E3 v4/Xeon D DMI2 [8086:6f00]\n"
    "             +-03.0-[01]----00.0  NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204]\n"
    "             \\-1f.0  Intel Corporation C610/X99 series chipset LPC Controller [8086:8d44]\n";

TEST(ImportLspci, TreeToLayout) {
  const LayoutSpec spec = import_lspci(kLspci, "l.txt", {{}, "xeon-e5-v4", "", "", 0, "t"});
  EXPECT_EQ(spec.gpus.size(), 5u);  // the audio functions are not GPUs
  EXPECT_EQ(spec.gpus[0].model, "rtx-3090");
  EXPECT_EQ(spec.switches.size(), 3u);
  EXPECT_EQ(spec.cpus.size(), 2u);
  const auto m = smi_matrix(build_topology(spec));
  // GPU 0 is bus 01 (PCI bus order), on socket 0; the four behind the switches follow.
  EXPECT_EQ(m[0][1], "SYS");
  EXPECT_EQ(m[1][2], "PIX");
  EXPECT_EQ(m[1][3], "PXB");
  EXPECT_EQ(m[3][4], "PIX");
}

TEST(ImportLspci, MistakesAreNamed) {
  const auto error_of = [](const std::string& text, ImportHints hints) {
    try {
      (void)import_lspci(text, "l.txt", hints);
    } catch (const InputError& e) {
      return e.location() + ": " + e.what();
    }
    return std::string("no error");
  };
  const ImportHints ok{{}, "xeon-e5-v4", "", "", 0, "t"};
  EXPECT_NE(error_of("hello\n", ok).find("lspci -tv"), std::string::npos);
  EXPECT_NE(error_of(kLspci, {{}, "", "", "", 0, "t"}).find("--cpu"), std::string::npos);
  EXPECT_NE(error_of(kLspci, {{}, "xeon-e5-v9", "", "", 0, "t"}).find("did you mean"), std::string::npos);
  // -t alone names nothing: no GPU can be told apart.
  EXPECT_NE(error_of("-[0000:00]-+-00.0\n           \\-03.0-[01]----00.0\n", ok).find("no NVIDIA GPU"), std::string::npos);
  EXPECT_NE(error_of("-[0000:00]-+-03.0-[01\n", ok).find("line 1"), std::string::npos);
}

TEST(ImportLspci, CompletedByTheTopoMatrix) {
  // The same machine's matrix: GPU 0 on NUMA 1 (the bus-number guess put it on socket 0), GPUs 1-4 on
  // NUMA 0, and an NVLink bridge between GPUs 1 and 2.
  const std::string matrix =
      "        GPU0    GPU1    GPU2    GPU3    GPU4    CPU Affinity    NUMA Affinity\n"
      "GPU0     X      SYS     SYS     SYS     SYS     8-15    1\n"
      "GPU1    SYS      X      NV4     PXB     PXB     0-7     0\n"
      "GPU2    SYS     NV4      X      PXB     PXB     0-7     0\n"
      "GPU3    SYS     PXB     PXB      X      PIX     0-7     0\n"
      "GPU4    SYS     PXB     PXB     PIX      X      0-7     0\n";
  const LayoutSpec tree = import_lspci(kLspci, "l.txt", {{}, "xeon-e5-v4", "", "", 0, "t"});
  const LayoutSpec merged = merge_nvidia_smi_topo(tree, matrix, "m.txt");
  ASSERT_EQ(merged.nvlinks.size(), 1u);
  EXPECT_EQ(merged.nvlinks[0].links, 4);
  const Topology t = build_topology(merged);
  const auto m = smi_matrix(t);
  EXPECT_EQ(m[1][2], "NV4");
  EXPECT_EQ(m[3][4], "PIX");  // the PCIe tree is lspci's
  EXPECT_EQ(t.device(t.socket_of(t.gpus()[0])).numa, 1);
  EXPECT_EQ(t.device(t.socket_of(t.gpus()[1])).numa, 0);
  EXPECT_NE(rigsim::testing::input_error_of([&] { (void)merge_nvidia_smi_topo(tree, "  GPU0\nGPU0 X\n", "m.txt"); })
                .second.find("not the same machine"),
            std::string::npos);
}

TEST(LayoutWrite, IsTheInverseOfTheReader) {
  std::size_t files = 0;
  for (const char* dir : {"/scenarios/layouts", "/scenarios/dev-cases/layouts"})
    for (const auto& e : fs::directory_iterator(std::string(RIGSIM_SOURCE_DIR) + dir)) {
      if (e.path().extension() != ".json") continue;
      const LayoutSpec spec = parse_layout(load_json_file(e.path().string()), e.path().string());
      const nlohmann::json once = layout_to_json(spec);
      const LayoutSpec again = parse_layout(once, "again.json");
      EXPECT_EQ(layout_to_json(again), once) << e.path();
      EXPECT_EQ(smi_matrix(build_topology(again)), smi_matrix(build_topology(spec))) << e.path();
      EXPECT_EQ(build_topology(again).links().size(), build_topology(spec).links().size()) << e.path();
      ++files;
    }
  EXPECT_GE(files, 25u);
}

}  // namespace
}  // namespace rigsim::topology
