// NCCL graph XML reader (see nccl_graph.hpp). Attributes are read as NCCL's ncclTopoGetGraphFromXmlSub
// reads them: integers and floats, `dev` in base 16.
#include "topology/nccl_graph.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <pugixml.hpp>

#include "common/input.hpp"

namespace rigsim::topology {
namespace {

class Reader {
 public:
  Reader(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  std::vector<NcclGraph> run() {
    pugi::xml_document doc;
    const auto parsed = doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed)
      throw InputError(file_, line(parsed.offset), std::string("malformed XML: ") + parsed.description());
    const pugi::xml_node root = doc.child("graphs");
    if (!root) throw InputError(file_, "line 1", "expected an NCCL graph file: a <graphs> root element");
    std::vector<NcclGraph> out;
    for (pugi::xml_node g : root.children("graph")) out.push_back(graph(g));
    if (out.empty()) fail(root, "<graphs> lists no <graph>");
    return out;
  }

 private:
  std::string line(std::ptrdiff_t offset) const {
    const auto end =
        text_.begin() + std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(text_.size()));
    return "line " + std::to_string(1 + std::count(text_.begin(), end, '\n'));
  }
  [[noreturn]] void fail(pugi::xml_node n, const std::string& message) const {
    throw InputError(file_, line(n.offset_debug()), message);
  }
  std::string attr(pugi::xml_node n, const char* name) const {
    const pugi::xml_attribute a = n.attribute(name);
    if (!a) fail(n, "<" + std::string(n.name()) + "> has no " + name + " attribute");
    return a.as_string();
  }
  long integer(pugi::xml_node n, const char* name, int base, long lo, long hi) const {
    const std::string v = attr(n, name);
    errno = 0;
    char* end = nullptr;
    const long x = std::strtol(v.c_str(), &end, base);
    if (v.empty() || *end != '\0' || errno == ERANGE || x < lo || x > hi)
      fail(n, "<" + std::string(n.name()) + "> " + name + "=\"" + v + "\": expected " +
                  (base == 16 ? "a hexadecimal" : "an") + " integer from " + std::to_string(lo) + " to " +
                  std::to_string(hi));
    return x;
  }
  double number(pugi::xml_node n, const char* name) const {
    const std::string v = attr(n, name);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(x >= 0) || x > 1e6)
      fail(n, "<" + std::string(n.name()) + "> " + name + "=\"" + v + "\": expected a speed in GB/s");
    return x;
  }

  NcclGraph graph(pugi::xml_node g) const {
    NcclGraph out;
    out.id = static_cast<int>(integer(g, "id", 10, 0, 16));
    out.pattern = static_cast<int>(integer(g, "pattern", 10, 0, 16));
    out.crossnic = static_cast<int>(integer(g, "crossnic", 10, 0, 2));
    out.nchannels = static_cast<int>(integer(g, "nchannels", 10, 0, 64));
    out.speed_intra = number(g, "speedintra");
    out.speed_inter = number(g, "speedinter");
    out.type_intra = attr(g, "typeintra");
    out.type_inter = attr(g, "typeinter");
    for (pugi::xml_node c : g.children("channel")) {
      std::vector<int> gpus;
      for (pugi::xml_node d : c.children("gpu")) {
        const int dev = static_cast<int>(integer(d, "dev", 16, 0, 1 << 20));
        if (std::find(gpus.begin(), gpus.end(), dev) != gpus.end())
          fail(d, "GPU dev " + std::to_string(dev) + " appears twice in one channel");
        gpus.push_back(dev);
      }
      if (gpus.empty()) fail(c, "<channel> lists no <gpu>");
      out.channels.push_back(std::move(gpus));
    }
    if (out.nchannels > static_cast<int>(out.channels.size()))
      fail(g, "nchannels=\"" + std::to_string(out.nchannels) + "\" but the graph lists " +
                  std::to_string(out.channels.size()) + " <channel>");
    return out;
  }

  const std::string& text_;
  const std::string& file_;
};

}  // namespace

std::vector<NcclGraph> parse_nccl_graphs(const std::string& xml_text, const std::string& file) {
  return Reader(xml_text, file).run();
}

std::vector<NcclGraph> load_nccl_graphs(const std::string& path) {
  return parse_nccl_graphs(read_input_file(path), path);
}

}  // namespace rigsim::topology
