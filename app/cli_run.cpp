// `rigsim run SCENARIO`: one training step of a scenario on a layout: step time, tokens/s, MFU, memory
// per GPU, a per-rank breakdown, the busiest links, and why.
#include <fstream>

#include "app/cli.hpp"
#include "app/training_inputs.hpp"
#include "engine/executor.hpp"
#include "model/scenario_run.hpp"
#include "report/training.hpp"

namespace rigsim::app {
namespace {

struct RunOptions {
  std::string scenario, layout, trace, cost_model, output;
  bool json = false, scale_dp = false;
  int nodes = 1;
};

int run(const RunOptions& o) {
  const workloads::Scenario s = read_scenario(o.scenario);
  const workloads::ModelConfig m = read_model(s);
  const model::Platform platform(read_training_layout(s, o.layout, "", o.nodes),
                                 read_cost_model(o.cost_model));
  // The embedded default is defined as "data parallel over every GPU", so it always scales.
  const bool adapt = o.scale_dp || o.scenario.empty();
  const model::ScenarioRun prepared = model::prepare_scenario(platform, s, m, adapt);
  model::TrainingOptions options;
  options.keep_trace = !o.trace.empty();
  const model::TrainingResult r = model::simulate_scenario(platform, engine::run, prepared, options);
  const report::RunContext ctx{&platform, &prepared.scenario, &prepared.model, prepared.notes};
  if (!o.trace.empty()) emit(report::training_trace(ctx, r).dump() + "\n", o.trace);
  emit(o.json ? report::training_json(ctx, r).dump(2) + "\n" : report::training_text(ctx, r), o.output);
  return 0;
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Simulate one training step of a scenario: step time, tokens/s, MFU, memory fit, and why");
  cmd->add_option("scenario", opt->scenario,
                  "Scenario JSON (docs/scenario-format.md); default: the embedded one")
      ->check(CLI::ExistingFile);
  cmd->add_option("--layout", opt->layout, "Layout JSON or NCCL XML (replaces the scenario's \"layout\")")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", opt->json, "Print JSON instead of text");
  cmd->add_option("--nodes", opt->nodes, "Run on this many copies of the server, joined through their NICs");
  cmd->add_flag(
      "--scale-dp", opt->scale_dp,
      "Use every GPU of the layout: dp = GPUs / (tp x pp), as compare does (always on for the default)");
  cmd->add_option("--trace", opt->trace, "Write a Chrome/Perfetto trace of the step to this file");
  add_cost_model_option(cmd, opt->cost_model);
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run(*opt); }; });
}

}  // namespace rigsim::app
