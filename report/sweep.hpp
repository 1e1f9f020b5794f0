// `rigsim sweep` and `rigsim sweep-merge`: every parallelism plan of one workload on one layout
// (workloads::enumerate_plans), ranked by tokens/s, with why the best wins.
//
// Rows are values. The runner fills them; JSON carries them between machines (a sweep split into
// slices with --shard K/N, joined by sweep-merge); the text is rendered from the rows alone, so a merged
// sweep prints byte for byte what the whole sweep prints.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/training.hpp"
#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::report {

/// One slice of a sweep: the plans whose index i (in enumerate_plans order) has i % n == k - 1. Round
/// robin, so neighbouring plans, which cost about the same to simulate, land in different slices.
struct Shard {
  int k = 1;  // 1 <= k <= n
  int n = 1;
  bool holds(int index) const { return index % n == k - 1; }
  std::string str() const { return std::to_string(k) + "/" + std::to_string(n); }
};

/// Parses "K/N" (1 <= K <= N, decimal); anything else is an InputError at "--shard" saying so.
Shard parse_shard(const std::string& text);

/// A simulated step: means over ranks of the breakdown, in seconds.
struct SweepTimes {
  double step_time_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;  // 0..1
  double compute_s = 0, exposed_comm_s = 0, bubble_s = 0, optimizer_s = 0, offload_s = 0, idle_s = 0;
  std::map<std::string, double> exposed_comm_by_kind;  // purpose -> seconds ("grad_sync", ...)
  std::string busiest_link;                            // "" when no link carries traffic
  double busiest_utilization = 0;                      // 0..1 over the step
};

/// Memory of the GPU that needs the most, in GiB (binary, as nvidia-smi shows them).
struct SweepMemory {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0, buffers = 0, context = 0;
  double total = 0;      // what that GPU needs
  double capacity = 0;   // what it has
  double host = 0;       // host memory per rank for offloaded states
  double short_gib = 0;  // the largest shortfall over all GPUs; 0 when every GPU fits
};

struct SweepRow {
  int index = 0;  // position in enumerate_plans order
  workloads::ParallelPlan plan;
  bool fits = false;
  SweepMemory memory;
  std::optional<SweepTimes> times;  // only plans that fit are simulated
};

/// What was swept: slices of one sweep have equal headers but for shard.k.
struct SweepHeader {
  std::string scenario;  // the scenario's name
  std::string model;
  std::string layout;    // the layout's name
  std::string workload;  // batch, sequence, dtype, optimizer, LoRA: what the plans share
  int gpus = 0;
  int total_plans = 0;  // plans of the whole sweep, every slice together
  Shard shard;
};

struct Sweep {
  SweepHeader header;
  std::vector<SweepRow> rows;  // ranked (sweep_rank)
};

/// Simulates the plans of `shard` for `base` on every GPU of `platform` (or the scenario's GPU list):
/// each plan's memory is checked first and only plans that fit are simulated. Rows come back ranked.
Sweep run_sweep(const model::Platform& platform, const workloads::Scenario& base,
                const workloads::ModelConfig& m, const Shard& shard, const model::Executor& execute);

/// Sorts rows: plans that fit by tokens/s (highest first), then plans that do not fit by how much they
/// are short (least first); ties (equal as the table shows them: whole tokens/s, tenths of a GiB) by the
/// memory of the fullest GPU (least first), then by plan index, so the order is deterministic.
void sweep_rank(std::vector<SweepRow>& rows);

/// The top `top` rows as a table, the counts of plans tried, fitting and not fitting, and why the best
/// plan wins against the runner-up and the best plan of another family.
std::string sweep_text(const Sweep& sweep, int top);
/// The sentences of the "why the best wins" paragraph.
std::vector<std::string> sweep_why(const Sweep& sweep);

/// Every row (not only the top): plan fields, fits, memory_gib, and for simulated plans step_time_s,
/// tokens_per_s, mfu, breakdown (means over ranks), busiest_link; plus the header. Deterministic.
nlohmann::ordered_json sweep_json(const Sweep& sweep);
/// Reads what sweep_json wrote, strictly (InputError with `file` and the JSON pointer).
Sweep sweep_from_json(const nlohmann::json& doc, const std::string& file);

/// Joins the slices of one sweep (files[i] names slices[i] in errors): they must agree on scenario,
/// model, layout, workload, GPUs, plan count and N, and hold the slices 1..N exactly once each.
Sweep sweep_merge(const std::vector<Sweep>& slices, const std::vector<std::string>& files);

}  // namespace rigsim::report
