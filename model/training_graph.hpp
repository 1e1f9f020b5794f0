// Private to model/training.cpp: the task graph of one training step (see training.cpp for its shape).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "model/collectives.hpp"
#include "model/platform.hpp"
#include "workloads/program.hpp"

namespace rigsim::model::detail {

/// What one task of the graph stands for (for the breakdown and traces).
struct TaskInfo {
  int rank = -1;  // -1: a collective's or message's own transfer, or a join
  workloads::Stream stream = workloads::Stream::Compute;
  workloads::OpKind kind = workloads::OpKind::Kernel;
  workloads::Purpose purpose = workloads::Purpose::Forward;
  std::string name;          // "" for zero-time bookkeeping tasks
  long prev_in_stream = -1;  // the task before it on its stream (the engine waits for it too), or -1
};

std::string_view stream_name(workloads::Stream s);

class StepGraph {
 public:
  /// Builds the whole graph; throws std::logic_error when the program cannot make progress (a rank
  /// waits on a collective another member never reaches).
  StepGraph(const Platform& platform, const workloads::Program& program,
            const std::vector<topology::DeviceId>& gpus, const CollectiveOptions& collective);

  const std::vector<Transfer>& tasks() const { return tasks_; }
  const std::vector<TaskInfo>& info() const { return info_; }

 private:
  static constexpr std::size_t kStreams = 4;
  struct Cursor {
    std::vector<std::size_t> ops;  // op indices of this stream, in order
    std::size_t next = 0;
    bool waiting = false;  // arrived at a collective or message that has not been emitted yet
  };

  bool try_emit(int rank, std::size_t stream);
  bool ready(int rank, const workloads::Op& op) const;
  std::vector<std::size_t> deps(int rank, const workloads::Op& op) const;
  long stream_id(int rank, workloads::Stream s) const;
  std::size_t add(Transfer t, TaskInfo info);
  void emit_kernel(int rank, std::size_t i);
  void emit_cpu(int rank, std::size_t i);
  void emit_copy(int rank, std::size_t i);
  /// A host-memory transfer for op i of `rank` (an offload copy, or the host optimizer's memory stream).
  void emit_host_transfer(int rank, std::size_t i, topology::DeviceId src, topology::DeviceId dst,
                          double bytes, bool connected,
                          std::optional<topology::DeviceId> near = std::nullopt);
  void arrive(int rank, std::size_t i);
  void emit_collective(std::size_t c);
  void emit_message(std::size_t m);
  void finish_members(const std::vector<std::pair<int, std::size_t>>& members, std::size_t end);
  std::size_t append_plan(const CollectivePlan& plan, std::size_t join, Seconds extra_latency);
  const CollectivePlan& plan_for(const workloads::Collective& c);

  const Platform& platform_;
  const workloads::Program& program_;
  const std::vector<topology::DeviceId>& gpus_;
  CollectiveOptions collective_;
  std::vector<Transfer> tasks_;
  std::vector<TaskInfo> info_;
  std::vector<std::vector<long>> done_;  // per rank, per op: the task marking its end (-1: not yet)
  std::vector<std::array<Cursor, kStreams>> cursor_;                    // per rank, per stream
  std::vector<std::vector<std::pair<int, std::size_t>>> coll_members_;  // per collective: (rank, op) arrived
  std::vector<std::vector<std::size_t>> coll_arrivals_;                 // per collective: arrive tasks
  std::vector<std::vector<std::pair<int, std::size_t>>> msg_members_;
  std::vector<std::vector<std::size_t>> msg_arrivals_;
  std::map<std::tuple<int, std::vector<topology::DeviceId>, double>, CollectivePlan> plans_;
  std::map<long, std::size_t> last_in_stream_;  // per engine stream id: its latest task
};

}  // namespace rigsim::model::detail
