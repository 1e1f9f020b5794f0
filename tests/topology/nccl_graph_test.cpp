// NCCL graph XML (NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE): read as NCCL's ncclTopoGetGraphFromXmlSub
// reads it, with located errors.
#include "topology/nccl_graph.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/input.hpp"

namespace rigsim::topology {
namespace {

// The shape NCCL_GRAPH_DUMP_FILE writes (search.cc ncclTopoGetXmlFromGraph), for two PCIe GPUs: a
// ring graph of two channels and a tree graph.
const char* kDump = R"(<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="12" speedinter="12" latencyinter="0" typeintra="PHB" typeinter="PIX" samechannels="1">
    <channel>
      <gpu dev="0"/>
      <gpu dev="1"/>
    </channel>
    <channel>
      <gpu dev="1"/>
      <gpu dev="0"/>
    </channel>
  </graph>
  <graph id="1" pattern="1" crossnic="0" nchannels="1" speedintra="12" speedinter="12" latencyinter="0" typeintra="PHB" typeinter="PIX" samechannels="0">
    <channel>
      <gpu dev="0"/>
      <gpu dev="1"/>
    </channel>
  </graph>
</graphs>
)";

std::string error_of(const std::string& xml) {
  try {
    parse_nccl_graphs(xml, "g.xml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(NcclGraph, ReadsEveryGraphWithItsChannels) {
  const auto graphs = parse_nccl_graphs(kDump, "g.xml");
  ASSERT_EQ(graphs.size(), 2u);
  const NcclGraph& ring = graphs[0];
  EXPECT_EQ(ring.id, 0);
  EXPECT_EQ(ring.pattern, 4);
  EXPECT_EQ(ring.nchannels, 2);
  EXPECT_DOUBLE_EQ(ring.speed_intra, 12.0);
  EXPECT_EQ(ring.type_intra, "PHB");
  EXPECT_EQ(ring.channels, (std::vector<std::vector<int>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(graphs[1].pattern, 1);
}

TEST(NcclGraph, DevIsHexadecimalAsNcclReadsIt) {
  std::string xml = kDump;
  xml.replace(xml.find(R"(<gpu dev="1"/>)"), 14, R"(<gpu dev="0xa"/>)");
  EXPECT_EQ(parse_nccl_graphs(xml, "g.xml")[0].channels[0], (std::vector<int>{0, 10}));
}

TEST(NcclGraph, BadFilesAreLocated) {
  EXPECT_NE(error_of("<graphs>").find("g.xml: line 1"), std::string::npos) << error_of("<graphs>");
  EXPECT_NE(error_of("<system/>").find("a <graphs> root"), std::string::npos);
  std::string xml = kDump;
  xml.replace(xml.find(R"(nchannels="2")"), 13, R"(nchannels="3")");
  EXPECT_NE(error_of(xml).find("line 2"), std::string::npos) << error_of(xml);
  EXPECT_NE(error_of(xml).find("lists 2 <channel>"), std::string::npos);
  xml = kDump;
  xml.replace(xml.find(R"(<gpu dev="1"/>)"), 14, R"(<gpu dev="zz"/>)");
  EXPECT_NE(error_of(xml).find("line 5"), std::string::npos) << error_of(xml);
  EXPECT_NE(error_of(xml).find("hexadecimal"), std::string::npos);
  xml = kDump;
  xml.replace(xml.find(R"( speedintra="12")"), 16, "");
  EXPECT_NE(error_of(xml).find("has no speedintra attribute"), std::string::npos) << error_of(xml);
  xml = kDump;
  xml.replace(xml.find(R"(<gpu dev="1"/>)"), 14, R"(<gpu dev="0"/>)");
  EXPECT_NE(error_of(xml).find("appears twice"), std::string::npos) << error_of(xml);
  EXPECT_THROW(load_nccl_graphs("/nonexistent/graph.xml"), InputError);
}

}  // namespace
}  // namespace rigsim::topology
