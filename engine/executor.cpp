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

std::size_t count_gpus(const topology::Topology& topo, const std::vector<Transfer>& ts) {
  std::set<DeviceId> gpus;
  for (const Transfer& t : ts)
    for (DeviceId d : {t.src, t.dst})
      if (topo.device(d).kind == topology::DeviceKind::Gpu) gpus.insert(d);
  return gpus.size();
}

detail::SimPlan make_plan(const Platform& platform, const std::vector<Transfer>& ts,
                          const topology::P2pPolicy& policy) {
  detail::SimPlan plan;
  plan.platform = &platform;
  plan.transfers = &ts;
  const auto& topo = platform.topology();
  const std::size_t gpu_count = count_gpus(topo, ts);
  std::map<std::tuple<DeviceId, DeviceId, Transport>, std::size_t> seen;
  for (const Transfer& t : ts) {
    const Transport tr = platform.resolve_transport(t.src, t.dst, t.transport, policy, gpu_count);
    auto [it, fresh] = seen.try_emplace({t.src, t.dst, tr}, plan.routes.size());
    if (fresh) {
      Route r = platform.route(t.src, t.dst, tr);
      if (!r.crossings.empty() && !(r.bottleneck.value > 0))
        throw std::invalid_argument("the route " + topo.device(t.src).name + " -> " +
                                    topo.device(t.dst).name + " crosses a link without bandwidth");
      plan.routes.push_back({t.src, t.dst, std::move(r)});
    }
    plan.route_of.push_back(it->second);
  }
  return plan;
}

static_assert(std::is_trivially_copyable_v<TransferTiming>);

std::string encode(const std::vector<TransferTiming>& v) {
  std::string out(v.size() * sizeof(TransferTiming), '\0');
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<TransferTiming> decode(const std::string& bytes, std::size_t n) {
  if (bytes.size() != n * sizeof(TransferTiming))
    throw std::runtime_error("the simulation process returned a malformed answer");
  std::vector<TransferTiming> v(n);
  if (n) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

/// Bytes carried per link and direction (a shared link counts every crossing), over capacity x time.
std::vector<LinkUsage> busiest_links(const Platform& p, const detail::SimPlan& plan, Seconds makespan) {
  if (!(makespan.value > 0)) return {};
  std::map<std::pair<std::size_t, bool>, double> carried;
  for (std::size_t i = 0; i < plan.route_of.size(); ++i)
    for (const Crossing& h : plan.routes[plan.route_of[i]].route.crossings)
      carried[{h.link, p.links()[h.link].duplex && h.downstream}] += (*plan.transfers)[i].bytes.value;
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

std::function<RunResult()> run_async(const Platform& platform, const std::vector<Transfer>& transfers,
                                     const topology::P2pPolicy& policy) {
  validate(platform.topology(), transfers);
  if (transfers.empty()) return [] { return RunResult{}; };
  auto plan = std::make_shared<detail::SimPlan>(make_plan(platform, transfers, policy));
  const detail::Isolated child = detail::start_isolated([&plan] { return encode(detail::simulate(*plan)); });
  return [&platform, plan, child, n = transfers.size()] {
    RunResult result;
    result.transfers = decode(detail::finish_isolated(child), n);
    for (const auto& t : result.transfers) result.makespan = std::max(result.makespan, t.finish);
    result.busiest = busiest_links(platform, *plan, result.makespan);
    return result;
  };
}

RunResult run(const Platform& platform, const std::vector<Transfer>& transfers,
              const topology::P2pPolicy& policy) {
  return run_async(platform, transfers, policy)();
}

}  // namespace rigsim::engine
