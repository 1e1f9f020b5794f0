// `rigsim validate MEASUREMENTS...` and `rigsim calibrate MEASUREMENTS... -o PROFILE`: how far the
// model is from a real rig, and a cost-model profile fitted to it.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "app/cli.hpp"
#include "app/training_inputs.hpp"
#include "calibration/measurements.hpp"
#include "calibration/parsers.hpp"
#include "common/input.hpp"
#include "common/output.hpp"
#include "engine/executor.hpp"
#include "model/fit.hpp"
#include "report/validate.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::app {
namespace {

namespace fs = std::filesystem;

struct CalibrateCli {
  std::vector<std::string> inputs;
  std::string layout, cost_model, output, op;
  std::string baseline;  // an earlier `validate --json` report to compare with
  bool json = false, force = false;
  std::optional<double> max_error;   // percent
  std::optional<double> max_factor;  // predicted / measured within [1/K, K]
};

/// The layout a measurements file runs on: --layout, else the file's rig.layout (relative to it).
std::string layout_of(const calibration::Measurements& m, const std::string& given) {
  if (!given.empty()) return given;
  if (m.rig.layout.empty())
    throw InputError(m.file, "/rig/layout",
                     "no layout: give --layout LAYOUT.json or set rig.layout in the file");
  const fs::path p = fs::path(m.file).parent_path() / m.rig.layout;
  return p.lexically_normal().string();
}

/// A layout's platforms under one cost model, per server count, built when first asked for.
class Platforms {
 public:
  Platforms(std::string layout, calibration::CostModel cost)
      : layout_(std::move(layout)), cost_(std::move(cost)) {}
  const model::Platform& operator()(int nodes) {
    auto it = cache_.find(nodes);
    if (it == cache_.end())
      it = cache_.emplace(nodes, model::Platform(topology::read_layout(layout_, nodes), cost_)).first;
    return it->second;
  }

 private:
  std::string layout_;
  calibration::CostModel cost_;
  std::map<int, model::Platform> cache_;
};

/// Every input, a measurements JSON file or a tool's output (calibration/parsers); what a parser skipped
/// or assumed is printed on stderr.
std::vector<calibration::Measurements> load_all(const std::vector<std::string>& inputs,
                                                const std::string& op) {
  std::vector<calibration::Measurements> out;
  for (const std::string& path : inputs) {
    calibration::ParseResult r = calibration::load_any(path, op);
    for (const std::string& n : r.notes) std::fprintf(stderr, "rigsim: %s: %s\n", path.c_str(), n.c_str());
    out.push_back(std::move(r.measurements));
  }
  return out;
}

/// Exit status 3 when a point is past --max-error or --max-factor (each named on stderr), else 0.
int check_limits(const CalibrateCli& o, const std::vector<report::ValidatedFile>& files) {
  int status = 0;
  for (const report::ValidatedFile& f : files)
    for (const model::PointCheck& c : f.checks) {
      const double ratio = c.predicted / c.measured;
      const bool error = o.max_error && 100 * std::abs(ratio - 1) > *o.max_error;
      const bool factor = o.max_factor && (ratio > *o.max_factor || ratio < 1 / *o.max_factor);
      if (!error && !factor) continue;
      std::fprintf(stderr,
                   "rigsim validate: %s: %s predicted %.4g %s, measured %.4g (x%.2f) is past the limit\n",
                   f.file.c_str(), (c.id.empty() ? c.what : c.id).c_str(), c.predicted, c.unit.c_str(),
                   c.measured, ratio);
      status = 3;
    }
  return status;
}

int run_validate(const CalibrateCli& o) {
  const calibration::CostModel cost = read_cost_model(o.cost_model);
  std::vector<report::ValidatedFile> files;
  for (const calibration::Measurements& m : load_all(o.inputs, o.op)) {
    report::ValidatedFile f{m.file, layout_of(m, o.layout), m.rig.name, {}, m.pairs};
    Platforms platforms(f.layout, cost);
    f.checks = model::validate([&](int nodes) -> const model::Platform& { return platforms(nodes); },
                               engine::run, m);
    files.push_back(std::move(f));
  }
  std::optional<report::Baseline> baseline;
  if (!o.baseline.empty()) baseline = report::read_baseline(load_json_file(o.baseline), o.baseline);
  if (o.json) {
    nlohmann::json j = report::validate_json(files, cost.source);
    if (baseline) j["baseline"] = report::baseline_json(files, *baseline);
    emit(j.dump(2) + "\n", o.output);
  } else {
    emit(
        report::validate_text(files, cost.source) + (baseline ? report::baseline_text(files, *baseline) : ""),
        o.output);
  }
  return check_limits(o, files);
}

/// Every input's series as one rig's measurements (the first file's rig description).
calibration::Measurements merge(std::vector<calibration::Measurements> all) {
  calibration::Measurements m = std::move(all.front());
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].rig.gpus.size() > m.rig.gpus.size()) m.rig.gpus = all[i].rig.gpus;
    for (calibration::Series& s : all[i].series) m.series.push_back(std::move(s));
  }
  return m;
}

int run_calibrate(const CalibrateCli& o) {
  if (!o.force && fs::exists(o.output))
    throw InputError(o.output, "", "exists; calibrate never overwrites a profile silently (use --force)");
  const calibration::CostModel start = read_cost_model(o.cost_model);
  const calibration::Measurements m = merge(load_all(o.inputs, o.op));
  const std::string layout = layout_of(m, o.layout);
  const topology::Topology one = topology::read_layout(layout, 1);
  const model::PlatformMaker make = [&](const calibration::CostModel& cm, int nodes) {
    return model::Platform(nodes == 1 ? one : topology::read_layout(layout, nodes), cm);
  };
  const model::FitResult r = model::fit(make, engine::run, m, start);
  nlohmann::json rig = nlohmann::json::parse(calibration::to_json(m).at("rig").dump());
  write_output_file(o.output, report::profile_json(r, rig, o.inputs, layout).dump(2) + "\n");
  std::fputs(report::fit_text(r, layout).c_str(), stdout);
  std::printf("\nWrote %s\n", o.output.c_str());
  return 0;
}

void add_inputs(CLI::App* cmd, CalibrateCli& o) {
  cmd->add_option(
         "measurements", o.inputs,
         "Measurements JSON (rigsim-measurements/1), or the output of nccl-tests, p2pBandwidthLatencyTest, "
         "bandwidthTest or nvbandwidth")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--op", o.op,
                  "The collective of nccl-tests outputs that do not say (all_reduce, all_gather, ...)");
  cmd->add_option("--layout", o.layout,
                  "Layout of the measured rig (default: each file's rig.layout, relative to the file)")
      ->check(CLI::ExistingFile);
  add_cost_model_option(cmd, o.cost_model);
}

}  // namespace

int run_measurements(const CalibrateCli& o) {
  const calibration::Measurements m = merge(load_all(o.inputs, o.op));
  emit(calibration::to_json(m).dump(2) + "\n", o.output);
  return 0;
}

void add_measurements(CLI::App& app, Action& action) {
  auto opt = std::make_shared<CalibrateCli>();
  CLI::App* cmd = app.add_subcommand(
      "measurements",
      "Read tool outputs (nccl-tests, p2pBandwidthLatencyTest, bandwidthTest, nvbandwidth) into one "
      "rigsim-measurements/1 JSON document");
  add_inputs(cmd, *opt);
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run_measurements(*opt); }; });
}

void add_validate(CLI::App& app, Action& action) {
  auto opt = std::make_shared<CalibrateCli>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Re-simulate measured points of a real rig: measured vs predicted, error per category");
  add_inputs(cmd, *opt);
  cmd->add_flag("--json", opt->json, "Print JSON: every point and the errors per category");
  cmd->add_option("--baseline", opt->baseline,
                  "An earlier report of validate --json: list the points whose error moved, and the median, "
                  "the points within 10 % and the A/B pairs before and after")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-error", opt->max_error,
                  "Exit with status 3 when any point's |predicted/measured - 1| exceeds this many percent")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--max-factor", opt->max_factor,
                  "Exit with status 3 when any point's predicted / measured is outside [1/K, K]")
      ->check(CLI::Range(1.0, 1e6));
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run_validate(*opt); }; });
}

void add_calibrate(CLI::App& app, Action& action) {
  auto opt = std::make_shared<CalibrateCli>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit a cost-model profile to the measurements of one rig (then use it with --cost-model)");
  add_inputs(cmd, *opt);
  cmd->add_option("-o,--output", opt->output, "Profile JSON to write")->required();
  cmd->add_flag("--force", opt->force, "Replace an existing profile");
  cmd->callback([opt, &action] { action = [opt] { return run_calibrate(*opt); }; });
}

}  // namespace rigsim::app
