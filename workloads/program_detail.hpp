// Shared pieces of the program builder: one rank's context and the emission of layer steps.
// Internal to workloads/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/dp_sync.hpp"
#include "workloads/layer_steps.hpp"
#include "workloads/partition.hpp"

namespace rigsim::workloads::detail {

/// Everything one rank's builder needs.
struct RankContext {
  const Scenario& s;
  const ModelConfig& m;
  RankBuilder& b;
  const RankGroups& g;
  RankCoords coords;
  DpSync* dp = nullptr;
  std::map<int, std::size_t> unit_of_layer;  // DpSync unit index of each layer this rank holds
  std::optional<std::size_t> embedding_unit, head_unit;
};

/// The data-parallel units of a stage in forward order: embedding (stage 0), its layers, head (last stage).
std::vector<Unit> make_units(RankContext& ctx, int stage);

/// Appends steps to the rank: kernels on the compute stream; blocking collectives on the compute stream too
/// that wait for the last kernel and make the next kernel wait for them.
void emit(RankContext& ctx, const Steps& steps, const std::string& prefix);

/// Runs of consecutive layers of the same kind (dense or MoE) in `range`; one layer each if `per_layer`.
std::vector<LayerRange> blocks(const ModelConfig& m, const LayerRange& range, bool per_layer);

/// Forward (or the recomputed forward) and backward of a block of layers for `fold` micro-batches.
void block_forward(RankContext& ctx, const LayerRange& block, double fold, const std::string& tag);
void block_backward(RankContext& ctx, const LayerRange& block, double fold, const std::string& tag);
/// Embedding / head work for `fold` micro-batches.
void piece(RankContext& ctx, Steps steps, double fold, const std::string& prefix);

/// The pipeline-parallel program of one rank (program_pipeline.cpp).
void build_pipelined(RankContext& ctx);

std::string layer_label(const LayerRange& r);

}  // namespace rigsim::workloads::detail
