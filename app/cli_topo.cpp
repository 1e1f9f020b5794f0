// `rigsim topo LAYOUT`: the nvidia-smi topo -m view of a layout, its links, lane budget and P2P.
#include <map>

#include "app/cli.hpp"
#include "report/topo.hpp"
#include "topology/nccl_xml.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::app {

void add_topo(CLI::App& app, Action& action) {
  struct Options {
    std::string layout, format = "text", p2p_level, output, nccl_version;
    bool p2p_disable = false, json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("topo", "Show how the GPUs of a layout are connected (nvidia-smi topo -m style)");
  cmd->add_option("layout", opt->layout, "Layout JSON or NCCL topology XML file")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", opt->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "dot", "nccl-xml"}));
  cmd->add_flag("--json", opt->json, "Same as --format json");
  cmd->add_option("--p2p-level", opt->p2p_level, "Like NCCL_P2P_LEVEL: highest path class that uses P2P")
      ->check(CLI::IsMember({"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS"}));
  cmd->add_flag("--p2p-disable", opt->p2p_disable, "Like NCCL_P2P_DISABLE=1");
  add_nccl_version_option(cmd, opt->nccl_version);
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] {
    action = [opt] {
      const topology::Topology topo = topology::read_layout(opt->layout);
      topology::P2pPolicy policy;
      policy.disable = opt->p2p_disable;
      if (!opt->p2p_level.empty()) policy.level = topology::parse_path_class(opt->p2p_level);
      if (!opt->nccl_version.empty()) policy.nccl_version = topology::parse_nccl_version(opt->nccl_version);
      const std::string format = opt->json ? "json" : opt->format;
      std::string text;
      if (format == "json")
        text = report::topo_json(topo, policy).dump(2) + "\n";
      else if (format == "dot")
        text = report::topo_dot(topo);
      else if (format == "nccl-xml")
        text = topology::export_nccl_xml(topo);
      else
        text = report::topo_text(topo, policy);
      emit(text, opt->output);
      return 0;
    };
  });
}

}  // namespace rigsim::app
