// The rigsim-measurements/1 reader: a document survives to_json -> measurements_from_json unchanged,
// and every mistake is an InputError at the JSON pointer of the offending value.
#include <gtest/gtest.h>

#include "calibration/measurements.hpp"
#include "common/input.hpp"

namespace rigsim::calibration {
namespace {

using nlohmann::json;

json sample() {
  return json::parse(R"({
    "schema": "rigsim-measurements/1",
    "rig": {"name": "two cards", "layout": "layouts/x.json", "gpus": [{"index": 0, "name": "A"}, {"index": 1}]},
    "series": [
      {"tool": "nccl-tests", "test": "collective", "op": "all_reduce", "gpus": [1, 0], "gpus_per_thread": 2,
       "env": {"NCCL_P2P_DISABLE": "1"},
       "points": [{"bytes": 8, "time_us": 12.5}, {"bytes": 1073741824, "time_us": 250000, "busbw_gbs": 4.29}]},
      {"tool": "p2pBandwidthLatencyTest", "test": "peer_copy", "peer_access": false, "bidirectional": true,
       "points": [{"src": 0, "dst": 1, "bytes": 160000000, "gbps": 6.1, "id": "bi"}]},
      {"tool": "p2pBandwidthLatencyTest", "test": "peer_copy", "peer_access": true, "latency": true,
       "points": [{"src": 1, "dst": 0, "latency_us": 1.3}]},
      {"tool": "bandwidthTest", "test": "host_copy", "direction": "d2h", "host_memory": "remote",
       "points": [{"gpu": 1, "bytes": 32000000, "gbps": 13.2}]},
      {"tool": "bandwidthTest", "test": "device_copy", "points": [{"gpu": 0, "bytes": 32000000, "gbps": 500}]},
      {"tool": "rigsim-probe", "test": "gemm", "dtype": "bf16", "points": [{"gpu": 1, "m": 8192, "n": 8192, "k": 4096, "tflops": 150.5}]},
      {"tool": "rigsim-probe", "test": "host_copy", "direction": "h2d", "latency": true,
       "points": [{"gpu": 0, "bytes": 4, "latency_us": 2.4}]},
      {"tool": "nvbandwidth", "test": "host_copy", "direction": "d2h", "concurrent": true, "bidirectional": true,
       "points": [{"gpu": 1, "bytes": 536870912, "gbps": 26.6}]},
      {"tool": "nvbandwidth", "test": "peer_copy", "peer_access": true, "copy": "sm",
       "points": [{"src": 0, "dst": 1, "bytes": 536870912, "gbps": 717.2}]},
      {"tool": "nvbandwidth", "test": "host_copy", "direction": "d2h", "copy": "sm",
       "points": [{"gpu": 0, "bytes": 536870912, "gbps": 52.7}]},
      {"tool": "nvbandwidth", "test": "peer_copy", "peer_access": true, "fan": "in",
       "points": [{"gpu": 1, "bytes": 536870912, "gbps": 795.3}]}
    ]})");
}

std::string error_of(const json& doc) {
  try {
    (void)measurements_from_json(doc, "m.json");
  } catch (const InputError& e) {
    return e.location() + ": " + e.what();
  }
  return "no error";
}

TEST(Measurements, RoundTripKeepsEveryField) {
  const Measurements m = measurements_from_json(sample(), "m.json");
  ASSERT_EQ(m.series.size(), 11u);
  EXPECT_EQ(m.series[10].fan, "in");
  EXPECT_EQ(m.series[10].points[0].src, 1);
  EXPECT_TRUE(m.series[7].concurrent && m.series[7].bidirectional);
  EXPECT_TRUE(m.series[8].sm_copy);
  EXPECT_TRUE(m.series[9].sm_copy);
  EXPECT_FALSE(m.series[1].sm_copy);
  EXPECT_TRUE(m.series[6].latency);
  EXPECT_DOUBLE_EQ(m.series[6].points[0].latency_us, 2.4);
  EXPECT_EQ(m.series[5].dtype, "bf16");
  EXPECT_EQ(m.series[5].points[0].k, 4096u);
  EXPECT_EQ(m.series[0].gpus, (std::vector<int>{1, 0}));
  EXPECT_EQ(m.series[0].env.front().first, "NCCL_P2P_DISABLE");
  EXPECT_EQ(m.series[0].gpus_per_thread, 2);
  EXPECT_DOUBLE_EQ(m.series[0].points[1].busbw_gbs, 4.29);
  EXPECT_TRUE(m.series[1].bidirectional);
  EXPECT_FALSE(m.series[1].peer_access);
  EXPECT_EQ(m.series[3].direction, "d2h");
  EXPECT_TRUE(m.series[3].remote);
  EXPECT_EQ(to_json(measurements_from_json(to_json(m), "again.json")), to_json(m));
  EXPECT_EQ(to_json(m), sample()) << to_json(m).dump(2);
}

TEST(Measurements, MetricPerTest) {
  const Measurements m = measurements_from_json(sample(), "m.json");
  EXPECT_EQ(metric_of(m.series[0], m.series[0].points[0]).name, "time");
  EXPECT_EQ(metric_of(m.series[0], m.series[0].points[1]).name, "busbw");
  EXPECT_EQ(metric_of(m.series[2], m.series[2].points[0]).name, "latency");
  EXPECT_FALSE(metric_of(m.series[2], m.series[2].points[0]).higher_is_faster);
  EXPECT_EQ(metric_of(m.series[4], m.series[4].points[0]).unit, "GB/s");
  EXPECT_EQ(metric_of(m.series[6], m.series[6].points[0]).name, "latency");
  EXPECT_EQ(metric_of(m.series[6], m.series[6].points[0]).unit, "us");
}

// Some sources publish only nccl-tests' in-place columns (Azure's benchmarking guide keeps the in-place
// busbw alone): such a point is compared on them; a point with neither run is still an error.
TEST(Measurements, InPlaceColumnsAloneAreAPoint) {
  json d = sample();
  d["series"][0]["points"] = json::parse(R"([{"bytes": 1024, "in_place_busbw_gbs": 0.06},
                                               {"bytes": 8, "in_place_time_us": 30.5}])");
  const Measurements m = measurements_from_json(d, "m.json");
  const Metric busbw = metric_of(m.series[0], m.series[0].points[0]);
  EXPECT_EQ(busbw.name, "busbw");
  EXPECT_DOUBLE_EQ(busbw.value, 0.06);
  const Metric time = metric_of(m.series[0], m.series[0].points[1]);
  EXPECT_EQ(time.name, "time");
  EXPECT_DOUBLE_EQ(time.value, 30.5);
  EXPECT_FALSE(time.higher_is_faster);
  EXPECT_EQ(to_json(m), d);
  d["series"][0]["points"] = json::parse(R"([{"bytes": 1024}])");
  EXPECT_NE(error_of(d).find("/series/0/points/0: a collective point needs"), std::string::npos) << error_of(d);
}

TEST(Measurements, MistakesAreLocated) {
  json d = sample();
  d["schema"] = "rigsim-measurements/2";
  EXPECT_NE(error_of(d).find("/schema"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][1]["points"][0]["dst"] = 2;
  EXPECT_NE(error_of(d).find("/series/1/points/0/dst"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][0]["points"][0]["bytes"] = -8;
  EXPECT_NE(error_of(d).find("/series/0/points/0/bytes"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][3]["points"][0]["gbps"] = 0;
  EXPECT_NE(error_of(d).find("/series/3/points/0/gbps"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][0]["op"] = "allreduce";
  EXPECT_NE(error_of(d).find("/series/0/op"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][0]["gpus_per_thread"] = 0;
  EXPECT_NE(error_of(d).find("/series/0/gpus_per_thread"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][0]["gpus"] = {0, 0};
  EXPECT_NE(error_of(d).find("listed twice"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][2]["points"][0]["gbps"] = 3;  // a latency series has no bandwidth
  EXPECT_NE(error_of(d).find("/series/2/points/0/gbps"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][6]["points"][0].erase("latency_us");  // a host-copy latency point needs its latency
  EXPECT_NE(error_of(d).find("/series/6/points/0: a latency series' point needs"), std::string::npos)
      << error_of(d);
  d = sample();
  d["series"][6]["host_memory"] = "remote";  // measured on the GPU's own node only
  EXPECT_NE(error_of(d).find("/series/6/latency"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][7]["host_memory"] = "remote";  // remote memory is measured one way, one GPU
  EXPECT_NE(error_of(d).find("/series/7/host_memory"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][8]["copy"] = "dma";
  EXPECT_NE(error_of(d).find("/series/8/copy"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][8]["bidirectional"] = true;  // only the one-way SM write is simulated
  EXPECT_NE(error_of(d).find("/series/8/copy"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][9]["direction"] = "h2d";  // an SM read of host memory is not simulated
  EXPECT_NE(error_of(d).find("/series/9/copy: an SM host-copy series"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][10]["fan"] = "both";
  EXPECT_NE(error_of(d).find("/series/10/fan"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][10]["peer_access"] = false;  // nvbandwidth's fan tests need peers with access
  EXPECT_NE(error_of(d).find("/series/10/fan"), std::string::npos) << error_of(d);
  d = sample();
  d["rig"]["gpus"][1]["index"] = 3;
  EXPECT_NE(error_of(d).find("/rig/gpus/1/index"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][4]["test"] = "fft";
  EXPECT_NE(error_of(d).find("/series/4/test"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][5]["dtype"] = "fp64";
  EXPECT_NE(error_of(d).find("/series/5/dtype"), std::string::npos) << error_of(d);
  d = sample();
  d["series"][5]["points"][0]["m"] = 0;
  EXPECT_NE(error_of(d).find("/series/5/points/0/m"), std::string::npos) << error_of(d);
}

TEST(Measurements, PairsNameTwoPointsOnOneMetric) {
  json d = sample();
  d["series"][3]["points"][0]["id"] = "d2h";
  d["series"][4]["points"][0]["id"] = "local";
  d["pairs"] = json::parse(R"([{"a": "bi", "b": "d2h", "changed": "peer copy -> host copy"}])");
  const Measurements m = measurements_from_json(d, "m.json");
  ASSERT_EQ(m.pairs.size(), 1u);
  EXPECT_EQ(m.pairs[0].b, "d2h");
  EXPECT_EQ(to_json(m), d);
  json bad = d;
  bad["pairs"][0]["b"] = "h2d";
  EXPECT_NE(error_of(bad).find("/pairs/0/b: no point has the id \"h2d\""), std::string::npos) << error_of(bad);
  bad = d;
  bad["pairs"][0]["b"] = "bi";
  EXPECT_NE(error_of(bad).find("/pairs/0/b"), std::string::npos) << error_of(bad);
  bad = d;
  bad["series"][2]["points"][0]["id"] = "lat";
  bad["pairs"][0]["b"] = "lat";
  EXPECT_NE(error_of(bad).find("a pair compares one metric"), std::string::npos) << error_of(bad);
  bad = d;
  bad["pairs"][0].erase("changed");
  EXPECT_NE(error_of(bad).find("/pairs/0: missing required key \"changed\""), std::string::npos) << error_of(bad);
  bad = d;
  bad["pairs"][0]["why"] = "typo";
  EXPECT_NE(error_of(bad).find("/pairs/0/why"), std::string::npos) << error_of(bad);
}

}  // namespace
}  // namespace rigsim::calibration
