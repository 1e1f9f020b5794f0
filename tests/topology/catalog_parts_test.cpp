// The catalog as data: the built-in parts come from catalog/*.json, and a user declares parts in the
// same schema (a catalog file or a layout's "parts"), strictly validated, with shadowing reported.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/topology/layout_fixture.hpp"
#include "topology/catalog.hpp"

namespace rigsim::topology {
namespace {

using nlohmann::json;
using testing::input_error_of;
using testing::layout_from_text;

json read_catalog_file(const std::string& kind) {
  return load_json_file(std::string(RIGSIM_SOURCE_DIR) + "/catalog/" + kind + ".json");
}

// Parses `text` as a catalog document named "user.json" and adds its parts.
std::vector<std::string> add(const std::string& text) {
  return add_catalog_parts(parse_json_text(text, "user.json"), "user.json", "");
}

void expect_rejected(const std::string& text, const std::string& location, const std::string& phrase) {
  auto [where, what] = input_error_of([&] { add(text); });
  EXPECT_EQ(where, location) << what;
  EXPECT_NE(what.find(phrase), std::string::npos) << "message: " << what << "\nexpected to contain: " << phrase;
}

// The files are the catalog: what the program lists is exactly what the files say, value for value
// (so the reader and the writer of the schema agree, and nothing is added or lost on the way).
TEST(CatalogParts, TheBuiltInCatalogIsTheFilesValueForValue) {
  std::size_t parts = 0;
  for (const std::string& kind : part_kinds()) {
    const json file = read_catalog_file(kind);
    ASSERT_TRUE(file.contains(kind)) << kind;
    const json& declared = file.at(kind);
    const json listed = parts_json(kind);
    ASSERT_EQ(listed.size(), declared.size()) << kind;
    for (std::size_t i = 0; i < declared.size(); ++i) {
      EXPECT_EQ(listed[i], declared[i]) << kind << " #" << i;
      EXPECT_EQ(part_origin(kind, declared[i].at("key").get<std::string>()), "built-in");
    }
    parts += declared.size();
  }
  EXPECT_GE(parts, 120u);  // issue 8: at least 120 parts, each with a source
}

TEST(CatalogParts, ALikePartTakesItsBaseAndOverridesWhatItGives) {
  const auto notes = add(R"({"gpus": [{"key": "test-3090-48gb", "like": "rtx-3090", "name": "RTX 3090 48GB mod",
                                       "memory_gb": 48, "source": "test: a memory-modded card"}]})");
  EXPECT_TRUE(notes.empty());
  const GpuSpec* g = find_gpu("test-3090-48gb");
  ASSERT_NE(g, nullptr);
  const GpuSpec* base = find_gpu("rtx-3090");
  EXPECT_EQ(g->memory_gb, 48);
  EXPECT_EQ(g->memory_bw_gbs, base->memory_bw_gbs);
  EXPECT_EQ(g->nvlink_links, base->nvlink_links);
  EXPECT_EQ(g->name, "RTX 3090 48GB mod");
  EXPECT_EQ(g->source, "test: a memory-modded card");
  EXPECT_EQ(part_origin("gpus", "test-3090-48gb"), "user.json /gpus/0");
  EXPECT_EQ(gpu_keys().back(), "test-3090-48gb");  // user parts are listed after the built-in ones
}

TEST(CatalogParts, ShadowingABuiltInPartIsReportedAndKeepsEarlierPointersValid) {
  const GpuSpec* before = find_gpu("rtx-4090");
  const double memory = before->memory_gb;
  const std::size_t count = gpu_keys().size();
  const auto notes = add(R"({"gpus": [{"key": "rtx-4090", "like": "rtx-4090", "name": "RTX 4090 48GB",
                                       "memory_gb": 48, "source": "test"}]})");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("shadows the built-in part"), std::string::npos) << notes[0];
  EXPECT_EQ(find_gpu("rtx-4090")->memory_gb, 48);
  EXPECT_EQ(before->memory_gb, memory);   // a topology built before keeps the part it was built with
  EXPECT_EQ(gpu_keys().size(), count);    // the shadowing part takes the built-in one's place
  // The same declaration again (a layout read twice) is silent; other values replace it, reported.
  EXPECT_TRUE(add(R"({"gpus": [{"key": "rtx-4090", "like": "rtx-4090", "name": "RTX 4090 48GB",
                                "memory_gb": 48, "source": "test"}]})")
                  .empty());
  const auto replaced = add(R"({"gpus": [{"key": "rtx-4090", "like": "rtx-4090", "name": "RTX 4090 48GB",
                                          "memory_gb": 96, "source": "test"}]})");
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_NE(replaced[0].find("replaces the one declared at user.json /gpus/0"), std::string::npos) << replaced[0];
}

TEST(CatalogParts, EveryKindCanBeDeclaredInFull) {
  add(R"({"cpus": [{"key": "test-cpu", "name": "Test CPU", "vendor": "intel", "pcie_gen": 5, "pcie_lanes": 80,
                     "memory_channels": 8, "memory_bw_gbs": 307.2, "root_port_per_x16": false,
                     "inter_socket": "upi", "inter_socket_links": 4, "inter_socket_link_gbs": 32,
                     "inter_socket_effective_gbs": 22, "p2p_across_sockets": true, "cpuid_family": 6,
                     "cpuid_model": 207, "tdp_w": 350, "source": "test"}],
          "chipsets": [{"key": "test-pch", "like": "z170", "name": "Test PCH", "source": "test"}],
          "switches": [{"key": "test-switch", "like": "pex8747", "name": "Test switch", "lanes": 96,
                        "source": "test"}],
          "nics": [{"key": "test-nic", "like": "connectx-7-400g", "name": "Test NIC", "ports": 2, "source": "test"}],
          "nvswitches": [{"key": "test-nvswitch", "like": "nvswitch-gen3", "name": "Test NVSwitch", "source": "test"}]})");
  EXPECT_EQ(find_cpu("test-cpu")->inter_socket, InterSocketKind::Upi);
  EXPECT_EQ(find_chipset("test-pch")->uplink_width, find_chipset("z170")->uplink_width);
  EXPECT_EQ(find_switch("test-switch")->lanes, 96);
  EXPECT_EQ(find_nic("test-nic")->ports, 2);
  EXPECT_EQ(find_nvswitch("test-nvswitch")->ports, find_nvswitch("nvswitch-gen3")->ports);
}

TEST(CatalogParts, ALikePartMayStartFromOneDeclaredEarlierInTheSameFile) {
  add(R"({"gpus": [{"key": "test-a", "like": "rtx-3090", "name": "A", "memory_gb": 48, "source": "test"},
                   {"key": "test-b", "like": "test-a", "name": "B", "tdp_w": 300, "source": "test"}]})");
  EXPECT_EQ(find_gpu("test-b")->memory_gb, 48);
  EXPECT_EQ(find_gpu("test-b")->tdp_w, 300);
}

TEST(CatalogParts, BadPartsAreLocatedErrors) {
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-409", "name": "n", "source": "s"}]})", "/gpus/0/like",
                  "did you mean \"rtx-4090\"");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "source": "s", "memory_gb": 24000}]})",
                  "/gpus/0/memory_gb", "expected a value from 0.5 to 2048 (device memory, GB), got 24000");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "source": "s", "memory_gbs": 48}]})",
                  "/gpus/0/memory_gbs", "did you mean \"memory_gb\"");
  expect_rejected(R"({"gpus": [{"key": "x", "name": "n", "source": "s", "memory_gb": 48}]})", "/gpus/0",
                  "missing \"vendor\"");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "memory_gb": 48}]})", "/gpus/0",
                  "missing \"source\"");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "source": ""}]})", "/gpus/0/source",
                  "where its numbers come from");
  expect_rejected(R"({"gpus": [{"key": "RTX 5090", "like": "rtx-4090", "name": "n", "source": "s"}]})",
                  "/gpus/0/key", "lowercase hyphenated");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "source": "s", "vendor": "nvida"}]})",
                  "/gpus/0/vendor", "expected one of nvidia, amd");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "source": "s", "nvlink_gen": 4}]})",
                  "/gpus/0", "NVLink fields disagree");
  expect_rejected(R"({"gpus": [{"key": "x", "like": "rtx-4090", "name": "n", "source": "s", "pcie_width": 12}]})",
                  "/gpus/0", "PCIe link width");
  expect_rejected(R"({"cpus": [{"key": "x", "like": "xeon-e5-v4", "name": "n", "source": "s",
                                "inter_socket": "none"}]})",
                  "/cpus/0", "single-socket part");
  expect_rejected(R"({"gpu": []})", "/gpu", "did you mean \"gpus\"");
  expect_rejected(R"({"gpus": [7]})", "/gpus/0", "expected a part (an object)");
}

// A layout declares its own parts; they are built like catalog parts and shadowing one is a warning
// of the topology.
TEST(CatalogParts, ALayoutDeclaresItsOwnParts) {
  const std::string layout = R"({"name": "t",
    "parts": {"gpus": [{"key": "test-layout-gpu", "like": "rtx-3090", "name": "RTX 3090 96GB",
                        "memory_gb": 96, "source": "test"}],
              "cpus": [{"key": "ryzen-5000", "like": "ryzen-5000", "name": "Ryzen 5000, 2 x DDR4-3600",
                        "memory_bw_gbs": 57.6, "source": "test: 2 x 3600 MT/s x 8 B"}]},
    "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
    "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 24}],
    "slots": [{"id": "s1", "parent": "rc0", "gen": 4, "width": 16}],
    "gpus": [{"id": "g0", "model": "test-layout-gpu", "slot": "s1"}]})";
  const Topology t = layout_from_text(layout);
  ASSERT_EQ(t.gpus().size(), 1u);
  EXPECT_EQ(t.device(t.gpus()[0]).gpu->memory_gb, 96);
  ASSERT_EQ(t.warnings().size(), 1u);
  EXPECT_NE(t.warnings()[0].find("CPU \"ryzen-5000\" declared at test.json /parts/cpus/0 shadows the built-in part"),
            std::string::npos)
      << t.warnings()[0];
  auto [where, what] = input_error_of([&] {
    layout_from_text(R"({"name": "t", "parts": {"gpus": [{"key": "y", "like": "rtx-3090", "name": "n",
                        "source": "s", "tdp_w": 0}]}, "cpus": []})");
  });
  EXPECT_EQ(where, "/parts/gpus/0/tdp_w") << what;
}

// A riser from the catalog sets the link's ceiling; a layout may lower it (a cable that trains down),
// never raise it.
TEST(CatalogParts, ARiserModelLimitsTheLinkAndMayOnlyBeLowered) {
  const auto layout = [](const std::string& riser) {
    return R"({"name": "t", "cpus": [{"id": "cpu0", "model": "ryzen-5000"}],
      "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 24}],
      "slots": [{"id": "s1", "parent": "rc0", "gen": 4, "width": 16}],
      "gpus": [{"id": "g0", "model": "rtx-3090", "slot": "s1", "riser": )" + riser + "}]}";
  };
  const auto link_of = [](const Topology& t) { return t.link(*t.uplink(t.gpus()[0])); };
  const Link usb = link_of(layout_from_text(layout(R"({"model": "usb-x1"})")));
  EXPECT_EQ(usb.width, find_riser("usb-x1")->width);
  EXPECT_EQ(usb.gen, find_riser("usb-x1")->gen);
  const Link lowered = link_of(layout_from_text(layout(R"({"model": "riser-cable-gen4-x16", "gen": 3})")));
  EXPECT_EQ(lowered.gen, 3);
  EXPECT_EQ(lowered.width, 16);
  auto [where, what] = input_error_of([&] { layout_from_text(layout(R"({"model": "riser-cable-gen4-x16", "gen": 5})")); });
  EXPECT_EQ(where, "/gpus/0/riser/gen") << what;
  std::tie(where, what) = input_error_of([&] { layout_from_text(layout(R"({"model": "usb-x2"})")); });
  EXPECT_EQ(where, "/gpus/0/riser/model") << what;
  EXPECT_NE(what.find("did you mean \"usb-x1\""), std::string::npos) << what;
}

}  // namespace
}  // namespace rigsim::topology
