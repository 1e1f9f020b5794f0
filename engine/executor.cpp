// engine::run(): validates the DAG, asks the Platform for transports and routes (once per distinct
// route), runs the SimGrid session in a child process and computes link utilisation from the routes.
#include "engine/executor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "engine/isolated.hpp"
#include "engine/sg_session.hpp"

namespace rigsim::engine {
namespace {

using model::Crossing;
using model::LinkUsage;
using model::Platform;
using model::Route;
using model::RunResult;
using model::Transfer;
using model::TransferTiming;
using model::Transport;
using topology::DeviceId;

/// How many links RunResult::busiest lists at most.
constexpr std::size_t kBusiestLinks = 10;

/// Largest transfer accepted: 2^50 bytes (1 PiB), far above any collective, well inside uint64.
constexpr double kMaxBytes = 1125899906842624.0;

void validate(const topology::Topology& topo, const std::vector<Transfer>& ts) {
  const std::size_t devices = topo.devices().size();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Transfer& t = ts[i];
    const std::string where = "transfer " + std::to_string(i) + (t.tag.empty() ? "" : " (" + t.tag + ")");
    if (t.src >= devices || t.dst >= devices) throw std::invalid_argument(where + ": device id out of range");
    if (!(t.bytes.value >= 0 && t.bytes.value <= kMaxBytes))
      throw std::invalid_argument(where + ": bytes must be in [0, 2^50]");
    if (!(t.latency.value >= 0 && std::isfinite(t.latency.value)))
      throw std::invalid_argument(where + ": latency must be a non-negative number of seconds");
    if (!(t.duration.value >= 0 && std::isfinite(t.duration.value)))
      throw std::invalid_argument(where + ": duration must be a non-negative number of seconds");
    if (t.duration.value > 0 && (t.src != t.dst || t.bytes.value > 0))
      throw std::invalid_argument(where +
                                  ": a compute task (duration) stays on one device and moves no bytes");
    for (std::size_t d : t.after)
      if (d >= i) throw std::invalid_argument(where + ": 'after' must name earlier transfers only");
  }
}

/// The GPUs a phase uses on each server (NCCL's P2P level counts the communicator's GPUs per host).
std::map<int, std::size_t> count_gpus(const topology::Topology& topo, const std::vector<Transfer>& ts) {
  std::set<DeviceId> gpus;
  for (const Transfer& t : ts)
    for (DeviceId d : {t.src, t.dst})
      if (topo.device(d).kind == topology::DeviceKind::Gpu) gpus.insert(d);
  std::map<int, std::size_t> per_node;
  for (DeviceId g : gpus) ++per_node[topo.device(g).node];
  return per_node;
}

/// The routes of every phase, each distinct (source, destination, transport) once, shared by the phases.
detail::SimPlan make_plan(const Platform& platform, const std::vector<const std::vector<Transfer>*>& phases,
                          const topology::P2pPolicy& policy) {
  detail::SimPlan plan;
  plan.platform = &platform;
  const auto& topo = platform.topology();
  std::map<std::tuple<DeviceId, DeviceId, Transport, std::optional<DeviceId>>, std::size_t> seen;
  for (const std::vector<Transfer>* ts : phases) {
    detail::SimPhase& phase = plan.phases.emplace_back();
    phase.transfers = ts;
    std::map<int, std::size_t> gpu_count = count_gpus(topo, *ts);
    for (const Transfer& t : *ts) {
      const Transport tr =
          platform.resolve_transport(t.src, t.dst, t.transport, policy, gpu_count[topo.device(t.src).node]);
      const auto near = tr == Transport::HostCopy ? t.host_memory_near : std::nullopt;
      auto [it, fresh] = seen.try_emplace({t.src, t.dst, tr, near}, plan.routes.size());
      if (fresh) {
        Route r = platform.route(t.src, t.dst, tr, near);
        if (!r.crossings.empty() && !(r.bottleneck.value > 0))
          throw std::invalid_argument("the route " + topo.device(t.src).name + " -> " +
                                      topo.device(t.dst).name + " crosses a link without bandwidth");
        plan.routes.push_back({t.src, t.dst, std::move(r)});
      }
      phase.route_of.push_back(it->second);
    }
  }
  return plan;
}

static_assert(std::is_trivially_copyable_v<TransferTiming>);

/// The phases' timings, one after another (the parent knows each phase's length).
std::string encode(const std::vector<std::vector<TransferTiming>>& phases) {
  std::string out;
  for (const auto& v : phases)
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(TransferTiming));
  return out;
}

std::vector<std::vector<TransferTiming>> decode(const std::string& bytes, const detail::SimPlan& plan) {
  std::size_t total = 0;
  for (const auto& phase : plan.phases) total += phase.transfers->size();
  if (bytes.size() != total * sizeof(TransferTiming))
    throw std::runtime_error("the simulation process returned a malformed answer");
  std::vector<std::vector<TransferTiming>> out;
  std::size_t at = 0;
  for (const auto& phase : plan.phases) {
    std::vector<TransferTiming>& v = out.emplace_back(phase.transfers->size());
    if (!v.empty()) std::memcpy(v.data(), bytes.data() + at, v.size() * sizeof(TransferTiming));
    at += v.size() * sizeof(TransferTiming);
  }
  return out;
}

/// Bytes carried per link and direction (a shared link counts every crossing), over capacity x time.
std::vector<LinkUsage> busiest_links(const Platform& p, const detail::SimPlan& plan,
                                     const detail::SimPhase& phase, Seconds makespan) {
  if (!(makespan.value > 0)) return {};
  std::map<std::pair<std::size_t, bool>, double> carried;
  for (std::size_t i = 0; i < phase.route_of.size(); ++i)
    for (const Crossing& h : plan.routes[phase.route_of[i]].route.crossings)
      carried[{h.link, p.links()[h.link].duplex && h.downstream}] +=
          (*phase.transfers)[i].bytes.value * plan.routes[phase.route_of[i]].route.wire_per_byte;
  std::vector<LinkUsage> out;
  for (const auto& [key, bytes] : carried) {
    if (bytes <= 0) continue;
    const double capacity = p.links()[key.first].bandwidth.value * makespan.value;
    out.push_back({p.crossing_name({key.first, key.second}), bytes / capacity, Bytes{bytes}});
  }
  std::sort(out.begin(), out.end(), [](const LinkUsage& a, const LinkUsage& b) {
    return a.utilization != b.utilization ? a.utilization > b.utilization : a.link < b.link;
  });
  if (out.size() > kBusiestLinks) out.resize(kBusiestLinks);
  return out;
}

}  // namespace

std::function<std::vector<RunResult>()> run_phases_async(
    const Platform& platform, const std::vector<const std::vector<Transfer>*>& phases,
    const topology::P2pPolicy& policy) {
  std::vector<const std::vector<Transfer>*> run;  // the phases that move or compute anything
  for (const std::vector<Transfer>* ts : phases) {
    validate(platform.topology(), *ts);
    if (!ts->empty()) run.push_back(ts);
  }
  if (run.empty()) return [n = phases.size()] { return std::vector<RunResult>(n); };
  auto plan = std::make_shared<detail::SimPlan>(make_plan(platform, run, policy));
  const detail::Isolated child = detail::start_isolated([&plan] { return encode(detail::simulate(*plan)); });
  return [&platform, plan, child, phases] {
    std::vector<std::vector<TransferTiming>> timings = decode(detail::finish_isolated(child), *plan);
    std::vector<RunResult> results(phases.size());
    std::size_t k = 0;  // index among the phases that ran
    for (std::size_t p = 0; p < phases.size(); ++p) {
      if (phases[p]->empty()) continue;
      RunResult& result = results[p];
      result.transfers = std::move(timings[k]);
      for (const auto& t : result.transfers) result.makespan = std::max(result.makespan, t.finish);
      result.busiest = busiest_links(platform, *plan, plan->phases[k], result.makespan);
      ++k;
    }
    return results;
  };
}

std::function<RunResult()> run_async(const Platform& platform, const std::vector<Transfer>& transfers,
                                     const topology::P2pPolicy& policy) {
  auto wait = run_phases_async(platform, {&transfers}, policy);
  return [wait] { return std::move(wait().front()); };
}

RunResult run(const Platform& platform, const std::vector<Transfer>& transfers,
              const topology::P2pPolicy& policy) {
  return run_async(platform, transfers, policy)();
}

}  // namespace rigsim::engine
