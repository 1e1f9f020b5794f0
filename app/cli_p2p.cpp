// `rigsim p2p LAYOUT`: p2pBandwidthLatencyTest and bandwidthTest on a simulated server.
#include "app/cli.hpp"
#include "app/training_inputs.hpp"
#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "model/platform.hpp"
#include "report/p2p.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::app {
namespace {

struct P2pOptions {
  std::string layout, size = "256MiB", cost_model, output;
  bool json = false, dump_platform = false;
};

Bytes parse_size(const std::string& text) {
  Bytes b;
  try {
    b = parse_bytes(text);
  } catch (const std::invalid_argument& e) {
    throw InputError("", "--size", e.what());
  }
  if (!(b.value >= 1 && b.value <= 1099511627776.0))
    throw InputError("", "--size", "expected between 1 byte and 2^40 bytes, got " + text);
  return b;
}

int run(const P2pOptions& o) {
  model::P2pBenchOptions bench;
  bench.size = parse_size(o.size);
  const calibration::CostModel cost = read_cost_model(o.cost_model);
  const model::Platform platform(topology::read_layout(o.layout), cost);
  if (o.dump_platform) {
    emit(platform.dump(), o.output);
    return 0;
  }
  const model::P2pBenchResult r = model::run_p2p_bench(platform, engine::run, bench);
  emit(o.json ? report::p2p_bench_json(r).dump(2) + "\n" : report::p2p_bench_text(r), o.output);
  return 0;
}

}  // namespace

void add_p2p(CLI::App& app, Action& action) {
  auto opt = std::make_shared<P2pOptions>();
  CLI::App* cmd = app.add_subcommand(
      "p2p", "GPU-to-GPU bandwidth and latency matrices (p2pBandwidthLatencyTest) and H2D/D2H, simulated");
  cmd->add_option("layout", opt->layout, "Layout JSON or NCCL topology XML file")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", opt->json, "Print JSON instead of the CUDA samples' text");
  cmd->add_option("--size", opt->size, "Bytes per copy, e.g. 256MiB or 1e9 (default 256MiB)");
  add_cost_model_option(cmd, opt->cost_model);
  cmd->add_flag("--dump-platform", opt->dump_platform,
                "Print the simulated platform (hosts, links, routes) and exit");
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run(*opt); }; });
}

}  // namespace rigsim::app
