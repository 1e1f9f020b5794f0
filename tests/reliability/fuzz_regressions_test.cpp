// Replays every input the fuzzers ever found a problem with (fuzz/regressions/<target>/), and the seed
// corpora, through the normal readers: each must give a clean result or a located InputError.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/targets.hpp"

namespace rigsim::fuzz {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t replay(const std::string& target, const fs::path& dir) {
  if (!fs::is_directory(dir)) return 0;
  const Target t = target_named(target);
  EXPECT_NE(t, nullptr) << target;
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    SCOPED_TRACE(e.path().string());
    EXPECT_NO_THROW(t(read(e.path())));
    ++n;
  }
  return n;
}

const fs::path kSource = RIGSIM_SOURCE_DIR;

TEST(FuzzRegressions, EveryFoundInputIsHandled) {
  std::size_t n = 0;
  for (const char* t : {"layout_json", "nccl_xml", "cost_model", "scenario", "measurements", "tool_output", "importers"})
    n += replay(t, kSource / "fuzz" / "regressions" / t);
  std::cout << "replayed " << n << " regression inputs\n";
}

TEST(FuzzRegressions, SeedCorporaAreHandled) {
  EXPECT_GT(replay("layout_json", kSource / "scenarios" / "layouts"), 0u);
  replay("layout_json", kSource / "scenarios" / "dev-cases" / "layouts");
  replay("cost_model", kSource / "fuzz" / "corpus" / "cost_model");
  EXPECT_GT(replay("scenario", kSource / "scenarios" / "training"), 0u);
  replay("nccl_xml", kSource / ".." / "shared" / "data" / "nccl-topo");  // skipped when ../shared is absent
  EXPECT_GT(replay("measurements", kSource / "scenarios" / "dev-cases"), 0u);
  replay("tool_output", kSource / ".." / "shared" / "data" / "nccl-tests");
  replay("tool_output", kSource / ".." / "shared" / "data" / "p2p");
  replay("importers", kSource / ".." / "shared" / "data" / "nvidia-smi-topo");
  replay("importers", kSource / ".." / "shared" / "data" / "hwloc");
}

}  // namespace
}  // namespace rigsim::fuzz
