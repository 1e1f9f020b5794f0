// Names of collectives, algorithms, protocols and plan models, and their parsers (nccl-tests' and
// NCCL's spellings). Split from collectives.cpp.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "model/collectives.hpp"

namespace rigsim::model {
namespace {

constexpr std::array<std::pair<CollectiveOp, std::string_view>, 7> kOpNames{{
    {CollectiveOp::AllReduce, "all_reduce"},
    {CollectiveOp::AllGather, "all_gather"},
    {CollectiveOp::ReduceScatter, "reduce_scatter"},
    {CollectiveOp::Broadcast, "broadcast"},
    {CollectiveOp::Reduce, "reduce"},
    {CollectiveOp::AllToAll, "alltoall"},
    {CollectiveOp::SendRecv, "sendrecv"},
}};

}  // namespace

std::string_view to_string(CollectiveOp op) {
  for (const auto& [k, s] : kOpNames)
    if (k == op) return s;
  return "?";
}

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Ring:
      return "ring";
    case Algorithm::Tree:
      return "tree";
    case Algorithm::Pairwise:
      return "pairwise";
    case Algorithm::Nvls:
      return "nvls";
    case Algorithm::NvlsTree:
      return "nvlstree";
  }
  return "?";
}

std::string_view to_string(PlanModel m) {
  switch (m) {
    case PlanModel::Auto:
      return "auto";
    case PlanModel::Step:
      return "step";
    case PlanModel::Steady:
      return "steady";
  }
  return "?";
}

std::optional<CollectiveOp> parse_collective(std::string_view name) {
  for (const auto& [k, s] : kOpNames)
    if (s == name) return k;
  return std::nullopt;
}

std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::LL:
      return "LL";
    case Protocol::LL128:
      return "LL128";
    case Protocol::Simple:
      return "Simple";
  }
  return "?";
}

std::optional<Protocol> parse_protocol(std::string_view name) {
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple})
    if (to_string(p) == name) return p;
  return std::nullopt;
}

std::optional<PlanModel> parse_plan_model(std::string_view name) {
  for (PlanModel m : {PlanModel::Auto, PlanModel::Step, PlanModel::Steady})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

std::vector<std::string> collective_names() {
  std::vector<std::string> out;
  out.reserve(kOpNames.size());
  for (const auto& [k, s] : kOpNames) out.emplace_back(s);
  return out;
}

}  // namespace rigsim::model
