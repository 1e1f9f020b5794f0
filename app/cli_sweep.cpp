// `rigsim sweep SCENARIO`: every parallelism plan of the scenario's workload on a layout, ranked, with
// why the best wins; `--shard K/N` runs one slice of the plans. `rigsim sweep-merge FILE...` joins the
// slices' JSON into the report of the whole sweep (docs/sweep.md).
#include "app/cli.hpp"
#include "app/training_inputs.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "report/sweep.hpp"

namespace rigsim::app {
namespace {

struct SweepOptions {
  std::string scenario, layout, cost_model, output;
  std::string shard = "1/1";
  int top = 10;
  bool json = false;
};

struct MergeOptions {
  std::vector<std::string> files;
  std::string output;
  int top = 10;
  bool json = false;
};

void emit_sweep(const report::Sweep& sw, bool json, int top, const std::string& output) {
  emit(json ? report::sweep_json(sw).dump(2) + "\n" : report::sweep_text(sw, top), output);
}

int run(const SweepOptions& o) {
  const report::Shard shard = report::parse_shard(o.shard);  // before any work: a typo fails at once
  const workloads::Scenario s = read_scenario(o.scenario);
  const workloads::ModelConfig m = read_model(s);
  const model::Platform platform(read_training_layout(s, o.layout), read_cost_model(o.cost_model));
  emit_sweep(report::run_sweep(platform, s, m, shard, engine::run), o.json, o.top, o.output);
  return 0;
}

int merge(const MergeOptions& o) {
  std::vector<report::Sweep> slices;
  for (const auto& file : o.files) slices.push_back(report::sweep_from_json(load_json_file(file), file));
  emit_sweep(report::sweep_merge(slices, o.files), o.json, o.top, o.output);
  return 0;
}

}  // namespace

void add_sweep(CLI::App& app, Action& action) {
  auto opt = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Simulate every dp x tp x pp x ep x ZeRO x offload x recompute plan on a layout and rank them");
  cmd->add_option("scenario", opt->scenario, "Scenario JSON (its plan is ignored); default: the embedded one")
      ->check(CLI::ExistingFile);
  cmd->add_option("--layout", opt->layout, "Layout JSON or NCCL XML (replaces the scenario's \"layout\")")
      ->check(CLI::ExistingFile);
  cmd->add_option("--top", opt->top, "Rows of the table (default 10)")->check(CLI::Range(1, 1000000));
  cmd->add_option("--shard", opt->shard,
                  "Run slice K of N of the plan list (plans i with i % N = K-1), e.g. 2/8");
  cmd->add_flag("--json", opt->json, "Print every plan's row as JSON (what sweep-merge reads)");
  add_cost_model_option(cmd, opt->cost_model);
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run(*opt); }; });
}

void add_sweep_merge(CLI::App& app, Action& action) {
  auto opt = std::make_shared<MergeOptions>();
  CLI::App* cmd =
      app.add_subcommand("sweep-merge", "Join the JSON slices of a sweep (--shard K/N) and rank them");
  cmd->add_option("files", opt->files, "The slices' JSON files, 1/N to N/N, in any order")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--top", opt->top, "Rows of the table (default 10)")->check(CLI::Range(1, 1000000));
  cmd->add_flag("--json", opt->json,
                "Print the merged sweep as JSON (as sweep --json prints the whole sweep)");
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return merge(*opt); }; });
}

}  // namespace rigsim::app
