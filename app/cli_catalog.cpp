// `rigsim catalog [KIND]`: the hardware the layouts can name, with every number's source.
#include "app/cli.hpp"
#include "report/catalog.hpp"

namespace rigsim::app {

void add_catalog(CLI::App& app, Action& action) {
  struct Options {
    std::string kind = "gpus";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("catalog", "List the hardware catalog (GPUs, CPUs, chipsets, switches, NICs)");
  cmd->add_option("kind", opt->kind, "What to list")->check(CLI::IsMember(report::catalog_kinds()));
  cmd->add_flag("--json", opt->json, "JSON with sources");
  cmd->callback([opt, &action] {
    action = [opt] {
      emit(opt->json ? report::catalog_json(opt->kind).dump(2) + "\n" : report::catalog_text(opt->kind), "");
      return 0;
    };
  });
}

}  // namespace rigsim::app
