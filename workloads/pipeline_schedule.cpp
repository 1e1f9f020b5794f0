// Schedules: GPipe (Huang et al. 2019, arXiv:1811.06965: all forwards, then all backwards), 1F1B
// (PipeDream-Flush; Narayanan et al. 2021, arXiv:2104.04473 §2.2.1) and the interleaved 1F1B with v
// model chunks per stage (§2.2.2), in Megatron-LM's order (schedules.py: a warm-up of
// (pp - stage - 1)·2 + (v - 1)·pp forwards; the k-th forward runs chunk (k / pp) mod v).
#include "workloads/pipeline_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace rigsim::workloads::detail {
namespace {

std::vector<Item> gpipe(int m) {
  std::vector<Item> out;
  for (int i = 0; i < m; ++i) out.push_back({true, i, 0});
  for (int i = m - 1; i >= 0; --i) out.push_back({false, i, 0});
  return out;
}

std::vector<Item> one_f_one_b(int m, int pp, int stage) {
  const int warmup = std::min(pp - stage - 1, m);
  std::vector<Item> out;
  for (int i = 0; i < warmup; ++i) out.push_back({true, i, 0});
  for (int i = 0; i < m - warmup; ++i) {
    out.push_back({true, warmup + i, 0});
    out.push_back({false, i, 0});
  }
  for (int i = m - warmup; i < m; ++i) out.push_back({false, i, 0});
  return out;
}

// The k-th forward (backward) of a stage in the interleaved schedule: its chunk and micro-batch.
Item interleaved_item(int k, int pp, int v, bool forward) {
  const int chunk = (k / pp) % v;
  return {forward, (k / (pp * v)) * pp + k % pp, forward ? chunk : v - 1 - chunk};
}

std::vector<Item> interleaved(int m, int pp, int v, int stage) {
  const int total = m * v;
  const int warmup = std::min((pp - stage - 1) * 2 + (v - 1) * pp, total);
  std::vector<Item> out;
  for (int k = 0; k < warmup; ++k) out.push_back(interleaved_item(k, pp, v, true));
  for (int k = 0; k < total - warmup; ++k) {
    out.push_back(interleaved_item(k + warmup, pp, v, true));
    out.push_back(interleaved_item(k, pp, v, false));
  }
  for (int k = total - warmup; k < total; ++k) out.push_back(interleaved_item(k, pp, v, false));
  return out;
}

// One step of the eager run: the next pass of `stage`, if its input has arrived.
bool advance(const ParallelPlan& p, const std::vector<Item>& items, std::size_t& next, double& free,
             int stage, std::map<Crossing, double>& times) {
  if (next >= items.size()) return false;
  const Item& item = items[next];
  const int vs = item.chunk * p.pp + stage, last = p.pp * p.virtual_stages - 1;
  double start = free;
  if (const auto in = input_of(item, vs, last)) {
    const auto it = times.find(*in);
    if (it == times.end()) return false;
    start = std::max(start, it->second);
  }
  free = start + (item.forward ? 1.0 : 2.0);
  if (const auto out = output_of(item, vs, last)) times[*out] = free;
  ++next;
  return true;
}

}  // namespace

std::vector<Item> schedule(const ParallelPlan& p, int m, int stage) {
  switch (p.pp_schedule) {
    case PipelineSchedule::GPipe:
      return gpipe(m);
    case PipelineSchedule::OneFOneB:
      return one_f_one_b(m, p.pp, stage);
    case PipelineSchedule::Interleaved:
      break;
  }
  return interleaved(m, p.pp, p.virtual_stages, stage);
}

std::optional<Crossing> input_of(const Item& item, int vs, int last_vs) {
  if (item.forward) return vs > 0 ? std::optional(Crossing{false, item.mb, vs - 1, vs}) : std::nullopt;
  return vs < last_vs ? std::optional(Crossing{true, item.mb, vs + 1, vs}) : std::nullopt;
}

std::optional<Crossing> output_of(const Item& item, int vs, int last_vs) {
  if (item.forward) return vs < last_vs ? std::optional(Crossing{false, item.mb, vs, vs + 1}) : std::nullopt;
  return vs > 0 ? std::optional(Crossing{true, item.mb, vs, vs - 1}) : std::nullopt;
}

std::map<Crossing, double> crossing_times(const ParallelPlan& p, int m) {
  std::vector<std::vector<Item>> items;
  for (int s = 0; s < p.pp; ++s) items.push_back(schedule(p, m, s));
  std::vector<std::size_t> next(p.pp, 0);
  std::vector<double> free(p.pp, 0.0);
  std::map<Crossing, double> times;
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p.pp; ++s)
      while (advance(p, items[s], next[s], free[s], s, times)) progress = true;
  }
  for (int s = 0; s < p.pp; ++s)
    if (next[s] < items[s].size()) throw std::logic_error("pipeline schedule cannot complete");
  return times;
}

}  // namespace rigsim::workloads::detail
