// The only part of rigsim_sim that talks to SimGrid's S4U API: engine configuration, the platform (only
// the links and routes a run uses, in small zones) and a pool of worker actors, one per transfer in
// flight, each started on a transfer when its dependencies are done. The phases of a run (the sizes of
// a bench sweep) go one after another on the same platform and actors.
#include "engine/sg_session.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <unordered_map>

#include "common/input.hpp"
#include "engine/isolated.hpp"

namespace rigsim::engine::detail {
namespace {

namespace sg4 = simgrid::s4u;
using model::Crossing;
using model::PlatformLink;
using Endpoints = std::pair<sg4::Host*, sg4::Host*>;

/// KiB of stack per actor. Every actor's deepest call is a simcall (put, get, sleep, a semaphore) and
/// the unwinding when it is killed at the end: the whole test suite runs with 8 KiB stacks behind a
/// guard page and fails at 4 KiB (tests/cli/stack_margin.sh keeps the 8 KiB run), so 16 KiB leaves
/// twice that. Small stacks come from the heap, not one memory mapping each, so the limit on actors is
/// memory (Runner::max_actors), not vm.max_map_count: 130,000 flows in flight take 2.6 GB, not 33.
constexpr std::size_t kStackKiB = 16;

/// RIGSIM_STACK_KIB (tests only) sets another stack size and puts a guard page under each stack, so
/// an overflow is a segmentation fault instead of silent damage.
std::size_t stack_kib() {
  if (const char* env = std::getenv("RIGSIM_STACK_KIB")) {
    const long v = std::strtol(env, nullptr, 10);
    if (v > 0) return static_cast<std::size_t>(v);
  }
  return kStackKiB;
}

/// SimGrid's default network model (LV08) is tuned for TCP on wide-area networks: bandwidth factor
/// 0.97, latency factor 13.01, a window bound of TCP-gamma / (2 x latency) per flow and 5 % reverse
/// cross-traffic. None of it applies to DMA over PCIe or NVLink, and the gamma bound would cap a flow on
/// a 10 us route at 4 MiB / 20 us = 210 GB/s (below NVSwitch rates). CM02 is the plain max-min model
/// (a flow alone takes latency + bytes / bandwidth, with factors 1); cross-traffic is off because
/// split-duplex links already give each direction its own capacity; TCP-gamma 0 disables the bound.
/// Efficiencies live in the CostModel instead. See docs/DECISIONS.md.
sg4::Engine* make_engine() {
  const bool guarded = std::getenv("RIGSIM_STACK_KIB") != nullptr;
  static std::vector<std::string> args;
  args = {"rigsim-sim", "--log=root.thres:critical", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
          "--cfg=network/TCP-gamma:0",
          // No guard page: it splits each stack into two memory mappings, and the kernel's per-process
          // limit (vm.max_map_count, 65530 by default) then stops a run at ~32,000 flows in flight.
          guarded ? "--cfg=contexts/guard-size:1" : "--cfg=contexts/guard-size:0",
#if defined(__SANITIZE_ADDRESS__)
          // AddressSanitizer cannot follow SimGrid's own stack switching (raw and ucontext factories):
          // under ASan every actor is a system thread, whose frames ASan's redzones make several times
          // larger.
          "--cfg=contexts/factory:thread", "--cfg=contexts/stack-size:256"
#else
          "--cfg=contexts/stack-size:" + std::to_string(stack_kib())
#endif
  };
  static std::vector<char*> argv;
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(argv.size()) - 1;
  return new sg4::Engine(&argc, argv.data());  // lives until the process exits (_exit, never freed)
}

/// Builds the SimGrid platform of a run: the links it uses, and per route a (source host, destination
/// host) pair joined by that route's links. A Full zone keeps a table of (hosts)^2 routes, 12 GB for
/// ~40,000 hosts in one zone, so the routes are spread over Full zones (children of one root zone) of
/// kSources source hosts and kSinks destination hosts, one route per pair: kSources x kSinks routes on
/// kSources + kSinks hosts each (a flow's receiver only decides its route, and the receiver here is
/// the destination host's "sink" actor). Pairs rather than a host per route keep the hosts and zones
/// few: SimGrid 3.32 checks each new host's name against every zone and scans every host when it seals
/// a zone, which with one host per route took a quarter of a 4,096-GPU run. A route never leaves its
/// zone; links are shared by all.
class ZoneBuilder {
 public:
  explicit ZoneBuilder(const Platform& p)
      : p_(p), root_(sg4::create_full_zone("rigsim")), links_(p.links().size(), nullptr) {}

  /// Per route: its (source host, destination host); {nullptr, nullptr} for a device to itself.
  std::vector<Endpoints> build(const std::vector<RoutePlan>& routes, sg4::Host** actor_host);

 private:
  // A zone's route table has (kSources + kSinks)^2 entries: 260^2 x 8 B = 541 KB for 1,024 routes.
  static constexpr std::size_t kSources = 256;
  static constexpr std::size_t kSinks = 4;
  static constexpr std::size_t kRoutesPerZone = kSources * kSinks;
  sg4::Link* link(std::size_t i);
  std::vector<sg4::LinkInRoute> links_of(const Route& r);

  const Platform& p_;
  sg4::NetZone* root_;
  std::vector<sg4::Link*> links_;
};

sg4::Link* ZoneBuilder::link(std::size_t i) {
  if (links_[i] != nullptr) return links_[i];
  const PlatformLink& l = p_.links()[i];
  sg4::Link* made = l.duplex ? root_->create_split_duplex_link(l.name, l.bandwidth.value)
                             : root_->create_link(l.name, l.bandwidth.value);  // shared: SHARED policy
  made->seal();  // no latency: a worker waits each route's latency before starting its flow
  return links_[i] = made;
}

std::vector<sg4::LinkInRoute> ZoneBuilder::links_of(const Route& r) {
  using Dir = sg4::LinkInRoute::Direction;
  std::vector<sg4::LinkInRoute> out;
  for (const Crossing& h : r.crossings) {
    // A link listed twice (host memory of a staged copy; the "both directions" link of a PCIe link the
    // staged route goes up and down) gets twice the flow's rate charged to it.
    if (p_.links()[h.link].duplex)
      out.emplace_back(link(h.link), h.downstream ? Dir::DOWN : Dir::UP);
    else
      out.emplace_back(link(h.link));
  }
  return out;
}

std::vector<Endpoints> ZoneBuilder::build(const std::vector<RoutePlan>& routes, sg4::Host** actor_host) {
  *actor_host = root_->create_host("rigsim/actors", 1.0);  // hosts only send: their speed is irrelevant
  std::vector<Endpoints> ends(routes.size(), {nullptr, nullptr});
  std::vector<sg4::NetZone*> zones;
  sg4::NetZone* zone = nullptr;
  std::string z;
  std::vector<sg4::Host*> sources, sinks;
  std::size_t in_zone = kRoutesPerZone;
  for (std::size_t k = 0; k < routes.size(); ++k) {
    if (routes[k].route.crossings.empty()) continue;
    if (in_zone == kRoutesPerZone) {
      z = "rigsim/z" + std::to_string(zones.size());
      zone = sg4::create_full_zone(z);
      zone->set_parent(root_);
      zones.push_back(zone);
      sources.clear();
      sinks.clear();
      in_zone = 0;
    }
    const std::size_t from = in_zone % kSources, to = in_zone / kSources;
    ++in_zone;
    if (from == sources.size()) sources.push_back(zone->create_host(z + "/src" + std::to_string(from), 1.0));
    if (to == sinks.size()) sinks.push_back(zone->create_host(z + "/sink" + std::to_string(to), 1.0));
    ends[k] = {sources[from], sinks[to]};
    zone->add_route(sources[from]->get_netpoint(), sinks[to]->get_netpoint(), nullptr, nullptr,
                    links_of(routes[k].route), false);
  }
  for (sg4::NetZone* z : zones) z->seal();
  root_->seal();
  return ends;
}

/// Runs each transfer on a worker actor once its dependencies are done: the worker waits the route's
/// latency, sends the bytes (blocking on its own Comm), releases the dependents and goes back to the
/// idle pool. Every completion costs O(1): a single actor waiting on all flows with Comm::wait_any
/// re-registers with every flow in flight at each wake-up, which was quadratic (5 s for 4096
/// simultaneous flows); a fresh actor per transfer costs a stack allocation each (2x slower than a pool).
///
/// The bytes go through a mailbox, not Comm::sendto: SimGrid 3.32 makes every host-to-host Comm a
/// detached one and keeps it in maestro's std::list of activities, which it scans end to end
/// (list::remove) each time one finishes - O(flows in flight) per completion, 64 % of a 8,192-GPU run.
/// A mailbox Comm stays on its sender's own short list. Each worker has its own mailbox (a mailbox's
/// queue is a circular buffer whose erase shifts every Comm behind it) whose permanent receiver is the
/// "sink" actor of the route's zone, so a put starts at once without waiting for a matching get, from
/// the sender's host to the sink's: the worker moves to the route's source host, points its mailbox at
/// the zone's sink, puts, waits, and takes its finished Comm off its mailbox.
class Runner {
 public:
  Runner(const SimPlan& plan, std::vector<Endpoints> ends, sg4::Host* where);
  void start();  // from maestro, before Engine::run()
  /// Every phase ran to its end.
  bool complete() const { return results_.size() == plan_.phases.size(); }
  /// Set when the run needed more transfers in flight than the process can hold actors for.
  std::size_t refused_at() const { return refused_at_; }
  /// The first task that never started, for the error message of an incomplete run.
  std::string stuck() const;
  std::vector<std::vector<TransferTiming>>& results() { return results_; }

 private:
  struct Worker {
    sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
    std::size_t job = 0;
    sg4::Mailbox* flows = nullptr;  // this worker's own: its finished Comm is the only one in it
    sg4::Host* sink = nullptr;      // where its mailbox's permanent receiver is
  };
  /// Sets up phase `p`'s dependency counts; its transfers are then released from the clock's now.
  void begin_phase(std::size_t p);
  bool phase_complete() const { return done_ == timings_.size(); }
  void ready(std::size_t i, double deps_done);
  void work(Worker* w);
  void transfer(Worker* w);
  void finish(std::size_t i, double now);

  const SimPlan& plan_;
  std::vector<Endpoints> ends_;
  sg4::Host* where_;  // where the actors start (each worker moves to its flow's source before a put)
  std::vector<std::vector<TransferTiming>> results_;  // per finished phase, from its own start
  // The phase running now:
  const SimPhase* phase_ = nullptr;
  std::vector<TransferTiming> timings_;
  std::vector<std::size_t> missing_;  // dependencies not finished yet
  std::vector<double> deps_done_;     // latest finish among finished dependencies
  std::vector<std::vector<std::size_t>> dependents_;
  std::size_t done_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;
  sg4::SemaphorePtr all_done_ = sg4::Semaphore::create(0);
  std::unordered_map<sg4::Host*, sg4::ActorPtr> sinks_;  // per zone's destination host: its receiver
  int payload_ = 0;  // a put needs a non-null payload; nothing reads it
  std::size_t max_workers_ = max_actors();
  std::size_t refused_at_ = 0;

  /// How many worker actors this process can hold. Each costs its stack and SimGrid's context (about
  /// kStackKiB + 4 KiB): rigsim stops with a message (simulate's error) before they take more than half of
  /// the memory the system has available (split between runs going side by side), instead of being killed by the kernel. Under ASan each actor is
  /// a thread, whose stack is a memory mapping: there vm.max_map_count is the limit (SimGrid aborts
  /// past it: "exceeding the amount of mappings allowed per process").
  static std::size_t max_actors() {
    // RIGSIM_MAX_ACTORS lowers the limit (tests, and machines that share their memory).
    if (const char* env = std::getenv("RIGSIM_MAX_ACTORS")) {
      const long v = std::strtol(env, nullptr, 10);
      if (v > 0) return static_cast<std::size_t>(v);
    }
#if defined(__SANITIZE_ADDRESS__)
    std::size_t limit = 65530;
    if (FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
      unsigned long v = 0;
      if (std::fscanf(f, "%lu", &v) == 1) limit = v;
      std::fclose(f);
    }
    return limit > 4096 ? (limit - 4096) / 2 : limit / 4;
#else
    unsigned long available_kib = 4ul << 20;  // 4 GiB when /proc/meminfo cannot be read
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::sscanf(line, "MemAvailable: %lu kB", &available_kib) == 1) break;
      std::fclose(f);
    }
    // Runs side by side (bench -j) share it.
    const std::size_t shares = std::max<std::size_t>(1, running_children());
    return std::max<std::size_t>(1024, available_kib / 2 / shares / (stack_kib() + 4));
#endif
  }
};

Runner::Runner(const SimPlan& plan, std::vector<Endpoints> ends, sg4::Host* where)
    : plan_(plan), ends_(std::move(ends)), where_(where) {}

void Runner::begin_phase(std::size_t p) {
  phase_ = &plan_.phases[p];
  const auto& ts = *phase_->transfers;
  done_ = 0;
  timings_.assign(ts.size(), {});
  missing_.assign(ts.size(), 0);
  deps_done_.assign(ts.size(), 0.0);
  dependents_.assign(ts.size(), {});
  std::unordered_map<long, std::size_t> last_of_stream;  // a stream runs its tasks one at a time, in order
  for (std::size_t i = 0; i < ts.size(); ++i) {
    missing_[i] = ts[i].after.size();
    for (std::size_t d : ts[i].after) dependents_[d].push_back(i);
    if (ts[i].stream < 0) continue;
    auto [it, fresh] = last_of_stream.try_emplace(ts[i].stream, i);
    if (!fresh) {
      ++missing_[i];
      dependents_[it->second].push_back(i);
      it->second = i;
    }
  }
}

std::string Runner::stuck() const {
  for (std::size_t i = 0; i < missing_.size(); ++i)
    if (missing_[i] > 0)
      return "task " + std::to_string(i) + " (" + (*phase_->transfers)[i].tag + ") still waits for " +
             std::to_string(missing_[i]) + " task(s)";
  return "every task was released but one never finished";
}

void Runner::start() {
  // A sink never runs: it only gives each flow its destination host.
  for (const Endpoints& e : ends_) {
    if (e.second == nullptr || sinks_.count(e.second) > 0) continue;
    sg4::ActorPtr sink = sg4::Actor::create("sink", e.second, [] { sg4::Semaphore::create(0)->acquire(); });
    sink->daemonize();
    sinks_.emplace(e.second, sink);
  }
  // The one non-daemon actor: the simulation ends when it returns, which kills the idle workers. It
  // runs the phases in turn, each from the moment the one before finished (nothing is in flight then).
  sg4::Actor::create("main", where_, [this] {
    for (std::size_t p = 0; p < plan_.phases.size(); ++p) {
      begin_phase(p);
      const double begin = sg4::Engine::get_clock();
      // The roots are collected first: releasing a worker may let it run, and a zero-time task
      // finishing at once would release its dependents, which this loop must then not release again.
      std::vector<std::size_t> roots;
      for (std::size_t i = 0; i < timings_.size(); ++i)
        if (missing_[i] == 0) roots.push_back(i);
      for (std::size_t i : roots) ready(i, begin);
      // The task that ends the phase releases all_done_ exactly once (finish), possibly while the loop
      // above was still handing out roots: take that release whether or not the phase is over by now,
      // or it would stand for the next phase's end.
      if (!timings_.empty()) all_done_->acquire();
      if (!phase_complete()) return;  // refused (out of actors): simulate() reports it
      for (TransferTiming& t : timings_) {
        t.start.value -= begin;
        t.finish.value -= begin;
      }
      results_.push_back(std::move(timings_));
    }
  });
}

void Runner::ready(std::size_t i, double deps_done) {
  timings_[i].start = {deps_done + (*phase_->transfers)[i].latency.value};
  timings_[i].finish = timings_[i].start;
  if (!idle_.empty()) {
    Worker* w = idle_.back();
    idle_.pop_back();
    w->job = i;
    w->wake->release();
    return;
  }
  if (workers_.size() >= max_workers_) {
    // Out of actors: end the run now (the error names the limit) instead of letting SimGrid abort.
    if (refused_at_ == 0) refused_at_ = workers_.size() + 1;
    all_done_->release();
    return;
  }
  workers_.push_back(std::make_unique<Worker>());
  Worker* w = workers_.back().get();
  w->job = i;
  w->flows = sg4::Mailbox::by_name("rigsim/flows/" + std::to_string(workers_.size()));
  sg4::Actor::create("worker", where_, [this, w] { work(w); })->daemonize();
}

void Runner::work(Worker* w) {
  for (;;) {
    transfer(w);
    idle_.push_back(w);
    w->wake->acquire();
  }
}

void Runner::transfer(Worker* w) {
  const std::size_t i = w->job;
  const std::size_t k = phase_->route_of[i];
  const Route& r = plan_.routes[k].route;
  // The whole route latency (transport setup + links) is waited here and SimGrid's links have none:
  // in CM02 a flow uses no bandwidth during its latency, so this is the same model, and it avoids
  // SimGrid 3.32's lazy solver mis-sharing flows that leave their latency phase together (it gave one of
  // two equal H2D copies 1.5x its link's bandwidth). A zero-byte transfer is only this delay (3.32 also
  // never completes a zero-byte Comm waited with wait_any).
  // A transfer on an established connection (Transfer::connected) skips the transport's setup.
  // A streamed piece (Transfer::streamed) follows the one before it without waiting the links again.
  const double setup = (*phase_->transfers)[i].connected ? r.setup.value : 0.0;
  const double begin = (*phase_->transfers)[i].streamed ? timings_[i].start.value
                                                        : timings_[i].start.value + r.latency.value - setup;
  sg4::this_actor::sleep_until(begin);
  const Transfer& t = (*phase_->transfers)[i];
  if (t.bytes.value > 0 && ends_[k].first != nullptr) {
    sg4::this_actor::set_host(ends_[k].first);
    if (w->sink != ends_[k].second) {
      w->flows->set_receiver(sinks_.at(ends_[k].second));
      w->sink = ends_[k].second;
    }
    const auto size = static_cast<std::uint64_t>(std::llround(t.bytes.value * r.wire_per_byte));
    // A per-transfer limit (Route::flow_cap, or the transfer's own Transfer::rate_cap), in the same link
    // bytes as `size`.
    double cap = r.flow_cap.value;
    if (t.rate_cap.value > 0) {
      const double own = t.rate_cap.value * r.wire_per_byte;
      cap = cap > 0 ? std::min(cap, own) : own;
    }
    if (cap > 0)
      w->flows->put_init(&payload_, size)->set_rate(cap)->wait();
    else
      w->flows->put(&payload_, size);
    // Take the finished Comm off the mailbox (it is the only one there; a get on an empty mailbox would
    // post a receive for a later put to match instead).
    w->flows->get<int>();
  }
  if (t.duration.value > 0) sg4::this_actor::sleep_until(begin + t.duration.value);  // a compute task
  finish(i, std::max(begin + t.duration.value, sg4::Engine::get_clock()));
}

void Runner::finish(std::size_t i, double now) {
  timings_[i].finish = {now};
  const bool last = ++done_ == timings_.size();
  for (std::size_t d : dependents_[i]) {
    deps_done_[d] = std::max(deps_done_[d], now);
    if (--missing_[d] == 0) ready(d, deps_done_[d]);
  }
  // Only now, and only by the task that finished the phase: releasing the main actor is a simcall, so it
  // may begin the next phase (new dependents_, missing_) before this actor runs again, and a loop over
  // dependents_[i] after it released phase p+1's tasks (a flow of the next size started at once).
  if (last) all_done_->release();
}

}  // namespace

std::vector<std::vector<TransferTiming>> simulate(const SimPlan& plan) {
  sg4::Engine* engine = make_engine();
  ZoneBuilder zone(*plan.platform);
  sg4::Host* where = nullptr;
  std::vector<Endpoints> ends = zone.build(plan.routes, &where);
  Runner runner(plan, std::move(ends), where);
  runner.start();
  engine->run();
  if (runner.refused_at() > 0)
    throw InputError("", "",
                     "this simulation needs more than " + std::to_string(runner.refused_at() - 1) +
                         " transfers in flight at once; each runs on a SimGrid actor (a " +
                         std::to_string(stack_kib()) +
                         " KiB stack), and more would take over half of this system's available memory. "
                         "Simulate fewer GPUs or nodes, or free memory");
  if (!runner.complete())
    throw std::logic_error("the simulation ended before every transfer finished: " + runner.stuck());
  return std::move(runner.results());
}

}  // namespace rigsim::engine::detail
