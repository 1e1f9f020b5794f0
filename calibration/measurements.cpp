// Reading and writing "rigsim-measurements/1" (docs/measurements-format.md): strict like a layout,
// every error with the file and the JSON pointer.
#include "calibration/measurements.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "common/input.hpp"
#include "common/output.hpp"

namespace rigsim::calibration {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<Test, std::string_view>, 5> kTests{{
    {Test::Collective, "collective"},
    {Test::PeerCopy, "peer_copy"},
    {Test::HostCopy, "host_copy"},
    {Test::DeviceCopy, "device_copy"},
    {Test::Gemm, "gemm"},
}};

constexpr std::array<std::string_view, 5> kGemmDtypes{"bf16", "fp16", "fp8", "tf32", "fp32"};

std::uint64_t read_dim(ObjectReader& r, const std::string& key) {
  const int v = r.required_int(key);
  if (v < 1 || v > (1 << 20))
    r.fail(key, "expected a matrix dimension from 1 to 2^20, got " + std::to_string(v));
  return static_cast<std::uint64_t>(v);
}

constexpr std::array<std::string_view, 7> kOps{"all_reduce", "all_gather", "reduce_scatter", "alltoall",
                                               "broadcast",  "reduce",     "sendrecv"};

/// Largest size a point may claim: 2^40 bytes, as `rigsim bench` accepts.
constexpr double kMaxBytes = 1099511627776.0;

std::string join(const auto& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

Test read_test(ObjectReader& r) {
  const std::string t = r.required_string("test");
  for (const auto& [test, name] : kTests)
    if (t == name) return test;
  std::vector<std::string_view> names;
  for (const auto& kv : kTests) names.push_back(kv.second);
  r.fail("test", "expected one of " + join(names) + ", got \"" + t + "\"");
}

/// A positive finite number at `key`, or 0 when absent.
double positive(ObjectReader& r, const std::string& key) {
  const auto v = r.optional_number(key);
  if (!v) return 0;
  if (!std::isfinite(*v) || *v <= 0) r.fail(key, "expected a positive number, got " + json(*v).dump());
  return *v;
}

std::uint64_t read_bytes(ObjectReader& r, bool required) {
  if (!r.has("bytes")) {
    if (required) r.fail_here("missing required key \"bytes\"");
    return 0;
  }
  const auto v = r.optional_number("bytes");
  if (!v || *v < 0 || *v > kMaxBytes || std::floor(*v) != *v)
    r.fail("bytes", "expected a whole number of bytes from 0 to 2^40, got " + json(*v).dump());
  return static_cast<std::uint64_t>(*v);
}

int read_device(ObjectReader& r, const std::string& key, std::size_t gpus) {
  const int d = r.required_int(key);
  if (d < 0 || (gpus > 0 && static_cast<std::size_t>(d) >= gpus))
    r.fail(key, "expected a GPU index of the rig (0.." + std::to_string(gpus == 0 ? 0 : gpus - 1) +
                    "), got " + std::to_string(d));
  return d;
}

/// A link generation or width: 0 (unknown) up to `most`.
int small(ObjectReader& r, const std::string& key, int most) {
  const int v = r.optional_int(key).value_or(0);
  if (v < 0 || v > most)
    r.fail(key, "expected 0 (unknown) to " + std::to_string(most) + ", got " + std::to_string(v));
  return v;
}

Rig read_rig(ObjectReader r) {
  Rig rig;
  rig.name = r.optional_string("name").value_or("");
  rig.layout = r.optional_string("layout").value_or("");
  rig.host = r.optional_string("host").value_or("");
  rig.cpu = r.optional_string("cpu").value_or("");
  rig.driver = r.optional_string("driver").value_or("");
  rig.cuda = r.optional_string("cuda").value_or("");
  rig.nccl = r.optional_string("nccl").value_or("");
  if (const json* gpus = r.optional_array("gpus")) {
    for (std::size_t i = 0; i < gpus->size(); ++i) {
      ObjectReader g = r.element(*gpus, "gpus", i);
      RigGpu gpu;
      gpu.index = g.required_int("index");
      if (gpu.index != static_cast<int>(i))
        g.fail("index", "expected " + std::to_string(i) + " (GPUs are listed by CUDA device index, from 0)");
      gpu.name = g.optional_string("name").value_or("");
      gpu.bus_id = g.optional_string("bus_id").value_or("");
      if (const json* link = g.optional_object("link")) {
        ObjectReader l(*link, g.file(), g.pointer_of("link"));
        gpu.link_gen = small(l, "gen", 6), gpu.link_width = small(l, "width", 32);
        gpu.max_link_gen = small(l, "max_gen", 6), gpu.max_link_width = small(l, "max_width", 32);
        l.finish();
      }
      gpu.numa = g.optional_int("numa").value_or(-1);
      if (gpu.numa < -1 || gpu.numa > 4096)
        g.fail("numa", "expected a NUMA node from 0 to 4096 (or -1: unknown)");
      gpu.peer_access_any = g.optional_bool("peer_access_any").value_or(false);
      g.finish();
      rig.gpus.push_back(std::move(gpu));
    }
  }
  r.allow("$comment");
  r.finish();
  return rig;
}

void read_text(ObjectReader& r, Point& p) {
  p.samples = r.optional_int("samples").value_or(0);
  if (p.samples < 0) r.fail("samples", "expected a count of repetitions (0 or more)");
  p.spread = r.optional_number("spread").value_or(0);
  if (!(p.spread >= 0 && std::isfinite(p.spread)))
    r.fail("spread", "expected (max - min) / median, 0 or more");
  p.id = r.optional_string("id").value_or("");
  p.source = r.optional_string("source").value_or("");
  p.quote = r.optional_string("quote").value_or("");
  p.note = r.optional_string("note").value_or("");
}

/// A copy point's size and value: bytes and gbps, or (a latency series) latency_us with optional bytes.
void read_copy_value(ObjectReader& r, const Series& s, Point& p) {
  p.bytes = read_bytes(r, !s.latency);
  if (!s.latency && p.bytes == 0) r.fail("bytes", "a bandwidth point needs the bytes copied (more than 0)");
  if (s.latency) {
    p.latency_us = positive(r, "latency_us");
    if (p.latency_us == 0) r.fail_here("a latency series' point needs \"latency_us\"");
  } else {
    p.gbps = positive(r, "gbps");
    if (p.gbps == 0) r.fail_here("a bandwidth point needs \"gbps\"");
  }
}

Point read_point(ObjectReader r, const Series& s, std::size_t gpus) {
  Point p;
  read_text(r, p);
  switch (s.test) {
    case Test::Collective:
      p.bytes = read_bytes(r, true);
      p.time_us = positive(r, "time_us");
      p.algbw_gbs = positive(r, "algbw_gbs");
      p.busbw_gbs = positive(r, "busbw_gbs");
      p.in_place_time_us = positive(r, "in_place_time_us");
      p.in_place_busbw_gbs = positive(r, "in_place_busbw_gbs");
      // Some sources publish only nccl-tests' in-place columns; rigsim predicts both runs alike.
      if (p.time_us == 0 && p.busbw_gbs == 0 && p.algbw_gbs == 0 && p.in_place_busbw_gbs == 0 &&
          p.in_place_time_us == 0)
        r.fail_here(
            "a collective point needs \"time_us\", \"busbw_gbs\" or \"algbw_gbs\" (or, where only the "
            "in-place run is published, \"in_place_busbw_gbs\" or \"in_place_time_us\")");
      break;
    case Test::PeerCopy:
      if (!s.fan.empty()) {  // every other GPU and this one: the point names this one
        p.src = read_device(r, "gpu", gpus);
        read_copy_value(r, s, p);
        break;
      }
      p.src = read_device(r, "src", gpus);
      p.dst = read_device(r, "dst", gpus);
      if (p.src == p.dst)
        r.fail("dst", "a peer copy needs two different GPUs (a local copy is a device_copy)");
      read_copy_value(r, s, p);
      break;
    case Test::HostCopy:
    case Test::DeviceCopy:
      p.src = read_device(r, "gpu", gpus);
      read_copy_value(r, s, p);
      break;
    case Test::Gemm:
      p.src = read_device(r, "gpu", gpus);
      p.m = read_dim(r, "m");
      p.n = read_dim(r, "n");
      p.k = read_dim(r, "k");
      p.tflops = positive(r, "tflops");
      if (p.tflops == 0) r.fail_here("a GEMM point needs \"tflops\"");
      break;
  }
  r.finish();
  return p;
}

void read_collective(ObjectReader& r, Series& s, std::size_t gpus) {
  s.op = r.required_string("op");
  if (std::find(kOps.begin(), kOps.end(), s.op) == kOps.end())
    r.fail("op", "expected one of " + join(kOps) + ", got \"" + s.op + "\"");
  if (const json* list = r.optional_array("gpus")) {
    std::set<int> seen;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& v = (*list)[i];
      const std::string at = "gpus/" + std::to_string(i);
      if (!v.is_number_integer() || v.get<long long>() < 0 ||
          (gpus > 0 && v.get<long long>() >= static_cast<long long>(gpus)))
        r.fail(at, "expected a GPU index of the rig, got " + v.dump());
      if (!seen.insert(v.get<int>()).second) r.fail(at, "GPU " + v.dump() + " is listed twice");
      s.gpus.push_back(v.get<int>());
    }
  }
  s.nodes = r.optional_int("nodes").value_or(1);
  if (s.nodes < 1 || s.nodes > 65536) r.fail("nodes", "expected 1 to 65536 servers");
  s.gpus_per_thread = r.optional_int("gpus_per_thread").value_or(0);
  if (r.has("gpus_per_thread") && (s.gpus_per_thread < 1 || s.gpus_per_thread > 65536))
    r.fail("gpus_per_thread", "expected nccl-tests' -g, 1 to 65536 GPUs per thread");
  if (const json* env = r.optional_object("env")) {
    for (const auto& [k, v] : env->items()) {
      if (!v.is_string())
        r.fail("env/" + escape_pointer_token(k), "expected a string value, as in the shell");
      s.env.emplace_back(k, v.get<std::string>());
    }
  }
}

/// "copy": "ce" (copy engines, the default: cudaMemcpy and the CUDA samples) or "sm" (a copy kernel,
/// nvbandwidth's *_sm tests): whether the series is of SM copies.
bool read_copy(ObjectReader& r) {
  const auto copy = r.optional_string("copy");
  if (copy && *copy != "ce" && *copy != "sm")
    r.fail("copy",
           "expected \"ce\" (copy engines, the default) or \"sm\" (a copy kernel), got \"" + *copy + "\"");
  return copy && *copy == "sm";
}

Series read_series(ObjectReader r, std::size_t gpus) {
  Series s;
  s.tool = r.required_string("tool");
  s.tool_version = r.optional_string("tool_version").value_or("");
  s.command = r.optional_string("command").value_or("");
  s.source = r.optional_string("source").value_or("");
  s.quote = r.optional_string("quote").value_or("");
  s.test = read_test(r);
  switch (s.test) {
    case Test::Collective:
      read_collective(r, s, gpus);
      break;
    case Test::PeerCopy:
      s.peer_access = r.required_bool("peer_access");
      s.bidirectional = r.optional_bool("bidirectional").value_or(false);
      s.latency = r.optional_bool("latency").value_or(false);
      if (s.latency && s.bidirectional)
        r.fail("latency", "a latency series is one way (no \"bidirectional\")");
      s.sm_copy = read_copy(r);
      if (const auto fan = r.optional_string("fan")) {
        if (*fan != "in" && *fan != "out")
          r.fail("fan",
                 "expected \"in\" (every other GPU copies to the point's GPU at once) or \"out\" (it "
                 "copies to every other GPU at once), got \"" +
                     *fan + "\"");
        if (!s.peer_access || s.bidirectional || s.latency || s.sm_copy)
          r.fail("fan",
                 "a fan series is nvbandwidth's all_to_one / one_to_all copy-engine test: peer access, "
                 "one way, bandwidth");
        s.fan = *fan;
      }
      if (s.sm_copy && (!s.peer_access || s.bidirectional || s.latency))
        r.fail("copy",
               "an SM copy series is nvbandwidth's device_to_device_memcpy_write_sm: one way, with "
               "peer access (\"peer_access\": true), bandwidth");
      break;
    case Test::HostCopy:
      s.direction = r.required_string("direction");
      if (s.direction != "h2d" && s.direction != "d2h")
        r.fail("direction", "expected \"h2d\" or \"d2h\", got \"" + s.direction + "\"");
      s.concurrent = r.optional_bool("concurrent").value_or(false);
      if (const auto where = r.optional_string("host_memory")) {
        if (*where != "local" && *where != "remote")
          r.fail("host_memory",
                 "expected \"local\" (the GPU's own NUMA node) or \"remote\", got \"" + *where + "\"");
        s.remote = *where == "remote";
      }
      if (s.remote && s.concurrent) r.fail("host_memory", "remote host memory is measured one GPU at a time");
      s.bidirectional = r.optional_bool("bidirectional").value_or(false);
      if (s.remote && s.bidirectional)
        r.fail("host_memory", "remote host memory is measured one way (no \"bidirectional\")");
      s.latency = r.optional_bool("latency").value_or(false);
      if (s.latency && (s.concurrent || s.remote || s.bidirectional))
        r.fail("latency", "a host-copy latency series is one GPU at a time, one way, on its own NUMA node");
      s.sm_copy = read_copy(r);
      if (s.sm_copy && (s.direction != "d2h" || s.concurrent || s.remote || s.bidirectional || s.latency))
        r.fail("copy",
               "an SM host-copy series is nvbandwidth's device_to_host_memcpy_sm: a kernel's stores, "
               "d2h, one GPU alone, its own NUMA node, bandwidth (SM reads of host memory are not "
               "simulated)");
      break;
    case Test::DeviceCopy:
      break;
    case Test::Gemm:
      s.dtype = r.required_string("dtype");
      if (std::find(kGemmDtypes.begin(), kGemmDtypes.end(), s.dtype) == kGemmDtypes.end())
        r.fail("dtype", "expected one of " + join(kGemmDtypes) + ", got \"" + s.dtype + "\"");
      break;
  }
  const json& points = r.required_array("points");
  if (points.empty()) r.fail("points", "expected at least one point");
  for (std::size_t i = 0; i < points.size(); ++i)
    s.points.push_back(read_point(r.element(points, "points", i), s, gpus));
  r.allow("$comment");
  r.finish();
  return s;
}

json text_fields(json j, const std::string& id, const std::string& source, const std::string& quote,
                 const std::string& note) {
  if (!id.empty()) j["id"] = id;
  if (!source.empty()) j["source"] = source;
  if (!quote.empty()) j["quote"] = quote;
  if (!note.empty()) j["note"] = note;
  return j;
}

json point_json(const Series& s, const Point& p) {
  json j = json::object();
  const auto put = [&j](const char* key, double v) {
    if (v > 0) j[key] = v;
  };
  switch (s.test) {
    case Test::Collective:
      j["bytes"] = p.bytes;
      put("time_us", p.time_us);
      put("algbw_gbs", p.algbw_gbs);
      put("busbw_gbs", p.busbw_gbs);
      put("in_place_time_us", p.in_place_time_us);
      put("in_place_busbw_gbs", p.in_place_busbw_gbs);
      break;
    case Test::PeerCopy:
      if (s.fan.empty()) {
        j["src"] = p.src;
        j["dst"] = p.dst;
      } else {
        j["gpu"] = p.src;
      }
      if (p.bytes > 0) j["bytes"] = p.bytes;
      put("gbps", p.gbps);
      put("latency_us", p.latency_us);
      break;
    case Test::HostCopy:
    case Test::DeviceCopy:
      j["gpu"] = p.src;
      if (p.bytes > 0 || !s.latency) j["bytes"] = p.bytes;
      put("gbps", p.gbps);
      put("latency_us", p.latency_us);
      break;
    case Test::Gemm:
      j["gpu"] = p.src;
      j["m"] = p.m;
      j["n"] = p.n;
      j["k"] = p.k;
      put("tflops", p.tflops);
      break;
  }
  if (p.samples > 0) j["samples"] = p.samples;
  if (p.spread > 0) j["spread"] = p.spread;
  return text_fields(std::move(j), p.id, p.source, p.quote, p.note);
}

json series_json(const Series& s) {
  json j = {{"tool", s.tool}, {"test", std::string(to_string(s.test))}};
  if (!s.tool_version.empty()) j["tool_version"] = s.tool_version;
  if (!s.command.empty()) j["command"] = s.command;
  switch (s.test) {
    case Test::Collective: {
      j["op"] = s.op;
      if (!s.gpus.empty()) j["gpus"] = s.gpus;
      if (s.nodes != 1) j["nodes"] = s.nodes;
      if (s.gpus_per_thread > 0) j["gpus_per_thread"] = s.gpus_per_thread;
      if (!s.env.empty()) {
        json env = json::object();
        for (const auto& [k, v] : s.env) env[k] = v;
        j["env"] = env;
      }
      break;
    }
    case Test::PeerCopy:
      j["peer_access"] = s.peer_access;
      if (s.bidirectional) j["bidirectional"] = true;
      if (s.latency) j["latency"] = true;
      if (s.sm_copy) j["copy"] = "sm";
      if (!s.fan.empty()) j["fan"] = s.fan;
      break;
    case Test::HostCopy:
      j["direction"] = s.direction;
      if (s.concurrent) j["concurrent"] = true;
      if (s.bidirectional) j["bidirectional"] = true;
      if (s.sm_copy) j["copy"] = "sm";
      if (s.remote) j["host_memory"] = "remote";
      if (s.latency) j["latency"] = true;
      break;
    case Test::DeviceCopy:
      break;
    case Test::Gemm:
      j["dtype"] = s.dtype;
      break;
  }
  j = text_fields(std::move(j), "", s.source, s.quote, "");
  json points = json::array();
  for (const Point& p : s.points) points.push_back(point_json(s, p));
  j["points"] = std::move(points);
  return j;
}

/// The metric of the point with id `id`, or fails at `key` naming the ids there are.
Metric metric_of_id(ObjectReader& r, const std::string& key, const std::string& id, const Measurements& m) {
  for (const Series& s : m.series)
    for (const Point& p : s.points)
      if (!id.empty() && p.id == id) return metric_of(s, p);
  r.fail(key, "no point has the id \"" + id + "\"; a pair names two points of this file by their \"id\"");
}

Pair read_pair(ObjectReader r, const Measurements& m) {
  Pair p;
  p.a = r.required_string("a");
  p.b = r.required_string("b");
  p.changed = r.required_string("changed");
  if (p.changed.empty()) r.fail("changed", "expected what differs between the two points");
  const Metric a = metric_of_id(r, "a", p.a, m);
  const Metric b = metric_of_id(r, "b", p.b, m);
  if (p.a == p.b) r.fail("b", "expected a point other than \"a\"");
  if (a.name != b.name)
    r.fail("b", "\"" + p.b + "\" is compared on " + std::string(b.name) + " and \"" + p.a + "\" on " +
                    std::string(a.name) + "; a pair compares one metric");
  r.finish();
  return p;
}

}  // namespace

std::string_view to_string(Test t) {
  for (const auto& [test, name] : kTests)
    if (test == t) return name;
  return "?";
}

Measurements measurements_from_json(const json& doc, const std::string& file) {
  ObjectReader r(doc, file, "");
  const std::string schema = r.required_string("schema");
  if (schema != kMeasurementsSchema)
    r.fail("schema", "expected \"" + std::string(kMeasurementsSchema) + "\", got \"" + schema + "\"");
  Measurements m;
  m.file = file;
  m.rig = read_rig(r.child("rig"));
  const json& series = r.required_array("series");
  if (series.empty()) r.fail("series", "expected at least one series");
  for (std::size_t i = 0; i < series.size(); ++i)
    m.series.push_back(read_series(r.element(series, "series", i), m.rig.gpus.size()));
  if (const json* pairs = r.optional_array("pairs"))
    for (std::size_t i = 0; i < pairs->size(); ++i)
      m.pairs.push_back(read_pair(r.element(*pairs, "pairs", i), m));
  r.allow("$comment");
  r.finish();
  return m;
}

Measurements load_measurements(const std::string& path) {
  return measurements_from_json(load_json_file(path), path);
}

json to_json(const Measurements& m) {
  json rig = json::object();
  const auto put = [&rig](const char* key, const std::string& v) {
    if (!v.empty()) rig[key] = v;
  };
  put("name", m.rig.name);
  put("layout", m.rig.layout);
  put("host", m.rig.host);
  put("cpu", m.rig.cpu);
  put("driver", m.rig.driver);
  put("cuda", m.rig.cuda);
  put("nccl", m.rig.nccl);
  if (!m.rig.gpus.empty()) {
    json gpus = json::array();
    for (const RigGpu& g : m.rig.gpus) {
      json j = {{"index", g.index}};
      if (!g.name.empty()) j["name"] = g.name;
      if (!g.bus_id.empty()) j["bus_id"] = g.bus_id;
      if (g.link_gen > 0 || g.link_width > 0)
        j["link"] = {{"gen", g.link_gen},
                     {"width", g.link_width},
                     {"max_gen", g.max_link_gen},
                     {"max_width", g.max_link_width}};
      if (g.numa >= 0) j["numa"] = g.numa;
      if (g.peer_access_any) j["peer_access_any"] = true;
      gpus.push_back(std::move(j));
    }
    rig["gpus"] = std::move(gpus);
  }
  json series = json::array();
  for (const Series& s : m.series) series.push_back(series_json(s));
  json out = {
      {"schema", std::string(kMeasurementsSchema)}, {"rig", std::move(rig)}, {"series", std::move(series)}};
  for (const Pair& p : m.pairs) out["pairs"].push_back({{"a", p.a}, {"b", p.b}, {"changed", p.changed}});
  return out;
}

void save_measurements(const Measurements& m, const std::string& path) {
  write_output_file(path, to_json(m).dump(2) + "\n");
}

Metric metric_of(const Series& s, const Point& p) {
  switch (s.test) {
    case Test::Collective:
      if (p.busbw_gbs > 0) return {"busbw", "GB/s", p.busbw_gbs, true};
      if (p.algbw_gbs > 0) return {"algbw", "GB/s", p.algbw_gbs, true};
      if (p.time_us > 0) return {"time", "us", p.time_us, false};
      // Only the in-place run published: its busbw, else its time (rigsim predicts both runs alike).
      if (p.in_place_busbw_gbs > 0) return {"busbw", "GB/s", p.in_place_busbw_gbs, true};
      return {"time", "us", p.in_place_time_us, false};
    case Test::PeerCopy:
      if (s.latency) return {"latency", "us", p.latency_us, false};
      return {"bandwidth", "GB/s", p.gbps, true};
    case Test::HostCopy:
      if (s.latency) return {"latency", "us", p.latency_us, false};
      return {"bandwidth", "GB/s", p.gbps, true};
    case Test::DeviceCopy:
      return {"bandwidth", "GB/s", p.gbps, true};
    case Test::Gemm:
      return {"throughput", "TFLOP/s", p.tflops, true};
  }
  return {"?", "", 0, true};
}

}  // namespace rigsim::calibration
