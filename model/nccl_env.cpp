#include "model/nccl_env.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>

#include "common/input.hpp"
#include "common/suggest.hpp"
#include "topology/nccl_graph.hpp"

namespace rigsim::model {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& message) {
  throw InputError("", "--nccl-env " + key, message);
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

long long integer(const std::string& key, const std::string& value, long long lo, long long hi) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty())
    fail(key, "expected an integer, got \"" + value + "\"");
  if (v < lo || v > hi)
    fail(key, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + value);
  return v;
}

bool flag(const std::string& key, const std::string& value) {
  return integer(key, value, 0, 1) == 1;
}

/// A path level as ncclGetLevel reads NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL (src/graph/paths.cc, the
/// same from 2.12 to 2.29): a class name (NODE is PHB), or the old numbering, a value starting with a
/// digit read by strtol (base 0) through levelsOldToNew = {LOC, PIX, PXB, PHB, SYS, SYS}, above 5 as 5.
std::optional<topology::PathClass> path_level(const std::string& value) {
  const std::string v = upper(value) == "NODE" ? "PHB" : upper(value);
  if (auto level = topology::parse_path_class(v)) return level;
  if (value.empty() || !std::isdigit(static_cast<unsigned char>(value.front()))) return std::nullopt;
  using topology::PathClass;
  static constexpr PathClass kOldToNew[] = {PathClass::LOC, PathClass::PIX, PathClass::PXB,
                                            PathClass::PHB, PathClass::SYS, PathClass::SYS};
  const long old = std::strtol(value.c_str(), nullptr, 0);
  return kOldToNew[std::min<long>(old, std::size(kOldToNew) - 1)];
}

/// NCCL reads these; rigsim does not model them yet. Each says why, so the user knows what the
/// prediction assumes instead.
const std::map<std::string, std::string>& unmodelled() {
  static const std::map<std::string, std::string> keys = {
      {"NCCL_CROSS_NIC",
       "rigsim models its first choice (a ring leaves a server through the NIC it entered by, relayed over "
       "NVLink where PXN allows), and its servers meet at one non-blocking switch"},
      {"NCCL_IB_HCA", "rigsim's NICs are the layout's"},
      {"NCCL_SOCKET_IFNAME", "rigsim's NICs are the layout's"},
      {"NCCL_IB_DISABLE", "not modelled"},
      {"NCCL_NTHREADS", "not modelled"},
      {"NCCL_COLLNET_ENABLE", "rigsim has no CollNet/SHARP network model"},
      {"NCCL_DEBUG", "rigsim's reports say why already"},
      {"NCCL_DEBUG_SUBSYS", "rigsim's reports say why already"},
      {"NCCL_P2P_PXN_LEVEL",
       "rigsim models its default, 2: a send to another server leaves through the NIC of the GPU mirroring "
       "its peer wherever PXN allows (NCCL_PXN_DISABLE=1 turns PXN off)"},
      {"NCCL_P2P_LL_THRESHOLD", "rigsim's sendrecv and alltoall always run the Simple protocol"},
      {"NCCL_NCHANNELS_PER_NET_PEER",
       "rigsim puts no per-channel limit on a send across servers, so the count would change no prediction"},
  };
  return keys;
}

std::vector<std::string> modelled_keys() {
  return {"NCCL_P2P_LEVEL",     "NCCL_P2P_DISABLE",    "NCCL_ALGO",           "NCCL_PROTO",
          "NCCL_MAX_NCHANNELS", "NCCL_NVLS_ENABLE",    "NCCL_BUFFSIZE",       "NCCL_MIN_NCHANNELS",
          "NCCL_SHM_DISABLE",   "NCCL_NET_GDR_LEVEL",  "NCCL_NET_GDR_READ",   "NCCL_GRAPH_FILE",
          "NCCL_TOPO_FILE",     "NCCL_NVLS_CHUNKSIZE", "NCCL_NVLS_NCHANNELS", "NCCL_PXN_DISABLE"};
}

/// NCCL_GRAPH_FILE: NCCL loads the graph whose id is the ring graph's (0); one with no channels leaves
/// NCCL (and rigsim) to search.
void apply_graph_file(const std::string& key, const std::string& path, CollectiveOptions& o) {
  if (path.empty()) fail(key, "expected the path of an NCCL graph XML file (NCCL_GRAPH_DUMP_FILE writes one)");
  for (const topology::NcclGraph& g : topology::load_nccl_graphs(path))
    if (g.id == 0) {
      if (g.pattern != 4)
        throw InputError(path, "graph id 0", "the ring graph has pattern " + std::to_string(g.pattern) +
                                                 ", expected 4 (NCCL_TOPO_PATTERN_RING)");
      o.graph_rings.assign(g.channels.begin(), g.channels.begin() + g.nchannels);
      o.graph_speed_gbs = g.speed_intra;
      return;
    }
  throw InputError(path, "", "no ring graph (<graph id=\"0\">): NCCL would search the rings itself");
}

}  // namespace

NcclEnv parse_nccl_env_args(const std::vector<std::string>& args) {
  NcclEnv out;
  for (const std::string& a : args) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", "--nccl-env", "expected KEY=VALUE (e.g. NCCL_P2P_LEVEL=PHB), got \"" + a + "\"");
    std::string key = a.substr(0, eq);
    if (!key.starts_with("NCCL_"))
      throw InputError("", "--nccl-env", "\"" + key + "\" is not an NCCL variable (they start with NCCL_)");
    out.emplace_back(std::move(key), a.substr(eq + 1));
  }
  return out;
}

NcclEnv nccl_env_from(const char* const* environ) {
  NcclEnv out;
  for (const char* const* e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string s = *e;
    const auto eq = s.find('=');
    if (eq != std::string::npos && s.starts_with("NCCL_")) out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void apply_nccl_env(const NcclEnv& env, CollectiveOptions& o) {
  for (const auto& [key, raw] : env) {
    const std::string value = raw;
    if (key == "NCCL_P2P_LEVEL") {
      const auto level = path_level(value);
      if (!level || level == topology::PathClass::NET)
        fail(key, "expected LOC, NVL, NVB, PIX, PXB, PHB (NODE), SYS or NCCL's old numbering 0-5, got \"" +
                      value + "\"");
      o.p2p.level = level;
    } else if (key == "NCCL_P2P_DISABLE") {
      o.p2p.disable = flag(key, value);
    } else if (key == "NCCL_ALGO") {
      const std::string v = upper(value);
      if (v == "RING")
        o.algorithm = Algorithm::Ring;
      else if (v == "TREE")
        o.algorithm = Algorithm::Tree;
      else if (v == "NVLS")
        o.algorithm = Algorithm::Nvls;
      else if (v == "NVLSTREE")
        o.algorithm = Algorithm::NvlsTree;
      else
        fail(key,
             "rigsim takes one of Ring, Tree, NVLS, NVLSTree (no lists, no ^exclusions, no CollNet/PAT), "
             "got \"" + value + "\"");
    } else if (key == "NCCL_PROTO") {
      const std::string v = upper(value);
      if (v == "LL")
        o.protocol = Protocol::LL;
      else if (v == "LL128")
        o.protocol = Protocol::LL128;
      else if (v == "SIMPLE")
        o.protocol = Protocol::Simple;
      else
        fail(key, "rigsim takes one of LL, LL128, Simple (no lists), got \"" + value + "\"");
    } else if (key == "NCCL_MAX_NCHANNELS") {
      o.max_channels = o.nccl_max_channels = static_cast<int>(integer(key, value, 1, 32));
    } else if (key == "NCCL_MIN_NCHANNELS") {
      o.nccl_min_channels = static_cast<int>(integer(key, value, 0, 32));
    } else if (key == "NCCL_SHM_DISABLE") {
      o.p2p.shm_disable = flag(key, value);
    } else if (key == "NCCL_NET_GDR_LEVEL") {
      const auto level = path_level(value);
      using topology::PathClass;
      if (!level || level == PathClass::NVL || level == PathClass::NVB || level == PathClass::NET)
        fail(key, "expected LOC, PIX, PXB, PHB (NODE), SYS or NCCL's old numbering 0-5, got \"" + value + "\"");
      o.net.gdr_level = level;
    } else if (key == "NCCL_NET_GDR_READ") {
      o.net.gdr_read = flag(key, value) ? 1 : 0;
    } else if (key == "NCCL_PXN_DISABLE") {
      o.net.pxn = !flag(key, value);
    } else if (key == "NCCL_TOPO_FILE") {
      // The topology NCCL reads instead of detecting one: the command loads it as the layout (bench);
      // here it is only recorded, so a command with its layout fixed can refuse a different one.
      if (value.empty()) fail(key, "expected the path of an NCCL topology XML file");
      o.topo_file = value;
    } else if (key == "NCCL_GRAPH_FILE") {
      apply_graph_file(key, value, o);
    } else if (key == "NCCL_NVLS_ENABLE") {
      o.nvls_enable = integer(key, value, 0, 2) != 0;
    } else if (key == "NCCL_NVLS_CHUNKSIZE") {
      o.nvls_chunk = Bytes{static_cast<double>(integer(key, value, 1024, 1ll << 30))};
    } else if (key == "NCCL_NVLS_NCHANNELS") {
      o.nvls_channels = static_cast<int>(integer(key, value, 1, 32));
    } else if (key == "NCCL_BUFFSIZE") {
      const long long b = integer(key, value, 1 << 16, 1ll << 30);
      if ((b & (b - 1)) != 0) fail(key, "expected a power of two, got " + value);
      o.ring_chunk = Bytes{static_cast<double>(b) / 2};   // ALLREDUCE_CHUNKSTEPS 4 of NCCL_STEPS 8
      o.chain_chunk = Bytes{static_cast<double>(b) / 8};  // BROADCAST_CHUNKSTEPS 1 of 8
    } else if (const auto it = unmodelled().find(key); it != unmodelled().end()) {
      fail(key, "NCCL reads it but rigsim does not model it: " + it->second);
    } else if (const auto since = nccl_variable_since(key)) {
      fail(key, "NCCL reads it (releases " + std::string(*since) +
                    " and later) but rigsim does not model it: leave it out to predict NCCL's default");
    } else {
      std::vector<std::string> known = modelled_keys();
      for (const auto& [k, why] : unmodelled()) known.push_back(k);
      fail(key, "unknown NCCL variable (no NCCL release from 2.14.3 to 2.30.7 reads it)" +
                    did_you_mean(key, known));
    }
  }
}

}  // namespace rigsim::model
