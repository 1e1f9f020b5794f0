// Sums over programs (tests, reports) and names of the program vocabulary.
#include <algorithm>

#include "workloads/program.hpp"

namespace rigsim::workloads {

double kernel_flops(const RankProgram& r, Purpose purpose) {
  double sum = 0;
  for (const Op& op : r.ops)
    if (op.kind == OpKind::Kernel && op.purpose == purpose) sum += op.work.flops * op.repeat;
  return sum;
}

double kernel_flops(const RankProgram& r) {
  double sum = 0;
  for (const Op& op : r.ops)
    if (op.kind == OpKind::Kernel) sum += op.work.flops * op.repeat;
  return sum;
}

double kernel_flops(const Program& p) {
  double sum = 0;
  for (const RankProgram& r : p.ranks) sum += kernel_flops(r);
  return sum;
}

double collective_bytes(const Program& p, int rank, Purpose purpose) {
  double sum = 0;
  for (const Collective& c : p.collectives) {
    const bool member = std::find(c.ranks.begin(), c.ranks.end(), rank) != c.ranks.end();
    if (member && c.purpose == purpose) sum += c.total_bytes();
  }
  return sum;
}

std::string_view to_string(Purpose p) {
  switch (p) {
    case Purpose::Forward:
      return "forward";
    case Purpose::Backward:
      return "backward";
    case Purpose::Recompute:
      return "recompute";
    case Purpose::Optimizer:
      return "optimizer";
    case Purpose::GradSync:
      return "grad-sync";
    case Purpose::ParamGather:
      return "param-gather";
    case Purpose::TensorParallel:
      return "tensor-parallel";
    case Purpose::Pipeline:
      return "pipeline";
    case Purpose::ExpertAllToAll:
      return "expert-all-to-all";
    case Purpose::Offload:
      return "offload";
  }
  return "?";
}

std::string_view to_string(CommKind k) {
  switch (k) {
    case CommKind::AllReduce:
      return "all_reduce";
    case CommKind::AllGather:
      return "all_gather";
    case CommKind::ReduceScatter:
      return "reduce_scatter";
    case CommKind::AllToAll:
      return "alltoall";
    case CommKind::Broadcast:
      return "broadcast";
  }
  return "?";
}

}  // namespace rigsim::workloads
