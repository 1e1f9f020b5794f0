// Per-rank programs: one training step as pure data. Each rank runs ops on its streams (ops of one
// stream in order; `after` adds cross-stream dependencies); collectives and point-to-point messages
// are shared records that every member rank refers to by index. Built without SimGrid; the engine
// executes it, tests check its volumes against closed forms.
//
// Aggregation (what keeps a step at a few hundred ops per rank, and what it keeps exact):
//  - identical consecutive layers with no data-parallel unit boundary between them are one op with
//    `repeat` (kernels) or `count` (collectives): exact for FLOPs, bytes and for blocking communication
//    (tensor parallel, MoE all-to-all), whose time is a sum either way; `count` says how many calls
//    were folded, so an executor can still charge the per-call latency count times.
//  - gradient-accumulation micro-batches whose communication is identical (ZeRO-2/3, FSDP, and the
//    compute-only micro-batches before DDP's last one) are folded the same way: totals are exact and
//    the overlap pattern of each unit is kept (per unit, compute and communication both scale by m).
//  - pipeline micro-batches are never folded: the schedule is the point of pipelining. Messages are
//    valid as rendezvous (a send and its receive move together): every rank's sends and receives are
//    in one global order (pipeline_schedule.hpp), so in-order streams cannot deadlock.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "workloads/model.hpp"
#include "workloads/scenario.hpp"

namespace rigsim::workloads {

// Per-rank streams; ops of one stream run in order. Comm carries data-parallel and pipeline traffic.
// The blocking collectives inside a layer (tensor/sequence parallel, MoE all-to-all) are on Compute:
// the layer's next kernel waits for them anyway, and on their own communicator (a PyTorch process group
// has its own NCCL stream) they never queue behind the gradient buckets of Comm.
enum class Stream { Compute, Comm, Copy, Cpu };
enum class Purpose {
  Forward,
  Backward,
  Recompute,
  Optimizer,
  GradSync /*DDP all-reduce, ZeRO/FSDP reduce-scatter*/,
  ParamGather /*ZeRO-3/FSDP all-gather*/,
  TensorParallel,
  Pipeline,
  ExpertAllToAll,
  Offload
};
enum class CommKind { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast };

// bytes: nccl-tests "size" semantics — all_reduce: the buffer each rank holds; all_gather: the whole
// gathered output; reduce_scatter: the whole input; alltoall: the bytes each rank sends in total.
struct Collective {
  CommKind kind = CommKind::AllReduce;
  std::vector<int> ranks;  // members, in ring order as placed
  double bytes = 0;        // of one instance
  Purpose purpose = Purpose::GradSync;
  std::string name;
  double count = 1;  // identical instances run back to back (folded layers or micro-batches)
  double total_bytes() const { return bytes * count; }
};

struct Message {  // pipeline point-to-point
  int src = 0;
  int dst = 0;
  double bytes = 0;
  std::string name;
};

enum class OpKind { Kernel, Collective, Send, Recv, HostToDevice, DeviceToHost, CpuWork };

struct Op {
  OpKind kind = OpKind::Kernel;
  Stream stream = Stream::Compute;
  Purpose purpose = Purpose::Forward;
  std::string name;   // "L0-31 fwd gemm" ...
  KernelWork work;    // Kernel: one kernel's work
  double repeat = 1;  // Kernel: identical kernels folded into this op (time = repeat x one)
  std::size_t collective =
      0;  // Collective: index into Program::collectives (each member rank has one op with this index)
  std::size_t message = 0;  // Send/Recv: index into Program::messages
  double bytes = 0;         // HostToDevice/DeviceToHost: bytes copied; CpuWork: bytes of host memory traffic
  double cpu_flops = 0;     // CpuWork
  std::vector<std::size_t>
      after;  // indices of earlier ops of the same rank that must finish first (cross-stream deps)
};

struct RankProgram {
  std::vector<Op> ops;
};

struct Program {
  std::vector<RankProgram> ranks;
  std::vector<Collective> collectives;
  std::vector<Message> messages;
  double tokens_per_step = 0;  // global batch x seq_len
  // For MFU: FLOPs the model needs per step, whatever the implementation does (no recomputation).
  // PaLM's convention (Chowdhery et al. 2022, arXiv:2204.02311, App. B): 6·N·tokens + 12·L·h·s·tokens
  // (attention, counted without causal savings), N = active parameters that do matrix multiplies
  // (the input embedding lookup is excluded; tied logits count once). LoRA: the frozen weights still
  // count forward and for activation gradients (4·N·tokens) and the adapters count fully
  // (6·N_lora·tokens): what a LoRA step must compute, so LoRA and full fine-tuning MFU compare.
  double model_flops_per_step = 0;
};

/// Builds the step of `s` (validated against `m`). Ranks are numbered as rank_coords() places them.
Program build_program(const Scenario& s, const ModelConfig& m);

/// Sum over ops of kernel FLOPs × repeat (one rank, or all ranks).
double kernel_flops(const RankProgram& r, Purpose purpose);
double kernel_flops(const RankProgram& r);
double kernel_flops(const Program& p);
/// Sum of total_bytes() of the collectives of one purpose that rank `rank` takes part in.
double collective_bytes(const Program& p, int rank, Purpose purpose);

std::string_view to_string(Purpose p);
std::string_view to_string(CommKind k);

}  // namespace rigsim::workloads
