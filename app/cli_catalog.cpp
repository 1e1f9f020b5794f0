// `rigsim catalog [KIND]`: the hardware the layouts can name, with every number's source.
#include "app/cli.hpp"
#include "common/input.hpp"
#include "report/catalog.hpp"

namespace rigsim::app {

void add_catalog(CLI::App& app, Action& action) {
  struct Options {
    std::string kind = "gpus";
    std::string key;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("catalog", "List the hardware catalog (GPUs, CPUs, chipsets, switches, NICs)");
  std::vector<std::string> kinds = report::catalog_kinds();
  kinds.push_back("show");
  cmd->add_option("kind", opt->kind, "What to list, or `show KEY` for one part with every value and its source")
      ->check(CLI::IsMember(kinds));
  cmd->add_option("key", opt->key, "With `show`: the part's catalog key (e.g. rtx-4090)");
  cmd->add_flag("--json", opt->json, "JSON with sources");
  cmd->callback([opt, &action] {
    action = [opt] {
      if (opt->kind == "show") {
        if (opt->key.empty()) throw InputError("", "catalog show", "expected a part's key, e.g. `rigsim catalog show rtx-4090`");
        emit(opt->json ? report::catalog_entry(opt->key).dump(2) + "\n" : report::catalog_show(opt->key), "");
        return 0;
      }
      if (!opt->key.empty()) throw InputError("", "catalog", "a key goes with `show` (rigsim catalog show " + opt->key + ")");
      emit(opt->json ? report::catalog_json(opt->kind).dump(2) + "\n" : report::catalog_text(opt->kind), "");
      return 0;
    };
  });
}

}  // namespace rigsim::app
