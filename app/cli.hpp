// Sub-command registration for the rigsim executable. Each cli_*.cpp adds one sub-command to the
// CLI11 app and returns the action to run once the command line has been parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace rigsim::app {

using Action = std::function<int()>;

/// Where a sub-command's output goes: stdout, or a file written whole (temporary file + rename),
/// so a failure never leaves a half-written output file.
void emit(const std::string& text, const std::string& output_path);

/// `-o,--output FILE`: where emit() writes.
void add_output_option(CLI::App* cmd, std::string& path);
/// `--cost-model FILE`: a calibration profile overriding the built-in cost model (read_cost_model).
void add_cost_model_option(CLI::App* cmd, std::string& path);
/// `--nccl-version 2.21.5`: the NCCL release whose default P2P level applies (topology::parse_nccl_version).
void add_nccl_version_option(CLI::App* cmd, std::string& version);

/// Loads a layout JSON or NCCL topology XML file (chosen by extension).
struct LayoutArg {
  std::string path;
};

void add_topo(CLI::App& app, Action& action);
void add_catalog(CLI::App& app, Action& action);
void add_p2p(CLI::App& app, Action& action);
void add_bench(CLI::App& app, Action& action);
void add_run(CLI::App& app, Action& action);
void add_compare(CLI::App& app, Action& action);
void add_sweep(CLI::App& app, Action& action);
void add_sweep_merge(CLI::App& app, Action& action);
void add_validate(CLI::App& app, Action& action);
void add_calibrate(CLI::App& app, Action& action);
void add_import(CLI::App& app, Action& action);
void add_measurements(CLI::App& app, Action& action);

}  // namespace rigsim::app
