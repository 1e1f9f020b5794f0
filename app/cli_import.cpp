// `rigsim import KIND FILE -o LAYOUT.json`: a layout sketch from what a seller or a running box can
// show (`nvidia-smi topo -m`, an NCCL topology dump). What the input does not say comes from --gpu,
// --cpu, ... or is assumed; every assumption is in the layout's notes and printed.
#include <filesystem>
#include <iostream>

#include "app/cli.hpp"
#include "common/input.hpp"
#include "topology/build.hpp"
#include "topology/importers.hpp"
#include "topology/layout_json.hpp"
#include "topology/nccl_xml.hpp"

namespace rigsim::app {
namespace {

struct ImportCli {
  std::string kind, input, output, matrix;
  topology::ImportHints hints;
};

topology::LayoutSpec import(const ImportCli& o) {
  const std::string text = read_input_file(o.input);
  if (o.kind == "nccl-xml") {
    topology::LayoutSpec spec = topology::import_nccl_xml(text, o.input);
    spec.notes.insert(spec.notes.begin(), "Imported by `rigsim import nccl-xml` from " + o.input + ".");
    for (const std::string& w : spec.import_warnings) spec.notes.push_back("NCCL XML: " + w);
    spec.import_warnings.clear();
    if (!o.hints.name.empty()) spec.name = o.hints.name;
    return spec;
  }
  if (o.kind == "hwloc" || o.kind == "lspci") {
    topology::LayoutSpec tree = o.kind == "hwloc" ? topology::import_hwloc(text, o.input, o.hints)
                                                  : topology::import_lspci(text, o.input, o.hints);
    return o.matrix.empty() ? tree : topology::merge_nvidia_smi_topo(std::move(tree), read_input_file(o.matrix), o.matrix);
  }
  if (!o.matrix.empty()) throw InputError("", "--topo-matrix", "goes with lspci or hwloc input");
  return topology::import_nvidia_smi_topo(text, o.input, o.hints);
}

int run(ImportCli o) {
  if (o.hints.name.empty()) o.hints.name = std::filesystem::path(o.input).stem().string();
  const topology::LayoutSpec spec = import(o);
  (void)topology::build_topology(spec);  // the sketch must be a valid layout before it is written
  emit(topology::layout_to_json(spec).dump(2) + "\n", o.output);
  std::cerr << "rigsim import: " << spec.gpus.size() << " GPUs, " << spec.cpus.size() << " socket(s), "
            << spec.switches.size() << " PCIe switch(es), " << spec.nics.size() << " NIC(s). Check:\n";
  for (const std::string& n : spec.notes) std::cerr << "  - " << n << "\n";
  return 0;
}

}  // namespace

void add_import(CLI::App& app, Action& action) {
  auto opt = std::make_shared<ImportCli>();
  CLI::App* cmd = app.add_subcommand("import", "Write a layout sketch from `nvidia-smi topo -m`, `lspci -tvnn`, hwloc XML or an NCCL topology dump");
  cmd->add_option("kind", opt->kind, "What the file is: nvidia-smi-topo, lspci (lspci -tvnn), hwloc (lstopo --of xml), nccl-xml")
      ->required()
      ->check(CLI::IsMember({"nvidia-smi-topo", "lspci", "hwloc", "nccl-xml"}));
  cmd->add_option("file", opt->input, "The text to import")->required()->check(CLI::ExistingFile);
  cmd->add_option("--gpu", opt->hints.gpu_models,
                  "GPU catalog key (nvidia-smi-topo): one for all GPUs, or one per GPU in index order")
      ->delimiter(',');
  cmd->add_option("--cpu", opt->hints.cpu_model, "CPU catalog key of every socket (nvidia-smi-topo)");
  cmd->add_option("--nic", opt->hints.nic_model, "NIC catalog key (default: assumed by PCIe generation)");
  cmd->add_option("--switch", opt->hints.switch_model, "PCIe switch catalog key (default: by PCIe generation)");
  cmd->add_option("--gen", opt->hints.gen, "PCIe generation of the slots (default: the CPU's)")->check(CLI::Range(1, 6));
  cmd->add_option("--name", opt->hints.name, "Layout name (default: the file name)");
  cmd->add_option("--topo-matrix", opt->matrix,
                  "lspci / hwloc: `nvidia-smi topo -m` of the same machine, for each GPU's socket and NVLink")
      ->check(CLI::ExistingFile);
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run(*opt); }; });
}

}  // namespace rigsim::app
