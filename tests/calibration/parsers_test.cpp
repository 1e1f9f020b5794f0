// Tool-output parsers on the real captures of ../shared/data (values read off the files) and on
// hand-made malformed inputs: every mistake is an InputError naming the file and line.
#include <gtest/gtest.h>

#include <filesystem>

#include "calibration/parsers.hpp"
#include "common/input.hpp"

namespace rigsim::calibration {
namespace {

namespace fs = std::filesystem;

std::string capture(const std::string& name) {
  return std::string(RIGSIM_SHARED_DIR) + "/data/" + name;
}

#define NEED_DATA() \
  if (!fs::exists(capture(""))) GTEST_SKIP() << "no ../shared/data"

const Series& only(const ParseResult& r, Test t, std::size_t nth = 0) {
  for (const Series& s : r.measurements.series)
    if (s.test == t && nth-- == 0) return s;
  throw std::runtime_error("no such series");
}

TEST(ParseNcclTests, CurrentLayout) {
  NEED_DATA();
  const ParseResult r = load_any(capture("nccl-tests/autodl-2x2080ti-all_reduce-nop2p.txt"));
  const Series& s = only(r, calibration::Test::Collective);
  EXPECT_EQ(s.op, "all_reduce");  // from the file name: nccl-tests does not print it
  EXPECT_EQ(s.gpus, (std::vector<int>{0, 1}));
  ASSERT_EQ(s.points.size(), 28u);
  EXPECT_EQ(s.points.front().bytes, 8u);
  EXPECT_DOUBLE_EQ(s.points.front().time_us, 12.25);
  EXPECT_DOUBLE_EQ(s.points.front().in_place_time_us, 12.00);
  EXPECT_EQ(s.points.back().bytes, 1073741824u);
  EXPECT_DOUBLE_EQ(s.points.back().time_us, 268588);
  EXPECT_DOUBLE_EQ(s.points.back().busbw_gbs, 4.00);
  EXPECT_EQ(r.measurements.rig.gpus[1].bus_id, "0000:b5:00");
  EXPECT_EQ(r.measurements.rig.gpus[1].name, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(r.measurements.rig.host, "autodl-container-xxxxx");
}

TEST(ParseNcclTests, OldLayoutWithLogLinesAndMultiHost) {
  NEED_DATA();
  const ParseResult k80 = load_any(capture("nccl-tests/azureml-nc24-4xk80-all_reduce-oldlayout.txt"));
  const Series& s = only(k80, calibration::Test::Collective);
  ASSERT_EQ(s.points.size(), 7u);  // 32 MiB .. 2 GiB; the NCCL INFO line inside the table is skipped
  EXPECT_DOUBLE_EQ(s.points.front().time_us, 19902);
  EXPECT_DOUBLE_EQ(s.points.front().busbw_gbs, 2.53);
  EXPECT_DOUBLE_EQ(s.points.back().in_place_busbw_gbs, 2.56);
  EXPECT_EQ(k80.notes.size(), 1u);
  const ParseResult h200 = load_any(capture("nccl-tests/nccltests-issue256-2x8xh200-baremetal-all_reduce.txt"));
  const Series& m = only(h200, calibration::Test::Collective);
  EXPECT_EQ(m.nodes, 2);
  EXPECT_EQ(m.gpus.size(), 8u);
  EXPECT_EQ(h200.measurements.rig.gpus.size(), 8u);
  EXPECT_EQ(h200.measurements.rig.gpus[7].bus_id, "0xdb");
}

TEST(ParseNcclTests, EveryCaptureParses) {
  NEED_DATA();
  for (const auto& e : fs::directory_iterator(capture("nccl-tests"))) {
    const ParseResult r = load_any(e.path().string());
    EXPECT_GE(r.measurements.series.at(0).points.size(), 3u) << e.path();
  }
}

TEST(ParseP2p, AllMatricesOfTheSample) {
  NEED_DATA();
  const ParseResult r = load_any(capture("p2p/autodl-2x2080ti-p2pBandwidthLatencyTest-nop2p.txt"));
  const Series& uni_off = only(r, calibration::Test::PeerCopy, 0);
  EXPECT_FALSE(uni_off.peer_access);
  EXPECT_FALSE(uni_off.bidirectional);
  ASSERT_EQ(uni_off.points.size(), 2u);
  EXPECT_DOUBLE_EQ(uni_off.points[0].gbps, 5.71);
  EXPECT_DOUBLE_EQ(uni_off.points[1].gbps, 5.70);
  EXPECT_EQ(uni_off.points[0].bytes, 160000000u);
  const Series& diag = only(r, calibration::Test::DeviceCopy);
  EXPECT_DOUBLE_EQ(diag.points[1].gbps, 543.05);
  const Series& bi_on = only(r, calibration::Test::PeerCopy, 3);
  EXPECT_TRUE(bi_on.peer_access && bi_on.bidirectional);
  EXPECT_DOUBLE_EQ(bi_on.points[0].gbps, 6.10);
  const Series& lat_off = only(r, calibration::Test::PeerCopy, 4);
  EXPECT_TRUE(lat_off.latency);
  EXPECT_DOUBLE_EQ(lat_off.points[0].latency_us, 14.76);
  EXPECT_DOUBLE_EQ(lat_off.points[1].latency_us, 13.95);
  EXPECT_EQ(r.measurements.rig.gpus[1].bus_id, "0000:b5:00.0");
  // A matrix with TABs and trailing spaces (nccl-tests#287).
  const ParseResult tabs = load_any(capture("p2p/nccltests-issue287-2xrtx5090-genoa-p2pBandwidthLatencyTest-nop2p.txt"));
  EXPECT_EQ(tabs.measurements.series.size(), 7u);
  EXPECT_EQ(tabs.measurements.rig.gpus[1].bus_id, "0000:61:00.0");
}

TEST(ParseBandwidthTest, QuickMode) {
  NEED_DATA();
  const ParseResult r = load_any(capture("p2p/routergao-a100-sxm4-bandwidthTest.txt"));  // TAB separated
  const Series& h2d = only(r, calibration::Test::HostCopy, 0);
  EXPECT_EQ(h2d.direction, "h2d");
  EXPECT_EQ(h2d.points[0].bytes, 32000000u);
  EXPECT_DOUBLE_EQ(h2d.points[0].gbps, 12.3);
  EXPECT_DOUBLE_EQ(only(r, calibration::Test::HostCopy, 1).points[0].gbps, 13.2);
  EXPECT_DOUBLE_EQ(only(r, calibration::Test::DeviceCopy).points[0].gbps, 1157.5);
  EXPECT_EQ(r.measurements.rig.gpus[0].name, "NVIDIA A100-SXM4-40GB");
}

TEST(ParseNvbandwidth, CopyEngineTestsAndNotesForTheRest) {
  NEED_DATA();
  const ParseResult r = load_any(capture("p2p/llmaction-8xh800-nvbandwidth-v0.2-all.txt"));
  EXPECT_EQ(r.measurements.series.size(), 16u);
  EXPECT_DOUBLE_EQ(only(r, calibration::Test::HostCopy, 0).points[0].gbps, 55.28);
  EXPECT_EQ(only(r, calibration::Test::HostCopy, 0).points[0].bytes, 64u << 20);  // v0.2: 64 MiB buffers
  // The host tests with other copies running, in the file's order: each GPU's measured copy.
  const Series& h2d_bidir = only(r, calibration::Test::HostCopy, 2);
  EXPECT_EQ(h2d_bidir.direction, "h2d");
  EXPECT_TRUE(h2d_bidir.bidirectional);
  EXPECT_FALSE(h2d_bidir.concurrent);
  EXPECT_DOUBLE_EQ(h2d_bidir.points[0].gbps, 52.75);
  const Series& all_to_host = only(r, calibration::Test::HostCopy, 4);
  EXPECT_EQ(all_to_host.direction, "d2h");
  EXPECT_TRUE(all_to_host.concurrent);
  EXPECT_FALSE(all_to_host.bidirectional);
  EXPECT_EQ(all_to_host.points.size(), 8u);
  EXPECT_DOUBLE_EQ(all_to_host.points[1].gbps, 44.45);
  EXPECT_EQ(all_to_host.points[1].src, 1);
  // v0.2 prints host_to_all_bidirectional under a "<-" title; the test's name says what it times (H2D).
  const Series& host_to_all_bidir = only(r, calibration::Test::HostCopy, 7);
  EXPECT_EQ(host_to_all_bidir.direction, "h2d");
  EXPECT_TRUE(host_to_all_bidir.concurrent && host_to_all_bidir.bidirectional);
  EXPECT_DOUBLE_EQ(host_to_all_bidir.points[0].gbps, 33.49);
  // SM copies: a kernel's stores to a peer (row -> column) and to host memory; its reads are notes.
  const Series& sm_write = only(r, calibration::Test::PeerCopy, 6);
  EXPECT_TRUE(sm_write.sm_copy);
  EXPECT_EQ(sm_write.points[0].src, 0);
  EXPECT_EQ(sm_write.points[0].dst, 1);
  EXPECT_DOUBLE_EQ(sm_write.points[0].gbps, 165.44);
  const Series& sm_d2h = only(r, calibration::Test::HostCopy, 8);
  EXPECT_TRUE(sm_d2h.sm_copy);
  EXPECT_EQ(sm_d2h.direction, "d2h");
  EXPECT_DOUBLE_EQ(sm_d2h.points[0].gbps, 52.81);
  EXPECT_FALSE(only(r, calibration::Test::HostCopy, 0).sm_copy);
  // Every peer into one GPU and one GPU out to every peer: a row per GPU, the read tests' data reversed.
  const Series& all_to_one_write = only(r, calibration::Test::PeerCopy, 2);
  EXPECT_EQ(all_to_one_write.fan, "in");
  EXPECT_EQ(all_to_one_write.points.size(), 8u);
  EXPECT_EQ(all_to_one_write.points[1].src, 1);
  EXPECT_DOUBLE_EQ(all_to_one_write.points[0].gbps, 177.69);
  EXPECT_EQ(only(r, calibration::Test::PeerCopy, 3).fan, "out");  // all_to_one_read
  EXPECT_EQ(only(r, calibration::Test::PeerCopy, 4).fan, "out");  // one_to_all_write
  EXPECT_EQ(only(r, calibration::Test::PeerCopy, 5).fan, "in");   // one_to_all_read
  const Series& read = only(r, calibration::Test::PeerCopy, 0);
  EXPECT_EQ(read.points.size(), 56u);  // 8 x 7, N/A diagonal skipped
  const Series& write = only(r, calibration::Test::PeerCopy, 1);
  // Write tests copy row -> column (the title's arrow shows the other way): row 0's first value is 0 -> 1.
  EXPECT_EQ(write.points[0].src, 0);
  EXPECT_EQ(write.points[0].dst, 1);
  EXPECT_EQ(read.points[0].src, 1);  // read tests: column -> row
  EXPECT_EQ(read.points[0].dst, 0);
  EXPECT_DOUBLE_EQ(write.points[0].gbps, 176.08);
  EXPECT_EQ(r.measurements.rig.driver, "525.105.17");
  EXPECT_EQ(r.measurements.series[0].tool_version, "v0.2");
  EXPECT_GE(r.notes.size(), 14u);  // every other test named
}

TEST(ParseNvbandwidth, BidirectionalPeerCopiesFromV06AreTheirTotal) {
  // From v0.6 a device-to-device bidirectional test prints each direction, then their Total; before, one
  // direction alone, which is not imported.
  const std::string v08 =
      "nvbandwidth Version: v0.8\n\n"
      "Running device_to_device_bidirectional_memcpy_write_ce.\n"
      "memcpy CE GPU(row) <-> GPU(column) Write1 bandwidth (GB/s)\n"
      "           0         1\n"
      " 0       N/A    770.26\n"
      " 1    770.26       N/A\n\n"
      "SUM device_to_device_bidirectional_memcpy_write_ce_write1 1540.52\n\n"
      "memcpy CE GPU(row) <-> GPU(column) Write2 bandwidth (GB/s)\n"
      "           0         1\n"
      " 0       N/A    769.91\n"
      " 1    769.91       N/A\n\n"
      "memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s)\n"
      "           0         1\n"
      " 0       N/A   1540.17\n"
      " 1   1540.17       N/A\n\n"
      "SUM device_to_device_bidirectional_memcpy_write_ce_total 3080.34\n";
  const ParseResult r = parse_nvbandwidth(v08, "nvbandwidth.txt");
  ASSERT_EQ(r.measurements.series.size(), 1u);
  const Series& bi = r.measurements.series[0];
  EXPECT_TRUE(bi.bidirectional);
  EXPECT_TRUE(bi.peer_access);
  ASSERT_EQ(bi.points.size(), 2u);
  EXPECT_DOUBLE_EQ(bi.points[0].gbps, 1540.17);
  EXPECT_EQ(bi.points[0].src, 0);
  EXPECT_EQ(bi.points[0].dst, 1);
  std::string old = v08;
  old.replace(old.find("v0.8"), 4, "v0.5");
  try {
    (void)parse_nvbandwidth(old, "nvbandwidth.txt");
    ADD_FAILURE() << "a v0.5 bidirectional figure was imported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no nvbandwidth test rigsim imports"), std::string::npos)
        << e.what();
  }
}

std::string error_of(const std::string& text, const std::string& name = "x_all_reduce.txt") {
  try {
    (void)parse_nccl_tests(text, name);
  } catch (const InputError& e) {
    return e.location() + ": " + e.what();
  }
  return "no error";
}

const char* kHeader =
    "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";

TEST(ParseNcclTests, TheNcclReleaseThatRan) {
  const std::string row =
      "           8             2     float     sum      -1    12.25    0.00    0.00      0    12.00    0.00 "
      "   0.00      0\n";
  EXPECT_EQ(parse_nccl_tests(std::string(kHeader) + row, "x_all_reduce.txt").measurements.rig.nccl, "")
      << "no release printed: none assumed";
  // nccl-tests' own line names the library's NCCL_VERSION_CODE (the headers it was built with may differ).
  const std::string tests_line = "# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22703\n";
  EXPECT_EQ(parse_nccl_tests(tests_line + kHeader + row, "x_all_reduce.txt").measurements.rig.nccl, "2.27.3");
  // Releases before 2.9 encode major x 1000 + minor x 100 + patch.
  const std::string old_code = "# nccl-tests version 2.11.0 nccl-headers=2804 nccl-library=2804\n";
  EXPECT_EQ(parse_nccl_tests(old_code + kHeader + row, "x_all_reduce.txt").measurements.rig.nccl, "2.8.4");
  // NCCL_DEBUG=INFO: NCCL's own line, as printed; validate reads it (topology::parse_nccl_version).
  const std::string info = "gpu01:1234:1234 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n";
  const ParseResult r = parse_nccl_tests(info + kHeader + row, "x_all_reduce.txt");
  EXPECT_EQ(r.measurements.rig.nccl, "2.18.3+cuda12.2");
  EXPECT_EQ(r.measurements.series.at(0).points.size(), 1u);
  EXPECT_NE(error_of(std::string("# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=9999999\n") +
                     kHeader + row)
                .find("NCCL version code"),
            std::string::npos);
}

TEST(ParseMalformed, NamedByLine) {
  const std::string ok = std::string(kHeader) +
                         "           8             2     float     sum      -1    12.25    0.00    0.00      0    12.00    0.00    0.00      0\n";
  EXPECT_EQ(error_of(ok), "no error");
  EXPECT_EQ(parse_nccl_tests(ok, "x_all_reduce.txt").measurements.series.at(0).gpus_per_thread, 2)
      << "nGpus 2 in the parameter line: one thread launched both GPUs";
  EXPECT_NE(error_of(std::string(kHeader) + "           8             2     float     sum      -1    12.25    0.00\n")
                .find("line 4"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) +
                     "           8             2     float     sum      -1    fast    0.00    0.00      0    12.00    0.00    0.00      0\n")
                .find("\"fast\""),
            std::string::npos);
  EXPECT_NE(error_of(kHeader).find("no rows"), std::string::npos);
  EXPECT_NE(error_of(ok, "mystery.txt").find("--op"), std::string::npos);
  EXPECT_NE(error_of(ok, "x_all_gather.txt").find("redop"), std::string::npos);
  EXPECT_NE(error_of("").find("no nccl-tests result table"), std::string::npos);
  const std::string cut = "Device: 0, A, pciBusID: 1, pciDeviceID: 0, pciDomainID:0\n"
                          "Device: 1, B, pciBusID: 2, pciDeviceID: 0, pciDomainID:0\n"
                          "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n     0 541.84   5.71\n";
  try {
    (void)parse_p2p_bandwidth_latency(cut, "p.txt");
    ADD_FAILURE() << "a truncated matrix was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("1 of 2 rows"), std::string::npos) << e.what();
  }
  const std::string bad_bw = " Device 0: X\n Host to Device Bandwidth, 1 Device(s)\n PINNED Memory Transfers\n"
                             "   Transfer Size (Bytes)        Bandwidth(GB/s)\n   32000000                     lots\n";
  try {
    (void)parse_bandwidth_test(bad_bw, "b.txt");
    ADD_FAILURE() << "a garbage bandwidth was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.location(), "line 5");
  }
  EXPECT_EQ(detect_tool("hello world"), "");
}

}  // namespace
}  // namespace rigsim::calibration
