// Reports of `rigsim run` and `rigsim compare`: one training step (text that says why, JSON, a
// Chrome/Perfetto trace) and a ranking of layouts.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/training.hpp"
#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::report {

/// What a run was: for headings and JSON.
struct RunContext {
  const model::Platform* platform = nullptr;
  const workloads::Scenario* scenario = nullptr;
  const workloads::ModelConfig* model = nullptr;
  std::vector<std::string> notes;  // adaptations made to the scenario (e.g. dp scaled to the layout)
};

/// Step time, throughput, MFU, memory per GPU with fit, per-rank breakdown, busiest links, and a few
/// sentences that say why.
std::string training_text(const RunContext& ctx, const model::TrainingResult& r);
/// Keys: step_time_s, tokens_per_s, samples_per_s, mfu, fits, memory_gib (per GPU), breakdown (per
/// rank: compute_s, exposed_comm_s, exposed_comm_by_kind, bubble_s, optimizer_s, offload_s, idle_s),
/// bottlenecks, why, plus layout, scenario, model, plan.
nlohmann::json training_json(const RunContext& ctx, const model::TrainingResult& r);
/// Chrome / Perfetto trace: a process per rank with a thread per stream, a "network" process for the
/// collectives' transfers, and a counter per busiest link (its mean utilisation over the step).
nlohmann::json training_trace(const RunContext& ctx, const model::TrainingResult& r);
/// The sentences of the "why" section.
std::vector<std::string> why(const RunContext& ctx, const model::TrainingResult& r);

/// One row of a comparison: a layout's result, or why it could not run the scenario.
struct CompareRow {
  std::string layout;                 // layout name
  std::string file;                   // layout file
  int gpus = 0;
  std::string plan;                   // the plan it ran (workloads::describe)
  std::optional<model::TrainingResult> result;
  std::string error;                  // when result is empty
  double price_usd = 0;               // 0: unknown
  std::string price_source;
  std::vector<std::string> notes;
  std::string why;                    // the first sentence of why()
  std::string bottleneck;             // busiest link
};

/// Rows ranked: fitting layouts by step time... (see compare_rank), then the ones that do not fit, then
/// errors. Text table with a short explanation of the winner.
std::string compare_text(const std::string& title, const std::vector<CompareRow>& rows);
nlohmann::json compare_json(const std::string& title, const std::vector<CompareRow>& rows);
/// Sorts rows: runs that fit by tokens/s (highest first), then runs that do not fit, then errors.
void compare_rank(std::vector<CompareRow>& rows);

}  // namespace rigsim::report
