// Reports of `rigsim bench` (nccl-tests on a simulated server): text and JSON of a BenchResult.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/bench.hpp"

namespace rigsim::report {

using model::BenchOptions;
using model::BenchResult;
using model::Platform;

/// The nccl-tests output (preamble, table, footer) followed by a "why" section: algorithm, rings,
/// connections with their transport, and the busiest links with their utilisation.
std::string bench_text(const Platform& platform, const BenchOptions& options, const BenchResult& result);
/// {"op", "layout", "gpus", "rows": [{"size", "count", "time_us", "algbw", "busbw", "algorithm", "model",
///  "protocol"}], "avg_busbw",
///  "bottleneck": [{"link", "utilization"}], "connections": [...]}.
nlohmann::json bench_json(const Platform& platform, const BenchOptions& options, const BenchResult& result);

}  // namespace rigsim::report
