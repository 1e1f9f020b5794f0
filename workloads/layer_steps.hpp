// The work of one transformer layer (and of the embedding and logits) for one micro-batch on one
// rank, as a list of steps: kernels and the blocking collectives between them (tensor parallel,
// expert all-to-all). The program builder scales, folds and emits them. Internal to workloads/.
#pragma once

#include <string>
#include <vector>

#include "workloads/program.hpp"

namespace rigsim::workloads::detail {

enum class Group { Tp, Ep };

struct Step {
  bool comm = false;
  Purpose purpose = Purpose::Forward;
  std::string name;
  KernelWork work;  // kernel
  double repeat = 1;
  CommKind kind = CommKind::AllReduce;  // comm
  Group group = Group::Tp;
  double bytes = 0;
  double count = 1;
};
using Steps = std::vector<Step>;

/// One micro-batch's sizes on one rank.
struct Dims {
  double b = 1, s = 1, tokens = 1;  // sequences, sequence length, b·s
  double h = 1, kv = 1, heads = 1, vocab = 1, tp = 1;
  bool sp = false;  // sequence parallel
  Dtype gemm = Dtype::Bf16;
  double act = 2;         // bytes per activation element
  double moe_tokens = 1;  // tokens entering this rank's MoE block (b·s/tp under sequence parallelism)
};
Dims dims_of(const Scenario& s, const ModelConfig& m);

Steps layer_forward(const Scenario& s, const ModelConfig& m, int layer, Purpose purpose);
Steps layer_backward(const Scenario& s, const ModelConfig& m, int layer);
/// Selective recomputation: the attention core's forward again, before the layer's backward.
Steps attention_recompute(const Scenario& s, const ModelConfig& m);
Steps embedding_forward(const Scenario& s, const ModelConfig& m);
Steps embedding_backward(const Scenario& s, const ModelConfig& m);
/// Final norm, logits GEMM and the loss.
Steps head_forward(const Scenario& s, const ModelConfig& m);
Steps head_backward(const Scenario& s, const ModelConfig& m);

/// Multiplies every kernel's repeat and every collective's count by `factor`.
void scale(Steps& steps, double factor);
/// Without communication inside, the order of a layer's kernels does not matter: sorts them by
/// kernel class and merges each class into one op (keeps FLOPs and bytes; shape of the largest).
Steps compact(const Steps& steps);
bool has_comm(const Steps& steps);

}  // namespace rigsim::workloads::detail
