// probe_main(): options -> backend (or "no device", exit 2) -> discovery -> measurements -> sketch
// -> files written whole (temp + rename), never over an existing file without --force.
#include "kernels/probe/app.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>

#include "calibration/measurements.hpp"
#include "common/input.hpp"
#include "common/output.hpp"
#include "kernels/probe/discover.hpp"
#include "topology/build.hpp"
#include "topology/catalog_names.hpp"
#include "topology/importers.hpp"
#include "topology/layout_json.hpp"

namespace rigsim::probe {
namespace {

namespace fs = std::filesystem;

std::string next_to(const std::string& output, const std::string& suffix) {
  const fs::path p(output);
  return (p.parent_path() / (p.stem().string() + suffix)).string();
}

void discover(calibration::Rig& rig, const Environment& env) {
  const std::string root = env.root;
  rig.host = env.host;
  rig.cpu = cpu_model_name(root);
  if (rig.driver.empty()) rig.driver = driver_version(root);
  for (calibration::RigGpu& g : rig.gpus) {
    const PcieLink l = read_pcie_link(root, g.bus_id);
    g.link_gen = l.gen, g.link_width = l.width, g.max_link_gen = l.max_gen, g.max_link_width = l.max_width;
    g.numa = l.numa;
  }
  rig.name = std::to_string(rig.gpus.size()) + "x " + (rig.gpus.empty() ? "" : rig.gpus.front().name) +
             (rig.host.empty() ? "" : " on " + rig.host);
}

/// Lines a person should read before trusting the numbers: GPUs trained below their link maximum.
void warn_links(const calibration::Rig& rig, std::ostream& err) {
  for (const calibration::RigGpu& g : rig.gpus)
    if (g.link_width > 0 && g.max_link_width > 0 &&
        (g.link_width < g.max_link_width || (g.link_gen > 0 && g.link_gen < g.max_link_gen)))
      err << "rigsim-probe: note: GPU " << g.index << " (" << g.bus_id << ") links at Gen" << g.link_gen
          << " x" << g.link_width << " of Gen" << g.max_link_gen << " x" << g.max_link_width
          << " (idle GPUs drop the link speed to save power; a narrower width is a slot or riser limit)\n";
}

}  // namespace

std::optional<int> parse_options(int argc, const char* const* argv, ProbeOptions& o, std::ostream& out,
                                 std::ostream& err) {
  CLI::App app(
      "rigsim-probe: measures this machine's GPUs, copies and NCCL collectives for rigsim "
      "calibrate / validate",
      "rigsim-probe");
  app.add_option("-o,--output", o.output, "Measurements JSON to write (default rigsim-measurements.json)");
  app.add_option("--layout-output", o.layout_output,
                 "Layout sketch to write (default: OUTPUT's name with -layout.json)");
  app.add_option("--nccl-topo-output", o.nccl_topo_output,
                 "NCCL's own topology dump, written by the first communicator (default: OUTPUT's name with "
                 "-nccl-topo.xml)");
  app.add_flag("--quick", o.quick, "A short run: fewer sizes and shapes, 3 repetitions");
  std::vector<std::string> only;
  app.add_option("--only", only, "Parts to run, comma separated: memory, host, p2p, gemm, nccl")
      ->delimiter(',')
      ->check(CLI::IsMember(kParts));
  app.add_option("--reps", o.reps, "Timed repetitions per value (default 5; 3 with --quick)")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--force", o.force, "Replace existing output files");
  app.add_flag("!--no-sketch", o.sketch, "Do not write a layout sketch");
  app.add_option("--gpu", o.gpu_models,
                 "Catalog key(s) of the GPUs for the sketch when their names match none")
      ->delimiter(',');
  app.add_option("--cpu", o.cpu_model, "Catalog key of the CPU for the sketch when its name matches none");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << e.what() << "\nRun with --help for more information.\n";
    return kExitUsage;
  }
  o.only = std::set<std::string>(only.begin(), only.end());
  if (o.layout_output.empty()) o.layout_output = next_to(o.output, "-layout.json");
  if (o.nccl_topo_output.empty()) o.nccl_topo_output = next_to(o.output, "-nccl-topo.xml");
  return std::nullopt;
}

std::optional<std::string> sketch_layout(const std::string& matrix, const calibration::Rig& rig,
                                         const ProbeOptions& o, std::string& why, const CpuId& cpuid) {
  topology::ImportHints h;
  h.name = "probed-" + (rig.host.empty() ? std::string("rig") : rig.host);
  h.gpu_models = o.gpu_models;
  const std::string gpus_from =
      o.gpu_models.empty() ? "GPU models from CUDA's device names" : "GPU models from --gpu";
  if (h.gpu_models.empty())
    for (const calibration::RigGpu& g : rig.gpus) {
      const auto key = topology::gpu_key_from_name(g.name);
      if (!key) {
        why = "no catalog GPU matches \"" + g.name + "\" (give --gpu KEY; `rigsim catalog gpus` lists them)";
        return std::nullopt;
      }
      h.gpu_models.push_back(*key);
    }
  h.cpu_model = o.cpu_model;
  std::string cpu_from = "from --cpu";
  if (h.cpu_model.empty()) {
    if (const auto key = topology::cpu_key_from_name(rig.cpu)) {
      h.cpu_model = *key;
      cpu_from = "from its name, \"" + rig.cpu + "\"";
    } else {
      const std::vector<std::string> fits = topology::cpu_keys_from_cpuid(cpuid.family, cpuid.model);
      const std::string id =
          "CPUID family " + std::to_string(cpuid.family) + " model " + std::to_string(cpuid.model);
      if (fits.size() != 1) {
        std::string list;
        for (const std::string& k : fits) list += (list.empty() ? "" : ", ") + k;
        why = "no catalog CPU matches \"" + rig.cpu + "\"" +
              (fits.empty() ? std::string() : "; its " + id + " fits " + list) +
              " (give --cpu KEY; `rigsim catalog cpus` lists them)";
        return std::nullopt;
      }
      h.cpu_model = fits.front();
      cpu_from = "from its " + id + ": its name, \"" + rig.cpu + "\", names no part";
    }
  }
  h.models_from = "CPU model " + h.cpu_model + " (" + cpu_from + "); " + gpus_from;
  for (const calibration::RigGpu& g : rig.gpus)
    if (g.link_gen > 0 && g.link_gen == g.max_link_gen) h.gen = std::max(h.gen, g.link_gen);
  try {
    topology::LayoutSpec spec = topology::import_nvidia_smi_topo(matrix, "nvidia-smi topo -m", h);
    spec.notes.push_back("Written by rigsim-probe on " +
                         (rig.host.empty() ? std::string("this rig") : rig.host) + " (driver " + rig.driver +
                         ", CUDA " + rig.cuda + ").");
    (void)topology::build_topology(spec);
    return topology::layout_to_json(spec).dump(2) + "\n";
  } catch (const InputError& e) {
    why = e.what();
    return std::nullopt;
  }
}

int probe_main(int argc, const char* const* argv, const BackendFactory& make_backend, const Environment& env,
               std::ostream& out, std::ostream& err) {
  ProbeOptions o;
  if (const auto stop = parse_options(argc, argv, o, out, err)) return *stop;
  for (const std::string& path : {o.output, o.layout_output, o.nccl_topo_output})
    if (!o.force && fs::exists(path)) {
      err << "rigsim-probe: " << path << " exists; use --force to replace it\n";
      return kExitUsage;
    }
  std::string why;
  const std::unique_ptr<Backend> backend = make_backend(why);
  if (!backend) {
    err << "rigsim-probe: no usable NVIDIA GPU: " << why << "\nrigsim-probe: nothing was measured.\n";
    return kExitNoDevice;
  }
  // NCCL writes its topology as it sees it when the first communicator starts (NCCL_TOPO_DUMP_FILE);
  // `rigsim import nccl-xml` reads it. A value the user set is kept.
  const bool nccl = o.only.empty() || o.only.contains("nccl");
  if (nccl) setenv("NCCL_TOPO_DUMP_FILE", o.nccl_topo_output.c_str(), 0);
  // The farthest NUMA node with memory from each GPU's (another socket on a 2P server) for the
  // remote-node host copies; none on a one-node machine.
  try {
    for (const GpuInfo& g : backend->gpus())
      o.remote_nodes.push_back(farthest_memory_node(env.root, read_pcie_link(env.root, g.bus_id).numa));
  } catch (const DeviceError& e) {
    err << "rigsim-probe: " << e.what() << "\nrigsim-probe: stopped; nothing was written.\n";
    return kExitDeviceError;
  }
  calibration::Measurements m;
  try {
    m = Runner(*backend, o, err).run();
  } catch (const DeviceError& e) {
    err << "rigsim-probe: " << e.what() << "\nrigsim-probe: stopped; nothing was written.\n";
    return kExitDeviceError;
  }
  discover(m.rig, env);
  warn_links(m.rig, err);
  try {
    if (o.sketch) {
      const std::optional<std::string> matrix = env.topo_matrix ? env.topo_matrix() : std::nullopt;
      const std::optional<std::string> layout =
          matrix ? sketch_layout(*matrix, m.rig, o, why, cpu_id(env.root)) : std::nullopt;
      if (!matrix) why = "`nvidia-smi topo -m` could not be run";
      if (layout) {
        write_output_file(o.layout_output, *layout);
        const fs::path base = fs::absolute(fs::path(o.output)).parent_path();
        m.rig.layout = fs::absolute(fs::path(o.layout_output)).lexically_relative(base).string();
        out << "Wrote " << o.layout_output << " (layout sketch: check its notes)\n";
      } else {
        err << "rigsim-probe: no layout sketch: " << why << "\n";
      }
    }
    calibration::save_measurements(m, o.output);
    if (nccl && fs::exists(o.nccl_topo_output))
      out << "Wrote " << o.nccl_topo_output << " (NCCL's topology dump: `rigsim import nccl-xml` reads it)\n";
  } catch (const InputError& e) {
    err << "rigsim-probe: " << e.what() << "\n";
    return kExitUsage;
  }
  out << "Wrote " << o.output << " (" << m.series.size() << " series)\nNext: rigsim validate " << o.output
      << (m.rig.layout.empty() ? " --layout LAYOUT.json" : "") << "\n      rigsim calibrate " << o.output
      << (m.rig.layout.empty() ? " --layout LAYOUT.json" : "") << " -o profile.json\n";
  return 0;
}

}  // namespace rigsim::probe
