// rigsim: what a multi-GPU box will do before you buy or build it. A thin main over the libraries:
// it parses the command line, runs one sub-command, and turns errors into messages and exit codes.
#include <cstdio>
#include <iostream>

#include "app/cli.hpp"
#include "common/input.hpp"
#include "common/output.hpp"
#include "topology/catalog.hpp"
#include "topology/p2p.hpp"

namespace rigsim::app {

void emit(const std::string& text, const std::string& output_path) {
  if (output_path.empty() || output_path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  write_output_file(output_path, text);
}

void add_output_option(CLI::App* cmd, std::string& path) {
  cmd->add_option("-o,--output", path, "Write to this file instead of stdout");
}

void add_nccl_version_option(CLI::App* cmd, std::string& version) {
  cmd->add_option(
         "--nccl-version", version,
         "NCCL release whose default P2P level applies, e.g. 2.21.5 (before 2.23.4: SYS, PXB on Intel; "
         "default: 2.30.7)")
      ->check(CLI::Validator(
          [](std::string& text) {
            try {
              topology::parse_nccl_version(text);
              return std::string();
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
          },
          "VERSION"));
}

void add_cost_model_option(CLI::App* cmd, std::string& path) {
  cmd->add_option("--cost-model", path, "Calibration profile JSON overriding the built-in cost model")
      ->check(CLI::ExistingFile);
}

}  // namespace rigsim::app

int main(int argc, char** argv) {
  CLI::App app{"rigsim: simulate a multi-GPU server before you buy or build it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rigsim 0.1.0");
  app.fallthrough();  // options of the app (--catalog) may follow the sub-command too
  std::vector<std::string> catalogs;
  app.add_option("--catalog", catalogs,
                 "A catalog file of your own parts (the schema of catalog/*.json, `like` an existing part "
                 "to give only what differs); repeatable")
      ->type_name("FILE")
      ->allow_extra_args(false);  // one file per --catalog: the layout may follow it
  rigsim::app::Action action;
  rigsim::app::add_topo(app, action);
  rigsim::app::add_catalog(app, action);
  rigsim::app::add_p2p(app, action);
  rigsim::app::add_bench(app, action);
  rigsim::app::add_run(app, action);
  rigsim::app::add_compare(app, action);
  rigsim::app::add_sweep(app, action);
  rigsim::app::add_sweep_merge(app, action);
  rigsim::app::add_validate(app, action);
  rigsim::app::add_calibrate(app, action);
  rigsim::app::add_import(app, action);
  rigsim::app::add_measurements(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (const std::string& path : catalogs)
      for (const std::string& note : rigsim::topology::load_catalog_file(path))
        std::cerr << "rigsim: note: " << note << "\n";
    return action();
  } catch (const rigsim::InputError& e) {
    std::cerr << "rigsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "rigsim: error: " << e.what() << "\n";
    return 1;
  }
}
