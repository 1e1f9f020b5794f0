// rigsim-probe: measures this machine for `rigsim calibrate` / `rigsim validate` (kernels/probe/app.hpp).
#include <unistd.h>

#include <array>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "kernels/cuda_backend.hpp"
#include "kernels/probe/app.hpp"

namespace {

/// stdout of `nvidia-smi topo -m`, or nullopt when it cannot be run or fails.
std::optional<std::string> topo_matrix() {
  FILE* p = popen("nvidia-smi topo -m 2>/dev/null", "r");
  if (p == nullptr) return std::nullopt;
  std::string text;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) text.append(buf.data(), n);
  return pclose(p) == 0 && !text.empty() ? std::optional<std::string>(text) : std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  rigsim::probe::Environment env;
  env.host = host.data();
  env.topo_matrix = topo_matrix;
  return rigsim::probe::probe_main(argc, argv, rigsim::probe::make_cuda_backend, env, std::cout, std::cerr);
}
