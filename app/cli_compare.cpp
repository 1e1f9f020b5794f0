// `rigsim compare SCENARIO --layouts L1 L2 …`: the same workload on many layouts, ranked.
#include <algorithm>
#include <filesystem>

#include "app/cli.hpp"
#include "app/training_inputs.hpp"
#include "common/input.hpp"
#include "engine/executor.hpp"
#include "model/scenario_run.hpp"
#include "report/training.hpp"

namespace rigsim::app {
namespace {

struct CompareOptions {
  std::string scenario, gpu_model, cost_model, output;
  std::vector<std::string> layouts;
  bool json = false;
};

std::vector<std::string> catalog_layouts() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(data_dir() + "/layouts"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The layout's own price when it states one, else the GPUs' used prices from the catalog
/// (hardware.md §1.5), when every GPU has one.
void price_of(const topology::Topology& topo, report::CompareRow& row) {
  if (topo.price_usd() > 0) {
    row.price_usd = topo.price_usd();
    row.price_source = "the layout: " + topo.price_source();
    return;
  }
  double sum = 0;
  for (auto g : topo.gpus()) {
    const double p = topo.device(g).gpu->used_price_usd;
    if (!(p > 0)) return;
    sum += p;
  }
  row.price_usd = sum;
  row.price_source = "GPUs only, catalog used prices (hardware.md §1.5, 2024)";
}

report::CompareRow compare_one(const workloads::Scenario& s, const workloads::ModelConfig& m,
                               const std::string& path, const CompareOptions& o) {
  report::CompareRow row;
  row.file = path;
  row.layout = std::filesystem::path(path).stem().string();
  // A layout file that cannot be read is bad input and fails the command; a layout that cannot run
  // the scenario (its GPU count, a dtype its GPUs lack) is a row that says why.
  const model::Platform platform(read_training_layout(s, path, o.gpu_model), read_cost_model(o.cost_model));
  row.gpus = static_cast<int>(platform.topology().gpus().size());
  try {
    const model::ScenarioRun run = model::prepare_scenario(platform, s, m, true);
    row.plan = workloads::describe(run.scenario.plan);
    row.notes = run.notes;
    row.result = model::simulate_scenario(platform, engine::run, run);
    const report::RunContext ctx{&platform, &run.scenario, &run.model, run.notes};
    const auto reasons = report::why(ctx, *row.result);
    row.why = reasons.empty() ? "" : reasons.front();
    if (!row.result->bottlenecks.empty()) row.bottleneck = row.result->bottlenecks.front().link;
    price_of(platform.topology(), row);
  } catch (const InputError& e) {
    row.error = e.what();
  }
  return row;
}

int run(const CompareOptions& o) {
  const workloads::Scenario s = read_scenario(o.scenario);
  const workloads::ModelConfig m = read_model(s);
  const auto layouts = o.layouts.empty() ? catalog_layouts() : o.layouts;
  std::vector<report::CompareRow> rows;
  for (const auto& path : layouts) rows.push_back(compare_one(s, m, path, o));
  report::compare_rank(rows);
  const std::string title = (s.name.empty() ? std::string("scenario") : s.name) + ": " + m.name + ", " +
                            workloads::describe(s.plan) + " (dp scaled to each layout)" +
                            (o.gpu_model.empty() ? "" : ", every GPU replaced by " + o.gpu_model);
  emit(o.json ? report::compare_json(title, rows).dump(2) + "\n" : report::compare_text(title, rows),
       o.output);
  return 0;
}

}  // namespace

void add_compare(CLI::App& app, Action& action) {
  auto opt = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Run one training scenario on many layouts and rank them");
  cmd->add_option("scenario", opt->scenario,
                  "Scenario JSON; default: the embedded one (Llama-2-7B, FSDP + CPU offload)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--layouts", opt->layouts, "Layout files (default: every layout of the catalog)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--gpu-model", opt->gpu_model, "Replace every GPU of each layout by this catalog model");
  cmd->add_flag("--json", opt->json, "Print JSON instead of text");
  add_cost_model_option(cmd, opt->cost_model);
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run(*opt); }; });
}

}  // namespace rigsim::app
