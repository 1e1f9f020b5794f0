// Issue 12, "Crashes and silent acceptance": every hostile input is a located error (file, JSON pointer
// or line, what was expected) or a located warning, never a crash, a silent guess or a truncation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/input.hpp"
#include "tests/common/input_error.hpp"
#include "tests/topology/layout_fixture.hpp"
#include "topology/build.hpp"
#include "topology/layout_json.hpp"
#include "topology/nccl_xml.hpp"

namespace rigsim {
namespace {

using rigsim::testing::input_error_of;
using topology::testing::layout_from_text;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- JSON ----------------------------------------------------------------------------------------

TEST(JsonInput, NumberOverflowIsALocatedErrorNamingTheFile) {
  const std::string e = error_of([] { parse_json_text(R"({"psu_w": 1e999})", "big.json"); });
  EXPECT_NE(e.find("big.json"), std::string::npos) << e;
  EXPECT_NE(e.find("overflow"), std::string::npos) << e;
  EXPECT_EQ(e.find("json.exception"), std::string::npos) << "nlohmann's raw message leaked: " << e;
}

TEST(JsonInput, DuplicateKeysAreRejectedWithTheirPointer) {
  const std::string top = error_of([] { parse_json_text(R"({"gpus": [], "name": "x", "gpus": []})", "d.json"); });
  EXPECT_NE(top.find("d.json: /gpus: duplicate key \"gpus\""), std::string::npos) << top;
  const std::string nested =
      error_of([] { parse_json_text(R"({"slots": [{"id": "a"}, {"id": "b", "gen": 3, "gen": 4}]})", "d.json"); });
  EXPECT_NE(nested.find("/slots/1/gen"), std::string::npos) << nested;
  // Equal keys in different objects are fine.
  EXPECT_NO_THROW(parse_json_text(R"({"a": {"id": 1}, "b": {"id": 2}, "c": [{"id": 3}, {"id": 4}]})", "ok.json"));
}

TEST(JsonInput, Utf8ByteOrderMarkIsAcceptedByEveryReader) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_EQ(parse_json_text(bom + R"({"a": 1})", "bom.json")["a"].get<int>(), 1);
  const auto dir = std::filesystem::temp_directory_path() / ("rigsim-bom-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "bom.json").string();
  std::ofstream(path, std::ios::binary) << bom << R"({"a": 2})";
  EXPECT_EQ(load_json_file(path)["a"].get<int>(), 2);
  std::filesystem::remove_all(dir);
}

TEST(JsonInput, IntegersAreRangeCheckedNeverTruncated) {
  for (const auto& [text, shown] : std::vector<std::pair<std::string, std::string>>{
           {"4294967316", "4294967316"},
           {"18446744073709551615", "18446744073709551615"},
           {"-9223372036854775808", "-9223372036854775808"}}) {
    const nlohmann::json doc = parse_json_text(R"({"lanes": )" + text + "}", "n.json");
    ObjectReader r(doc, "n.json", "");
    const std::string e = error_of([&] { r.required_int("lanes"); });
    EXPECT_NE(e.find("n.json: /lanes: expected an integer from"), std::string::npos) << e;
    EXPECT_NE(e.find("got " + shown), std::string::npos) << e;
  }
  const nlohmann::json ok = parse_json_text(R"({"lanes": 2147483647, "n": -2147483648})", "n.json");
  ObjectReader r(ok, "n.json", "");
  EXPECT_EQ(r.required_int("lanes"), 2147483647);
  EXPECT_EQ(r.optional_int("n"), -2147483647 - 1);
}

// ---- files ---------------------------------------------------------------------------------------

TEST(InputFiles, NonRegularFilesAndHugeFilesAreRefusedAtOnce) {
  const std::string dir = error_of([] { read_input_file(std::filesystem::temp_directory_path().string()); });
  EXPECT_NE(dir.find("is not a regular file (a directory)"), std::string::npos) << dir;
  if (std::filesystem::exists("/dev/zero")) {
    const std::string dev = error_of([] { read_input_file("/dev/zero"); });
    EXPECT_NE(dev.find("/dev/zero: is not a regular file"), std::string::npos) << dev;
  }
  const auto path = std::filesystem::temp_directory_path() / ("rigsim-huge-" + std::to_string(::getpid()) + ".json");
  { std::ofstream(path.string()) << "{}"; }
  std::filesystem::resize_file(path, kMaxInputBytes + 1);  // sparse: no disk used
  const std::string huge = error_of([&] { read_input_file(path.string()); });
  EXPECT_NE(huge.find("rigsim refuses input files over 64 MiB"), std::string::npos) << huge;
  std::filesystem::remove(path);
  const std::string missing = error_of([] { read_input_file("/nonexistent/layout.json"); });
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
}

// ---- layouts -------------------------------------------------------------------------------------

const char* kCycle = R"({
  "name": "cycle",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
  "switches": [{"id": "sw0", "model": "pex8747", "parent": "sw1"},
               {"id": "sw1", "model": "pex8747", "parent": "sw0"}],
  "gpus": [{"id": "g0", "model": "tesla-p40", "parent": "sw0"}]
})";

TEST(LayoutChecks, ACycleOfParentsIsRejectedAtLoadWithItsPlace) {
  const std::string e = error_of([] { layout_from_text(kCycle); });
  EXPECT_NE(e.find("test.json: /switches/0"), std::string::npos) << e;
  EXPECT_NE(e.find("cycle of parents (sw0 -> sw1 -> sw0)"), std::string::npos) << e;
}

TEST(LayoutChecks, AnEmptySlotsParentIsChecked) {
  for (const char* parent : {"nan", "g0", "x16"}) {
    const std::string layout = std::string(R"({"name": "s", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}],
      "slots": [{"id": "x16", "parent": "rc0", "gen": 3, "width": 16},
                {"id": "empty", "parent": ")") + parent + R"(", "gen": 3, "width": 16}],
      "gpus": [{"id": "g0", "model": "tesla-p40", "slot": "x16"}]})";
    const std::string e = error_of([&] { layout_from_text(layout); });
    EXPECT_NE(e.find("/slots/1/parent"), std::string::npos) << parent << ": " << e;
  }
}

TEST(LayoutChecks, ALaneBudgetErrorForThousandsOfGpusStaysShort) {
  std::string gpus;
  for (int i = 0; i < 10000; ++i)
    gpus += std::string(i ? ", " : "") + R"({"id": "g)" + std::to_string(i) + R"(", "model": "tesla-p40", "parent": "rc0"})";
  const std::string layout = R"({"name": "big", "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}], "gpus": [)" + gpus + "]}";
  const std::string e = error_of([&] { layout_from_text(layout); });
  EXPECT_NE(e.find("needs 160000 lanes"), std::string::npos) << e.substr(0, 300);
  EXPECT_NE(e.find("and 9992 more"), std::string::npos) << e.substr(0, 300);
  EXPECT_LT(e.size(), 1000u);
}

// ---- NCCL XML ------------------------------------------------------------------------------------

std::string xml_with_gpu(const std::string& pci_attrs, const std::string& gpu_attrs = R"(dev="0" sm="80" rank="0")",
                         const std::string& cpu_attrs = R"(numaid="0")") {
  return R"(<system version="1"><cpu )" + cpu_attrs +
         R"( arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
  <pci busid="0000:07:00.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="16.0 GT/s PCIe" link_width="16" )" +
         pci_attrs + R"(><gpu )" + gpu_attrs + R"(/></pci></cpu></system>)";
}

TEST(NcclXmlInput, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string xml = R"(<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">)";
  const int depth = 5000;
  for (int i = 0; i < depth; ++i) xml += "\n<pci busid=\"0000:00:00.0\" class=\"0x060400\" vendor=\"0x10b5\" device=\"0x8747\">";
  for (int i = 0; i < depth; ++i) xml += "</pci>";
  xml += "</cpu></system>";
  const std::string e = error_of([&] { topology::import_nccl_xml(xml, "deep.xml"); });
  EXPECT_NE(e.find("deep.xml: line 34: <pci> nested more than 32 levels deep"), std::string::npos) << e;
}

TEST(NcclXmlInput, GarbageAttributeValuesAreLocatedErrors) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {xml_with_gpu("", R"(dev="0" sm="80" rank="0")", R"(numaid="zero")"), "numaid=\"zero\""},
      {xml_with_gpu("", R"(dev="0" sm="abc" rank="0")"), "sm=\"abc\""},
      {xml_with_gpu("", R"(dev="0" sm="80" rank="x")"), "rank=\"x\""},
  };
  std::string width = xml_with_gpu("");
  width.replace(width.find("link_width=\"16\""), 15, "link_width=\"-4\"");
  cases.emplace_back(width, "link_width=\"-4\"");
  for (const auto& [xml, what] : cases) {
    const std::string e = error_of([&] { topology::import_nccl_xml(xml, "bad.xml"); });
    EXPECT_NE(e.find("bad.xml: line "), std::string::npos) << what << ": " << e;
    EXPECT_NE(e.find(what), std::string::npos) << e;
  }
  std::string bus = xml_with_gpu("");
  bus.replace(bus.find("0000:07:00.0"), 12, "nonsense");
  const std::string e = error_of([&] { topology::import_nccl_xml(bus, "bad.xml"); });
  EXPECT_NE(e.find("busid=\"nonsense\": expected a PCI address"), std::string::npos) << e;
}

TEST(NcclXmlInput, WhatNcclToleratesIsAcceptedAndGuessesAreWarnings) {
  std::string xml = xml_with_gpu("", R"(dev="0" sm="80" rank="0")", R"(numaid="-1")");
  xml.replace(xml.find("16.0 GT/s PCIe"), 14, "fast");
  const auto t = topology::build_topology(topology::import_nccl_xml(xml, "ok.xml"));
  bool warned = false;
  for (const auto& w : t.warnings())
    warned = warned || (w.starts_with("NCCL XML: ") && w.find("link_speed \"fast\"") != std::string::npos);
  EXPECT_TRUE(warned) << "an unknown link_speed is taken as unknown, and `topo` must say so";
  std::string zero = xml_with_gpu(R"()");
  zero.replace(zero.find("link_width=\"16\""), 15, "link_width=\"0\"");
  EXPECT_NO_THROW(topology::import_nccl_xml(zero, "zero.xml"));
}

}  // namespace
}  // namespace rigsim
