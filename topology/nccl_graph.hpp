// NCCL's graph XML (NCCL_GRAPH_DUMP_FILE writes it, NCCL_GRAPH_FILE reads it; src/graph/search.cc,
// reference nccl.md §d.4): the channels NCCL's search found, so a user can replay a real machine's rings.
//   <graphs version="1">
//     <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="12" speedinter="12"
//            latencyinter="0" typeintra="PHB" typeinter="PIX" samechannels="1">
//       <channel> [<net dev="0"/>] <gpu dev="0"/> <gpu dev="1"/> ... [<net dev="0"/>] </channel> ...
// Graph id 0 is the ring graph, 1 the tree, 2 CollNet, 3 NVLS (init.cc); `dev` is hexadecimal (strtol
// base 16), for a GPU its CUDA device index on the server.
#pragma once

#include <string>
#include <vector>

namespace rigsim::topology {

struct NcclGraph {
  int id = 0;
  int pattern = 0;  // NCCL_TOPO_PATTERN_*: 1 balanced tree, 2 split tree, 3 tree, 4 ring, 5 NVLS
  int crossnic = 0;
  int nchannels = 0;
  double speed_intra = 0;  // GB/s per channel (bwIntra)
  double speed_inter = 0;
  std::string type_intra, type_inter;      // path classes, e.g. "NVL", "PHB"
  std::vector<std::vector<int>> channels;  // per channel: the GPUs' CUDA device indices in ring order
};

/// Parses graph XML text; `file` names it in errors, which give the XML line. Throws rigsim::InputError
/// for malformed XML, a missing <graphs> root, missing or non-numeric attributes, or a graph whose
/// nchannels exceeds the channels it lists.
std::vector<NcclGraph> parse_nccl_graphs(const std::string& xml_text, const std::string& file);

/// Reads and parses the graph file at `path`.
std::vector<NcclGraph> load_nccl_graphs(const std::string& path);

}  // namespace rigsim::topology
