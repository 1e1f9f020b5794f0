// rigsim-probe's host logic with a fake backend: the plan, medians, the rates each series records (as
// the tools rigsim re-simulates define them), --only, the no-device exit, files never overwritten,
// sysfs discovery on a fake tree, catalog keys from names, and the layout sketch from a real capture.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/input.hpp"
#include "kernels/probe/app.hpp"
#include "kernels/probe/discover.hpp"
#include "kernels/probe/runner.hpp"
#include "topology/catalog_names.hpp"

namespace rigsim::probe {
namespace {

namespace fs = std::filesystem;

/// Two GPUs; every operation takes a fixed, known time so the recorded rates have closed forms.
class FakeBackend : public Backend {
 public:
  int calls = 0;
  int gpu_count = 2;
  std::vector<int> gemm_iters;  // the iterations each gemm() call was asked for
  std::vector<GpuInfo> gpus() override {
    std::vector<GpuInfo> all{{"NVIDIA GeForce RTX 4090", "0000:01:00.0", 89, 24},
                             {"NVIDIA GeForce RTX 4090", "0000:41:00.0", 89, 24}};
    all.resize(static_cast<std::size_t>(gpu_count));
    return all;
  }
  Versions versions() override { return {"550.90.07", "12.4", "2.21.5"}; }
  bool can_access_peer(int, int) override { return false; }
  double device_copy(int, std::size_t bytes, int) override {
    return tick(bytes / 400e9);
  }  // 400 GB/s each way
  double host_copy(int, std::size_t bytes, bool h2d, int) override {
    return tick(bytes / (h2d ? 25e9 : 26e9));
  }
  double host_copy_synced(int, std::size_t bytes, bool h2d, int) override {
    return tick((h2d ? 6.5e-6 : 7.0e-6) + bytes / 25e9);  // the host's wait plus the copy
  }
  double host_copy_on_node(int, std::size_t bytes, bool h2d, int, int) override {
    return tick(bytes / (h2d ? 10e9 : 11e9));  // across the socket link
  }
  std::vector<double> host_copy_all(std::size_t bytes, bool h2d, int) override {
    ++calls;
    return h2d ? std::vector<double>{bytes / 20e9, bytes / 21e9}
               : std::vector<double>{bytes / 19e9, bytes / 18e9};
  }
  double host_copy_bidir(int, std::size_t bytes, bool h2d, int) override {
    return tick(bytes / (h2d ? 17e9 : 16e9));  // the host's duplex budget shared with the other direction
  }
  double peer_copy(int, int, std::size_t bytes, bool on, int) override {
    return tick(bytes <= 4 ? (on ? 10e-6 : 14e-6) : bytes / (on ? 24e9 : 12e9));
  }
  double peer_copy_both(int, int, std::size_t bytes, bool, int) override { return tick(bytes / 15e9); }
  double gemm(int, const std::string& dtype, int m, int n, int k, int iters) override {
    if (dtype == "fp8") throw Unsupported("no FP8 here");
    gemm_iters.push_back(iters);
    return tick(2.0 * m * n * k / 150e12);
  }
  double collective(const std::string&, const std::vector<int>&, std::size_t size, int) override {
    return tick(size / 10e9 + 20e-6);
  }

 private:
  double tick(double s) {
    ++calls;
    return s;
  }
};

const calibration::Series& find(const calibration::Measurements& m, calibration::Test t,
                                const std::string& command) {
  for (const auto& s : m.series)
    if (s.test == t && s.command.find(command) != std::string::npos) return s;
  throw std::runtime_error("no series " + command);
}

TEST(ProbeRunner, RatesFollowTheToolsDefinitions) {
  FakeBackend b;
  ProbeOptions o;
  o.quick = true;
  std::ostringstream progress;
  const calibration::Measurements m = Runner(b, o, progress).run();
  ASSERT_EQ(m.rig.gpus.size(), 2u);
  EXPECT_EQ(m.rig.nccl, "2.21.5");
  // Device copy: read and written, as the CUDA samples count it: 2 x 400 GB/s.
  EXPECT_NEAR(find(m, calibration::Test::DeviceCopy, "").points[0].gbps, 800, 1e-6);
  EXPECT_NEAR(find(m, calibration::Test::HostCopy, "H2D, each").points[1].gbps, 25, 1e-9);
  EXPECT_NEAR(find(m, calibration::Test::HostCopy, "D2H, each").points[0].gbps, 26, 1e-9);
  // Host-copy latency: one host-synchronised 4-byte copy, microseconds.
  const auto& h2d_lat = find(m, calibration::Test::HostCopy, "H2D latency");
  EXPECT_TRUE(h2d_lat.latency);
  EXPECT_NEAR(h2d_lat.points[1].latency_us, 6.5 + 4 / 25e3, 1e-9);
  EXPECT_NEAR(find(m, calibration::Test::HostCopy, "D2H latency").points[0].latency_us, 7.0 + 4 / 25e3, 1e-9);
  const auto& all = find(m, calibration::Test::HostCopy, "H2D, every GPU");
  EXPECT_TRUE(all.concurrent);
  EXPECT_EQ(all.direction, "h2d");
  EXPECT_NEAR(all.points[1].gbps, 21, 1e-9);
  const auto& all_d2h = find(m, calibration::Test::HostCopy, "D2H, every GPU");
  EXPECT_TRUE(all_d2h.concurrent);
  EXPECT_EQ(all_d2h.direction, "d2h");
  EXPECT_NEAR(all_d2h.points[0].gbps, 19, 1e-9);
  // The same GPU copying the other way at once (nvbandwidth's *_bidirectional_memcpy_ce).
  const auto& h2d_bidir = find(m, calibration::Test::HostCopy, "H2D while the same GPU");
  EXPECT_TRUE(h2d_bidir.bidirectional);
  EXPECT_FALSE(h2d_bidir.concurrent);
  EXPECT_NEAR(h2d_bidir.points[1].gbps, 17, 1e-9);
  EXPECT_NEAR(find(m, calibration::Test::HostCopy, "D2H while the same GPU").points[0].gbps, 16, 1e-9);
  EXPECT_NEAR(find(m, calibration::Test::PeerCopy, "P2P=Enabled unidirectional").points[0].gbps, 24, 1e-9);
  EXPECT_NEAR(find(m, calibration::Test::PeerCopy, "P2P=Disabled unidirectional").points[0].gbps, 12, 1e-9);
  // Bidirectional: both directions' bytes over the pair's time, as p2pBandwidthLatencyTest sums them.
  const auto& bi = find(m, calibration::Test::PeerCopy, "P2P=Disabled bidirectional");
  ASSERT_EQ(bi.points.size(), 1u);
  EXPECT_NEAR(bi.points[0].gbps, 30, 1e-9);
  EXPECT_NEAR(find(m, calibration::Test::PeerCopy, "P2P=Disabled latency").points[0].latency_us, 14, 1e-9);
  // GEMM: 2mnk / time; FP8 skipped, not recorded.
  const auto& gemm = find(m, calibration::Test::Gemm, "bf16");
  EXPECT_NEAR(gemm.points[0].tflops, 150, 1e-9);
  for (const auto& s : m.series) EXPECT_NE(s.dtype, "fp8");
  EXPECT_NE(progress.str().find("skipped: no FP8 here"), std::string::npos);
  // all_reduce on 2 GPUs of 64 MiB: algbw = S / t, busbw = algbw x 2(n-1)/n = algbw.
  const auto& ar = find(m, calibration::Test::Collective, "all_reduce on GPUs 0,1");
  const auto& big = ar.points.back();
  const double t = 64.0 * 1024 * 1024 / 10e9 + 20e-6;
  EXPECT_NEAR(big.time_us, t * 1e6, 1e-6);
  EXPECT_NEAR(big.algbw_gbs, 64.0 * 1024 * 1024 / t / 1e9, 1e-9);
  EXPECT_NEAR(big.busbw_gbs, big.algbw_gbs, 1e-9);
  EXPECT_EQ(big.samples, 3);
  // The document is valid rigsim-measurements/1.
  EXPECT_NO_THROW((void)calibration::measurements_from_json(calibration::to_json(m), "x.json"));
}

TEST(ProbeRunner, RemoteNumaNodeCopiesForGpusThatHaveOne) {
  FakeBackend b;
  ProbeOptions o;
  o.quick = true;
  o.only = {"host"};
  o.remote_nodes = {1, -1};  // GPU 0 has a farther node with memory, GPU 1 none
  std::ostringstream progress;
  const calibration::Measurements m = Runner(b, o, progress).run();
  const auto& h2d = find(m, calibration::Test::HostCopy, "H2D, host memory on the farthest NUMA node");
  EXPECT_TRUE(h2d.remote);
  ASSERT_EQ(h2d.points.size(), 1u);
  EXPECT_EQ(h2d.points[0].src, 0);
  EXPECT_NEAR(h2d.points[0].gbps, 10.0, 1e-9);
  EXPECT_EQ(h2d.points[0].note, "host memory on NUMA node 1");
  const auto& d2h = find(m, calibration::Test::HostCopy, "D2H, host memory on the farthest NUMA node");
  EXPECT_NEAR(d2h.points[0].gbps, 11.0, 1e-9);
  // The series survives the measurements file (host_memory "remote").
  const auto back = calibration::measurements_from_json(calibration::to_json(m), "m.json");
  EXPECT_TRUE(std::any_of(back.series.begin(), back.series.end(), [](const auto& s) { return s.remote; }));
  // No remote node anywhere: no such series.
  o.remote_nodes = {-1, -1};
  const calibration::Measurements none = Runner(b, o, progress).run();
  EXPECT_TRUE(std::none_of(none.series.begin(), none.series.end(), [](const auto& s) { return s.remote; }));
}

TEST(ProbeRunner, OnlyRunsTheChosenParts) {
  FakeBackend b;
  ProbeOptions o;
  o.quick = true;
  o.only = {"memory"};
  std::ostringstream progress;
  const calibration::Measurements m = Runner(b, o, progress).run();
  ASSERT_EQ(m.series.size(), 1u);
  EXPECT_EQ(m.series[0].test, calibration::Test::DeviceCopy);
  // 2 GPUs x (1 warm-up + 3 repetitions).
  EXPECT_EQ(b.calls, 8);
}

TEST(ProbeRunner, GemmWindowsLastAbout20Ms) {
  // ceil(20 ms / one GEMM), within [10, 1000]: 2 x 1024^3 / 150 TFLOP/s = 14.3 us -> 1000 (capped);
  // 2 x 8192^3 / 150 TFLOP/s = 7.33 ms -> 10 (floor); 1 ms -> 20.
  EXPECT_EQ(gemm_iterations(2.0 * 1024 * 1024 * 1024 / 150e12), 1000);
  EXPECT_EQ(gemm_iterations(2.0 * 8192.0 * 8192 * 8192 / 150e12), 10);
  EXPECT_EQ(gemm_iterations(1e-3), 20);
  EXPECT_EQ(gemm_iterations(0), 1000);
  FakeBackend b;
  ProbeOptions o;
  o.quick = true;
  o.only = {"gemm"};
  std::ostringstream progress;
  (void)Runner(b, o, progress).run();
  // Per shape and GPU: one untimed GEMM that sizes the window, then the warm-up and the timed windows.
  ASSERT_FALSE(b.gemm_iters.empty());
  EXPECT_EQ(b.gemm_iters.front(), 1);
  EXPECT_EQ(b.gemm_iters[1], gemm_iterations(2.0 * 2048 * 2048 * 2048 / 150e12));  // 115 us -> 175
}

TEST(ProbeRunner, OneGpuSaysWhatItSkips) {
  FakeBackend b;
  b.gpu_count = 1;
  ProbeOptions o;
  o.quick = true;
  std::ostringstream progress;
  const calibration::Measurements m = Runner(b, o, progress).run();
  EXPECT_NE(progress.str().find("p2p skipped: it needs two GPUs"), std::string::npos);
  EXPECT_NE(progress.str().find("nccl skipped: it needs two GPUs"), std::string::npos);
  for (const auto& s : m.series) {
    EXPECT_NE(s.test, calibration::Test::PeerCopy);
    EXPECT_NE(s.test, calibration::Test::Collective);
  }
  EXPECT_NO_THROW((void)find(m, calibration::Test::Gemm, "bf16"));
}

TEST(ProbeRunner, MedianAndSpread) {
  const Summary s = summarize({3, 1, 2, 10});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.spread(), (10.0 - 1.0) / 2.5);
  int n = 0;
  const Summary r = repeat([&] { return static_cast<double>(++n); }, 3);
  EXPECT_EQ(n, 4);  // one warm-up
  EXPECT_DOUBLE_EQ(r.median, 3);
  EXPECT_THROW((void)repeat([] { return 1.0; }, 0), std::invalid_argument);
  EXPECT_EQ(iterations_for(4), 100);
  EXPECT_EQ(iterations_for(std::size_t{1} << 30), 1);
}

std::vector<const char*> argv_of(const std::vector<std::string>& args) {
  std::vector<const char*> v{"rigsim-probe"};
  for (const auto& a : args) v.push_back(a.c_str());
  return v;
}

TEST(ProbeMain, NoDeviceIsADistinctExit) {
  const std::vector<std::string> args{"-o", (fs::temp_directory_path() / "rigsim-probe-none.json").string()};
  const auto argv = argv_of(args);
  std::ostringstream out, err;
  const int rc = probe_main(
      static_cast<int>(argv.size()), argv.data(),
      [](std::string& why) -> std::unique_ptr<Backend> {
        why = "cudaGetDeviceCount: no CUDA-capable device is detected";
        return nullptr;
      },
      {}, out, err);
  EXPECT_EQ(rc, kExitNoDevice);
  EXPECT_NE(err.str().find("no usable NVIDIA GPU: cudaGetDeviceCount"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(args[1]));
}

TEST(ProbeMain, WritesMeasurementsAndSketchButNeverOverwrites) {
  if (!fs::exists(std::string(RIGSIM_SHARED_DIR) + "/data")) GTEST_SKIP() << "no ../shared/data";
  const fs::path dir = fs::temp_directory_path() / "rigsim-probe-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "proc");
  std::ofstream(dir / "proc" / "cpuinfo")
      << "processor\t: 0\nmodel name\t: AMD EPYC 9354 32-Core Processor\n";
  Environment env;
  env.root = dir.string();
  env.host = "genoa";
  // The ESC8000A capture has 4 GPUs; the fake has 2, so give it a 2-GPU matrix of the same machine kind.
  env.topo_matrix = [] {
    return std::optional<std::string>(
        "        GPU0    GPU1    CPU Affinity    NUMA Affinity\nGPU0     X      NODE    0-31    0\nGPU1    "
        "NODE     X      0-31    0\n");
  };
  const std::string out_path = (dir / "m.json").string();
  const std::vector<std::string> args{"-o", out_path, "--quick", "--only", "memory,host"};
  const auto argv = argv_of(args);
  std::ostringstream out, err;
  const auto backend = [](std::string&) -> std::unique_ptr<Backend> {
    return std::make_unique<FakeBackend>();
  };
  ASSERT_EQ(probe_main(static_cast<int>(argv.size()), argv.data(), backend, env, out, err), 0) << err.str();
  const calibration::Measurements m = calibration::load_measurements(out_path);
  EXPECT_EQ(m.rig.layout, "m-layout.json");
  EXPECT_EQ(m.rig.cpu, "AMD EPYC 9354 32-Core Processor");
  EXPECT_TRUE(fs::exists(dir / "m-layout.json")) << err.str();
  const std::string layout = read_input_file((dir / "m-layout.json").string());
  EXPECT_NE(layout.find("epyc-9004"), std::string::npos);
  EXPECT_NE(layout.find("rtx-4090"), std::string::npos);
  // A second run refuses to replace the files.
  std::ostringstream out2, err2;
  EXPECT_EQ(probe_main(static_cast<int>(argv.size()), argv.data(), backend, env, out2, err2), kExitUsage);
  EXPECT_NE(err2.str().find("--force"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ProbeDiscover, SysfsLinkOnAFakeTree) {
  const fs::path dir = fs::temp_directory_path() / "rigsim-probe-sysfs";
  fs::remove_all(dir);
  const fs::path dev = dir / "sys/bus/pci/devices/0000:1a:00.0";
  fs::create_directories(dev);
  std::ofstream(dev / "current_link_speed") << "8.0 GT/s PCIe\n";
  std::ofstream(dev / "current_link_width") << "8\n";
  std::ofstream(dev / "max_link_speed") << "16.0 GT/s PCIe\n";
  std::ofstream(dev / "max_link_width") << "16\n";
  std::ofstream(dev / "numa_node") << "1\n";
  const PcieLink l = read_pcie_link(dir.string(), "0000:1A:00.0");
  EXPECT_EQ(l.gen, 3);
  EXPECT_EQ(l.width, 8);
  EXPECT_EQ(l.max_gen, 4);
  EXPECT_EQ(l.max_width, 16);
  EXPECT_EQ(l.numa, 1);
  const PcieLink none = read_pcie_link(dir.string(), "0000:99:00.0");
  EXPECT_EQ(none.gen, 0);
  EXPECT_EQ(none.numa, -1);
  fs::create_directories(dir / "proc/driver/nvidia");
  std::ofstream(dir / "proc/driver/nvidia/version")
      << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n";
  EXPECT_EQ(driver_version(dir.string()), "550.90.07");
  EXPECT_EQ(pcie_gen_of_speed("2.5 GT/s"), 1);
  EXPECT_EQ(pcie_gen_of_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_gen_of_speed("Unknown"), 0);
  fs::remove_all(dir);
}

TEST(ProbeDiscover, FarthestMemoryNodeFromTheKernelsDistances) {
  // A 2P EPYC in NPS2: nodes 0-1 on socket 0, 2-3 on socket 1 (distances 10 / 12 / 32); node 3 has no
  // memory. From node 0 the farthest node with memory is 2.
  const fs::path dir = fs::temp_directory_path() / "rigsim-probe-numa";
  fs::remove_all(dir);
  const fs::path base = dir / "sys/devices/system/node";
  for (int n = 0; n < 4; ++n) fs::create_directories(base / ("node" + std::to_string(n)));
  std::ofstream(base / "has_memory") << "0-2\n";
  std::ofstream(base / "node0/distance") << "10 12 32 32\n";
  std::ofstream(base / "node2/distance") << "32 32 10 12\n";
  EXPECT_EQ(farthest_memory_node(dir.string(), 0), 2);
  EXPECT_EQ(farthest_memory_node(dir.string(), 2), 0);   // ties (0 and 1 at 32): the lowest id
  EXPECT_EQ(farthest_memory_node(dir.string(), 1), -1);  // no distance file
  EXPECT_EQ(farthest_memory_node(dir.string(), -1), -1);
  std::ofstream(base / "has_memory") << "0\n";  // one node with memory: nothing remote
  EXPECT_EQ(farthest_memory_node(dir.string(), 0), -1);
  EXPECT_EQ(parse_node_list("0-1,4"), (std::vector<int>{0, 1, 4}));
  EXPECT_TRUE(parse_node_list("x").empty());
  fs::remove_all(dir);
}

TEST(ProbeDiscover, CatalogKeysFromNames) {
  const std::vector<std::pair<std::string, std::optional<std::string>>> gpus = {
      {"NVIDIA GeForce RTX 4090", "rtx-4090"},
      {"NVIDIA GeForce RTX 3090 Ti", "rtx-3090-ti"},
      {"NVIDIA GeForce RTX 3090", "rtx-3090"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
      {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
      {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
      {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"},
      {"Quadro RTX 6000", "quadro-rtx-6000"},
      {"NVIDIA RTX A6000", "rtx-a6000"},
      {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
      {"Tesla P40", "tesla-p40"},
      {"NVIDIA L40S", "l40s"},
      {"NVIDIA H100 80GB HBM3", "h100-sxm5"},  // HBM3 at 80 GB: only the SXM5 (the PCIe card is HBM2e)
      {"NVIDIA B200", "b200"},
      {"NVIDIA B300 SXM6 AC", "b300"},
      {"NVIDIA GeForce RTX 5080", "rtx-5080"},
      {"NVIDIA GeForce RTX 4080 SUPER", "rtx-4080-super"},
      {"NVIDIA GeForce RTX 4080", "rtx-4080"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000-blackwell"},
      {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000-blackwell-max-q"},
      {"NVIDIA L40", "l40"},
      {"NVIDIA A10", "a10"},
      {"NVIDIA H100 NVL", "h100-nvl"},
      {"NVIDIA A100-SXM4-64GB", "a100-sxm4-64gb"},
  };
  for (const auto& [name, key] : gpus) EXPECT_EQ(topology::gpu_key_from_name(name), key) << name;
  const std::vector<std::pair<std::string, std::optional<std::string>>> cpus = {
      {"AMD EPYC 7543 32-Core Processor", "epyc-7003"},
      {"AMD EPYC 7742 64-Core Processor", "epyc-7002"},
      {"AMD EPYC 9354 32-Core Processor", "epyc-9004"},
      {"AMD EPYC 9555 64-Core Processor", std::nullopt},  // Turin: not in the catalog
      {"AMD Ryzen Threadripper PRO 5975WX 32-Cores", "threadripper-pro-5000"},
      {"AMD Ryzen Threadripper 2950X 16-Core Processor", "threadripper-2000"},
      {"AMD Ryzen 9 5950X 16-Core Processor", "ryzen-5000"},
      {"Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", "xeon-e5-v4"},
      {"Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", "xeon-e5-v1"},
      {"Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "xeon-scalable-2"},
      {"Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", "xeon-scalable-3"},
      {"Intel(R) Xeon(R) Platinum 8480+", "xeon-scalable-4"},
      {"12th Gen Intel(R) Core(TM) i9-12900K", "core-desktop-12"},
  };
  for (const auto& [name, key] : cpus) EXPECT_EQ(topology::cpu_key_from_name(name), key) << name;
}

TEST(ProbeSketch, FromARealMatrix) {
  const std::string path = std::string(RIGSIM_SHARED_DIR) +
                           "/data/nvidia-smi-topo/stelline-asus-esc8000a-4xrtx6000ada-2s-genoa.txt";
  if (!fs::exists(path)) GTEST_SKIP() << "no ../shared/data";
  calibration::Rig rig;
  rig.cpu = "AMD EPYC 9354 32-Core Processor";
  for (int i = 0; i < 4; ++i)
    rig.gpus.push_back({i, "NVIDIA RTX 6000 Ada Generation", "", 4, 16, 4, 16, -1, true});
  std::string why;
  const auto layout = sketch_layout(read_input_file(path), rig, {}, why);
  ASSERT_TRUE(layout) << why;
  EXPECT_NE(layout->find("\"gen\": 4"), std::string::npos);  // the links' trained generation
  rig.gpus[0].name = "NVIDIA Mystery 9000";
  EXPECT_FALSE(sketch_layout(read_input_file(path), rig, {}, why));
  EXPECT_NE(why.find("--gpu"), std::string::npos);
}

TEST(ProbeSketch, AMaskedCpuNameFallsBackToItsCpuid) {
  // The lent H200 VM: /proc/cpuinfo says "Intel(R) Xeon(R) Processor". Its CPUID family and model pick
  // the catalog CPU where exactly one has them, and the sketch says it did; where several share them
  // (6/85: Skylake-SP, Cascade Lake-SP, X299) it names them and asks for --cpu.
  const fs::path dir = fs::temp_directory_path() / "rigsim-probe-cpuid";
  fs::remove_all(dir);
  fs::create_directories(dir / "proc");
  std::ofstream(dir / "proc" / "cpuinfo") << "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                                             "model\t\t: 143\nmodel name\t: Intel(R) Xeon(R) Processor\n\n"
                                             "processor\t: 1\ncpu family\t: 6\nmodel\t\t: 85\n";
  const CpuId id = cpu_id(dir.string());
  EXPECT_EQ(id.family, 6);
  EXPECT_EQ(id.model, 143);
  EXPECT_EQ(cpu_id((dir / "nowhere").string()).family, -1);
  fs::remove_all(dir);
  EXPECT_EQ(topology::cpu_keys_from_cpuid(6, 143), std::vector<std::string>{"xeon-scalable-4"});
  EXPECT_EQ(topology::cpu_keys_from_cpuid(6, 85).size(), 3u);
  EXPECT_TRUE(topology::cpu_keys_from_cpuid(-1, -1).empty());
  calibration::Rig rig;
  rig.cpu = "Intel(R) Xeon(R) Processor";
  rig.gpus.push_back({0, "NVIDIA H200", "", 5, 16, 5, 16, -1, false});
  const std::string matrix = "\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \t0-15\t0\t\tN/A\n";
  std::string why;
  EXPECT_FALSE(sketch_layout(matrix, rig, {}, why));  // no CPUID known: the name alone decides
  EXPECT_NE(why.find("--cpu"), std::string::npos);
  const auto layout = sketch_layout(matrix, rig, {}, why, {6, 143});
  ASSERT_TRUE(layout) << why;
  EXPECT_NE(layout->find("\"model\": \"xeon-scalable-4\""), std::string::npos);
  EXPECT_NE(layout->find("CPU model xeon-scalable-4 (from its CPUID family 6 model 143: its name, "),
            std::string::npos)
      << *layout;
  EXPECT_FALSE(sketch_layout(matrix, rig, {}, why, {6, 85}));
  EXPECT_NE(why.find("fits xeon-scalable-1, xeon-scalable-2, core-hedt-x299"), std::string::npos) << why;
}

}  // namespace
}  // namespace rigsim::probe
