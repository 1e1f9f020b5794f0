// `rigsim bench LAYOUT --op OP`: nccl-tests on a simulated server (or cluster of identical servers),
// with its table, footer and a short "why" section; --json for machines.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/cli.hpp"
#include "app/training_inputs.hpp"
#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "common/suggest.hpp"
#include "engine/executor.hpp"
#include "model/nccl_env.hpp"
#include "report/bench.hpp"
#include "topology/build.hpp"
#include "topology/read_layout.hpp"

namespace rigsim::app {
namespace {

struct BenchCli {
  std::string nccl_version;  // "2.21.5": whose default P2P level applies (default: kNcclVersion)
  std::string layout, op = "all_reduce", min = "8", max = "128M", step, p2p_level, model = "auto",
                      algo = "auto", proto = "auto", cost_model, output;
  std::optional<std::string> gpus;  // given but empty is an error, not "all GPUs"
  std::uint64_t factor = 2;
  std::int64_t root = 0;  // signed, so that -r -1 is refused rather than wrapped
  std::optional<std::int64_t> per_node;
  std::size_t gpus_per_thread = 0;  // 0: all of a server's GPUs in one thread (nccl-tests -g N alone)
  int nodes = 1;
  unsigned jobs = 0;  // 0: one per core
  bool json = false, p2p_disable = false, dump_platform = false, env_from_shell = false;
  std::vector<std::string> nccl_env;
};

/// NCCL's environment as given: the shell's (when asked), then --nccl-env (a later setting wins).
model::NcclEnv nccl_env(const BenchCli& o) {
  model::NcclEnv env = o.env_from_shell ? model::nccl_env_from(environ) : model::NcclEnv{};
  for (auto& kv : model::parse_nccl_env_args(o.nccl_env)) env.push_back(std::move(kv));
  return env;
}

/// The layout: the argument, or NCCL_TOPO_FILE (the topology NCCL reads instead of detecting one).
/// Both naming different files is an error: NCCL would see the XML, rigsim the argument.
std::string layout_path(const BenchCli& o) {
  std::string topo_file;
  for (const auto& [key, value] : nccl_env(o))
    if (key == "NCCL_TOPO_FILE") topo_file = value;
  if (topo_file.empty()) {
    if (o.layout.empty())
      throw InputError("", "layout", "expected a layout JSON or NCCL topology XML file (or NCCL_TOPO_FILE)");
    return o.layout;
  }
  if (!std::filesystem::is_regular_file(topo_file))
    throw InputError(topo_file, "--nccl-env NCCL_TOPO_FILE", "no such file");
  if (!o.layout.empty() && !std::filesystem::equivalent(o.layout, topo_file))
    throw InputError("", "--nccl-env NCCL_TOPO_FILE",
                     "names " + topo_file + " but the layout argument is " + o.layout +
                         ": NCCL would read the topology file; give one of them");
  return topo_file;
}

topology::Topology load_topology(const BenchCli& o) {
  return topology::read_layout(layout_path(o), o.nodes);
}

model::CollectiveOp parse_op(const std::string& name) {
  if (auto op = model::parse_collective(name)) return *op;
  throw InputError(
      "", "--op",
      "unknown collective \"" + name + "\"" + did_you_mean(name, model::collective_names()) +
          "; one of all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv");
}

std::vector<std::size_t> parse_indices(const std::string& list) {
  std::vector<std::size_t> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || item.front() == '-')
      throw InputError("", "--gpus", "expected GPU ids like 0,1,2,3, got \"" + list + "\"");
    out.push_back(v);
  }
  if (out.empty()) throw InputError("", "--gpus", "expected GPU ids like 0,1,2,3, got \"" + list + "\"");
  return out;
}

model::BenchOptions bench_options(const BenchCli& o, const topology::Topology& topo) {
  model::BenchOptions b;
  b.op = parse_op(o.op);
  b.sweep.min_bytes = model::nccl_tests::parse_size(o.min, "-b");
  b.sweep.max_bytes = model::nccl_tests::parse_size(o.max, "-e");
  if (!o.step.empty()) {
    b.sweep.step_factor = 1;
    b.sweep.step_bytes = model::nccl_tests::parse_size(o.step, "-i");
  } else {
    b.sweep.step_factor = o.factor;
    b.sweep.step_bytes = o.factor > 1 ? 0 : 1 << 20;  // nccl-tests' default -i: 1 MiB
  }
  if (o.per_node && *o.per_node < 1)
    throw InputError("", "-g", "expected at least 1 GPU per server, got " + std::to_string(*o.per_node));
  if (o.root < 0)
    throw InputError("", "-r", "expected a root rank of 0 or more, got " + std::to_string(o.root));
  const std::optional<std::size_t> per_node =
      o.per_node ? std::optional<std::size_t>(static_cast<std::size_t>(*o.per_node)) : std::nullopt;
  b.gpus = model::select_gpus(topo, per_node, o.gpus ? parse_indices(*o.gpus) : std::vector<std::size_t>{});
  b.gpus_per_thread = o.gpus_per_thread;
  b.collective.model = *model::parse_plan_model(o.model);
  if (o.algo != "auto")
    b.collective.algorithm = o.algo == "ring"       ? model::Algorithm::Ring
                             : o.algo == "nvls"     ? model::Algorithm::Nvls
                             : o.algo == "nvlstree" ? model::Algorithm::NvlsTree
                                                    : model::Algorithm::Tree;
  if (o.proto != "auto") b.collective.protocol = model::parse_protocol(o.proto);
  b.collective.root = static_cast<std::size_t>(o.root);
  b.collective.p2p.disable = o.p2p_disable;
  if (!o.p2p_level.empty()) b.collective.p2p.level = topology::parse_path_class(o.p2p_level);
  if (!o.nccl_version.empty()) b.collective.p2p.nccl_version = topology::parse_nccl_version(o.nccl_version);
  // NCCL's environment last: the shell's, then --nccl-env (a later setting wins, as in a shell).
  model::apply_nccl_env(nccl_env(o), b.collective);
  return b;
}

int run(const BenchCli& o) {
  const calibration::CostModel cost = read_cost_model(o.cost_model);
  topology::Topology topo = load_topology(o);
  // The options first: NCCL's environment may set what the platform's network routes do (GDR).
  const model::BenchOptions options = bench_options(o, topo);
  const model::Platform platform(std::move(topo), cost, model::bench_net_policy(options));
  if (o.dump_platform) {
    emit(platform.dump(), o.output);
    return 0;
  }
  // The sizes are dealt to a few simulations (model::kSweepGroups), each its own process, up to one per
  // core at once (the output is the same for any number).
  const unsigned jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const model::BenchResult r = model::run_bench(platform, engine::run_phases_async, options, jobs);
  emit(o.json ? report::bench_json(platform, options, r).dump(2) + "\n"
              : report::bench_text(platform, options, r),
       o.output);
  return 0;
}

}  // namespace

void add_bench(CLI::App& app, Action& action) {
  auto opt = std::make_shared<BenchCli>();
  CLI::App* cmd =
      app.add_subcommand("bench", "nccl-tests (all_reduce_perf, ...) on a simulated server or cluster");
  cmd->add_option("layout", opt->layout, "Layout JSON or NCCL topology XML file (or NCCL_TOPO_FILE)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--op", opt->op,
      "Collective: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv");
  cmd->add_option("-b,--minbytes", opt->min,
                  "Smallest size, nccl-tests style: 8, 64K, 128M, 1G (K/M/G = 1024^n; default 8)");
  cmd->add_option("-e,--maxbytes", opt->max, "Largest size (default 128M; at most 2^40)");
  auto* f =
      cmd->add_option("-f,--stepfactor", opt->factor, "Multiply the size by this between rows (default 2)")
          ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  cmd->add_option("-i,--stepbytes", opt->step, "Add this many bytes between rows instead of -f")->excludes(f);
  auto* g = cmd->add_option("-g,--ngpus", opt->per_node, "GPUs per server: the first N (like nccl-tests -g)");
  cmd->add_option("--gpus", opt->gpus, "GPU ids per server, e.g. 0,1,2,3 (CUDA device order)")->excludes(g);
  cmd->add_option("--gpus-per-thread", opt->gpus_per_thread,
                  "GPUs one host thread launches in turn, nccl-tests' own -g (default: all of a server's, as "
                  "./all_reduce_perf -g 8 run alone; 1: one process per GPU, as mpirun -np 8 ... -g 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
  cmd->add_option("--nodes", opt->nodes,
                  "Servers joined by their NICs through a non-blocking switch (default 1)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("-r,--root", opt->root, "Root rank of broadcast and reduce (default 0)");
  cmd->add_option("--p2p-level", opt->p2p_level, "Like NCCL_P2P_LEVEL: highest path class that uses P2P")
      ->check(CLI::IsMember({"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS"}));
  cmd->add_flag("--p2p-disable", opt->p2p_disable, "Like NCCL_P2P_DISABLE=1");
  add_nccl_version_option(cmd, opt->nccl_version);
  cmd->add_option("--model", opt->model, "step (every ring step), steady (one flow per edge), auto (by size)")
      ->check(CLI::IsMember({"auto", "step", "steady"}));
  cmd->add_option("--algo", opt->algo,
                  "all_reduce algorithm, like NCCL_ALGO: auto, ring, tree, nvls, nvlstree")
      ->check(CLI::IsMember({"auto", "ring", "tree", "nvls", "nvlstree"}));
  cmd->add_option("--proto", opt->proto,
                  "ring/chain protocol, like NCCL_PROTO: auto (NCCL's tuning model), LL, LL128, Simple")
      ->check(CLI::IsMember({"auto", "LL", "LL128", "Simple"}));
  cmd->add_option(
         "--nccl-env", opt->nccl_env,
         "NCCL environment variable KEY=VALUE, repeatable: NCCL_P2P_LEVEL, NCCL_P2P_DISABLE, "
         "NCCL_SHM_DISABLE, NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_NVLS_ENABLE, "
         "NCCL_NVLS_CHUNKSIZE, NCCL_NVLS_NCHANNELS, NCCL_BUFFSIZE, NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_READ, "
         "NCCL_TOPO_FILE, NCCL_GRAPH_FILE (--p2p-level, --p2p-disable, --algo, --proto are aliases); others "
         "are named in an error")
      ->allow_extra_args(false);  // one KEY=VALUE per --nccl-env: the layout may follow it
  cmd->add_flag("--nccl-env-from-shell", opt->env_from_shell,
                "Read NCCL_* variables from rigsim's environment");
  add_cost_model_option(cmd, opt->cost_model);
  cmd->add_flag("--dump-platform", opt->dump_platform,
                "Print the flattened SimGrid platform (hosts, links, routes) and exit");
  cmd->add_flag("--json", opt->json,
                "Print JSON: op, gpus, rows (size, time_us, algbw, busbw), avg_busbw, bottleneck");
  cmd->add_option("-j,--jobs", opt->jobs,
                  "Simulations at once: the sizes are dealt to four simulations, each its own process "
                  "(default: one per core; the output is the same, the memory is up to this many "
                  "simulations')")
      ->check(CLI::Range(1u, 256u));
  add_output_option(cmd, opt->output);
  cmd->callback([opt, &action] { action = [opt] { return run(*opt); }; });
}

}  // namespace rigsim::app
