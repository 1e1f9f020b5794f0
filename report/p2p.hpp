// Reports of `rigsim p2p`: p2pBandwidthLatencyTest / bandwidthTest-style text and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/p2p_bench.hpp"

namespace rigsim::report {

using model::P2pBenchResult;

/// The CUDA samples' text layout (matrices with "%6.02f" cells), then a bandwidthTest-like table,
/// nvbandwidth's host tests, the host-copy latencies and nvbandwidth's SM write copies.
std::string p2p_bench_text(const P2pBenchResult& r);

/// Keys uni_p2p_on, uni_p2p_off, bi_p2p_on, bi_p2p_off, latency_us_p2p_on, latency_us_p2p_off,
/// uni_p2p_on_sm (GPU x GPU), h2d_gbps, d2h_gbps, d2h_sm_gbps, fan_in_gbps, fan_out_gbps, host_why,
/// h2d_concurrent_gbps, d2h_concurrent_gbps, h2d_bidir_gbps, d2h_bidir_gbps, h2d_concurrent_bidir_gbps,
/// d2h_concurrent_bidir_gbps, h2d_latency_us, d2h_latency_us, h2d_remote_gbps, d2h_remote_gbps (per GPU),
/// why, plus layout, cost_model, size_bytes, gpus.
nlohmann::json p2p_bench_json(const P2pBenchResult& r);

}  // namespace rigsim::report
