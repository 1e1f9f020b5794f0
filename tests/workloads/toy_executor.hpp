// A dependency-only executor for tests: every stream runs its ops in order, `after` edges are
// honoured, a collective starts when all its members reach it, a message when both its send and its
// receive are reached. No links, no contention: time is what `duration` says. It finds
// deadlocks (ops that can never start) and computes step times for closed forms such as the
// pipeline bubble.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "workloads/program.hpp"

namespace rigsim::workloads::testing {

struct ToyResult {
  bool deadlock = false;
  double step_time = 0;
  std::vector<double> rank_end;
};

using Duration = std::function<double(const Program&, const Op&)>;

class ToyExecutor {
 public:
  ToyExecutor(const Program& p, Duration duration) : p_(p), duration_(std::move(duration)) {
    for (std::size_t r = 0; r < p.ranks.size(); ++r) {
      finish_.emplace_back(p.ranks[r].ops.size(), std::numeric_limits<double>::quiet_NaN());
      queues_.emplace_back();
      for (std::size_t i = 0; i < p.ranks[r].ops.size(); ++i)
        queues_[r][p.ranks[r].ops[i].stream].push_back(i);
      total_ += p.ranks[r].ops.size();
    }
    pos_.resize(p.ranks.size());
  }

  ToyResult run() {
    while (progress_ && done_ < total_) {
      progress_ = false;
      for (std::size_t r = 0; r < p_.ranks.size(); ++r)
        for (auto& [stream, queue] : queues_[r])
          if (pos_[r][stream] < queue.size()) try_start(r, queue[pos_[r][stream]]);
    }
    return result();
  }

 private:
  // The earliest start of op i of rank r, or false while a dependency has not finished.
  bool ready(std::size_t r, const Op& op, double& t) {
    t = free_[{r, op.stream}];
    for (std::size_t a : op.after) {
      if (std::isnan(finish_[r][a])) return false;
      t = std::max(t, finish_[r][a]);
    }
    return true;
  }

  void complete(std::size_t r, std::size_t i, double end) {
    finish_[r][i] = end;
    free_[{r, p_.ranks[r].ops[i].stream}] = end;
    ++pos_[r][p_.ranks[r].ops[i].stream];
    ++done_;
    progress_ = true;
  }

  void try_start(std::size_t r, std::size_t i) {
    const Op& op = p_.ranks[r].ops[i];
    double t = 0;
    if (!ready(r, op, t)) return;
    if (op.kind == OpKind::Collective) return arrive(r, i, t);
    if (op.kind == OpKind::Send || op.kind == OpKind::Recv) return meet(r, i, t);
    complete(r, i, t + duration_(p_, op));
  }

  // A message moves when both its send and its receive are reached (rendezvous, as the engine's
  // executor); both finish together.
  void meet(std::size_t r, std::size_t i, double t) {
    const Op& op = p_.ranks[r].ops[i];
    auto& ends = met_[op.message];
    if (!ends.count(r * 2 + (op.kind == OpKind::Send))) ends[r * 2 + (op.kind == OpKind::Send)] = {i, t};
    if (ends.size() < 2) return;
    double start = 0;
    for (const auto& [key, at] : ends) start = std::max(start, at.second);
    const double end = start + duration_(p_, op);
    for (const auto& [key, at] : ends) complete(key / 2, at.first, end);
  }

  // A collective starts when its last member arrives; all members finish together.
  void arrive(std::size_t r, std::size_t i, double t) {
    const Op& op = p_.ranks[r].ops[i];
    auto& members = arrived_[op.collective];
    if (!members.count(r)) members[r] = {i, t};
    if (members.size() < p_.collectives[op.collective].ranks.size()) return;
    double start = 0;
    for (const auto& [m, at] : members) start = std::max(start, at.second);
    const double end = start + duration_(p_, op);
    for (const auto& [m, at] : members) complete(m, at.first, end);
  }

  ToyResult result() const {
    ToyResult out;
    out.deadlock = done_ < total_;
    for (const auto& rank : finish_) {
      double end = 0;
      for (double f : rank)
        if (!std::isnan(f)) end = std::max(end, f);
      out.rank_end.push_back(end);
      out.step_time = std::max(out.step_time, end);
    }
    return out;
  }

  const Program& p_;
  Duration duration_;
  std::vector<std::vector<double>> finish_;
  std::vector<std::map<Stream, std::vector<std::size_t>>> queues_;
  std::vector<std::map<Stream, std::size_t>> pos_;
  std::map<std::pair<std::size_t, Stream>, double> free_;
  std::map<std::size_t, std::map<std::size_t, std::pair<std::size_t, double>>> arrived_;
  std::map<std::size_t, std::map<std::size_t, std::pair<std::size_t, double>>>
      met_;  // message -> end -> (op, t)
  std::size_t done_ = 0, total_ = 0;
  bool progress_ = true;
};

inline ToyResult toy_execute(const Program& p, const Duration& duration) {
  return ToyExecutor(p, duration).run();
}

}  // namespace rigsim::workloads::testing
