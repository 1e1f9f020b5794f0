#include "model/training_graph.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "calibration/compute.hpp"

namespace rigsim::model::detail {
namespace {

using topology::DeviceId;
using workloads::OpKind;

CollectiveOp op_of(workloads::CommKind k) {
  switch (k) {
    case workloads::CommKind::AllReduce:
      return CollectiveOp::AllReduce;
    case workloads::CommKind::AllGather:
      return CollectiveOp::AllGather;
    case workloads::CommKind::ReduceScatter:
      return CollectiveOp::ReduceScatter;
    case workloads::CommKind::AllToAll:
      return CollectiveOp::AllToAll;
    case workloads::CommKind::Broadcast:
      return CollectiveOp::Broadcast;
  }
  return CollectiveOp::AllReduce;
}

/// A zero-time task on `device` (a join or a stream marker).
Transfer marker(DeviceId device, long stream, std::vector<std::size_t> after) {
  return compute_task(device, Seconds{}, stream, std::move(after), "");
}

}  // namespace

std::string_view stream_name(workloads::Stream s) {
  switch (s) {
    case workloads::Stream::Compute:
      return "compute";
    case workloads::Stream::Comm:
      return "comm";
    case workloads::Stream::Copy:
      return "copy";
    case workloads::Stream::Cpu:
      return "cpu";
  }
  return "?";
}

StepGraph::StepGraph(const Platform& platform, const workloads::Program& program,
                     const std::vector<DeviceId>& gpus, const CollectiveOptions& collective)
    : platform_(platform), program_(program), gpus_(gpus), collective_(collective) {
  const std::size_t n = program.ranks.size();
  done_.resize(n);
  cursor_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    done_[r].assign(program.ranks[r].ops.size(), -1);
    for (std::size_t i = 0; i < program.ranks[r].ops.size(); ++i)
      cursor_[r][static_cast<std::size_t>(program.ranks[r].ops[i].stream)].ops.push_back(i);
  }
  coll_members_.resize(program.collectives.size());
  coll_arrivals_.resize(program.collectives.size());
  msg_members_.resize(program.messages.size());
  msg_arrivals_.resize(program.messages.size());
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t s = 0; s < kStreams; ++s)
        while (try_emit(static_cast<int>(r), s)) progress = true;
  }
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < done_[r].size(); ++i)
      if (done_[r][i] < 0)
        throw std::logic_error("the step program cannot proceed: rank " + std::to_string(r) +
                               " waits at op " + std::to_string(i) + " (" + program.ranks[r].ops[i].name +
                               ")");
}

long StepGraph::stream_id(int rank, workloads::Stream s) const {
  return static_cast<long>(rank) * static_cast<long>(kStreams) + static_cast<long>(s);
}

std::size_t StepGraph::add(Transfer t, TaskInfo info) {
  if (t.stream >= 0) {
    auto [it, fresh] = last_in_stream_.try_emplace(t.stream, tasks_.size());
    if (!fresh) {
      info.prev_in_stream = static_cast<long>(it->second);
      it->second = tasks_.size();
    }
  }
  tasks_.push_back(std::move(t));
  info_.push_back(std::move(info));
  return tasks_.size() - 1;
}

bool StepGraph::ready(int rank, const workloads::Op& op) const {
  const auto& done = done_[static_cast<std::size_t>(rank)];
  return std::all_of(op.after.begin(), op.after.end(), [&](std::size_t d) { return done.at(d) >= 0; });
}

std::vector<std::size_t> StepGraph::deps(int rank, const workloads::Op& op) const {
  std::vector<std::size_t> out;
  for (std::size_t d : op.after)
    out.push_back(static_cast<std::size_t>(done_[static_cast<std::size_t>(rank)][d]));
  return out;
}

bool StepGraph::try_emit(int rank, std::size_t stream) {
  Cursor& c = cursor_[static_cast<std::size_t>(rank)][stream];
  if (c.waiting || c.next >= c.ops.size()) return false;
  const std::size_t i = c.ops[c.next];
  const workloads::Op& op = program_.ranks[static_cast<std::size_t>(rank)].ops[i];
  if (!ready(rank, op)) return false;
  switch (op.kind) {
    case OpKind::Kernel:
      emit_kernel(rank, i);
      break;
    case OpKind::CpuWork:
      emit_cpu(rank, i);
      break;
    case OpKind::HostToDevice:
    case OpKind::DeviceToHost:
      emit_copy(rank, i);
      break;
    case OpKind::Collective:
    case OpKind::Send:
    case OpKind::Recv:
      arrive(rank, i);  // the cursor moves on when the collective or message is emitted
      return true;
  }
  ++c.next;
  return true;
}

void StepGraph::emit_kernel(int rank, std::size_t i) {
  const workloads::Op& op = program_.ranks[static_cast<std::size_t>(rank)].ops[i];
  const DeviceId gpu = gpus_[static_cast<std::size_t>(rank)];
  const auto t =
      calibration::kernel_time(*platform_.topology().device(gpu).gpu, platform_.cost_model(), op.work);
  const Seconds duration{t.time.value * op.repeat};
  done_[static_cast<std::size_t>(rank)][i] =
      static_cast<long>(add(compute_task(gpu, duration, stream_id(rank, op.stream), deps(rank, op), op.name),
                            {rank, op.stream, op.kind, op.purpose, op.name}));
}

void StepGraph::emit_cpu(int rank, std::size_t i) {
  // The optimizer step on the host streams `bytes` through the memory of the rank's NUMA node (reads and
  // writes): its states sit in pinned memory allocated where the process runs, next to its GPU, as the
  // offload copies' buffers do. It runs as a host memory copy of half of them (a copy reads and writes
  // every byte) on that node's DRAM link, so the steps of all ranks on one node share its bandwidth with
  // each other and with the offload copies, as they do on the machine (the whole socket's where it is
  // one node). Alone it takes bytes / (DRAM bandwidth x memory_efficiency), calibration::host_kernel_time's
  // figure. No cudaMemcpy launch: the CPU's own loop.
  const DeviceId gpu = gpus_[static_cast<std::size_t>(rank)];
  const DeviceId socket = platform_.topology().socket_of(gpu);
  emit_host_transfer(rank, i, socket, socket, program_.ranks[static_cast<std::size_t>(rank)].ops[i].bytes / 2,
                     true, gpu);
}

void StepGraph::emit_copy(int rank, std::size_t i) {
  const workloads::Op& op = program_.ranks[static_cast<std::size_t>(rank)].ops[i];
  const DeviceId gpu = gpus_[static_cast<std::size_t>(rank)];
  const DeviceId socket = platform_.topology().socket_of(gpu);
  const bool h2d = op.kind == OpKind::HostToDevice;
  emit_host_transfer(rank, i, h2d ? socket : gpu, h2d ? gpu : socket, op.bytes, false);
}

void StepGraph::emit_host_transfer(int rank, std::size_t i, DeviceId src, DeviceId dst, double bytes,
                                   bool connected, std::optional<DeviceId> near) {
  const workloads::Op& op = program_.ranks[static_cast<std::size_t>(rank)].ops[i];
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.bytes = Bytes{bytes};
  t.transport = Transport::HostCopy;
  t.connected = connected;
  t.host_memory_near = near;
  t.stream = stream_id(rank, op.stream);
  t.after = deps(rank, op);
  t.tag = op.name;
  done_[static_cast<std::size_t>(rank)][i] =
      static_cast<long>(add(std::move(t), {rank, op.stream, op.kind, op.purpose, op.name}));
}

void StepGraph::arrive(int rank, std::size_t i) {
  const workloads::Op& op = program_.ranks[static_cast<std::size_t>(rank)].ops[i];
  Cursor& c = cursor_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(op.stream)];
  c.waiting = true;
  const std::size_t a =
      add(marker(gpus_[static_cast<std::size_t>(rank)], stream_id(rank, op.stream), deps(rank, op)),
          {rank, op.stream, op.kind, op.purpose, ""});
  if (op.kind == OpKind::Collective) {
    coll_members_.at(op.collective).push_back({rank, i});
    coll_arrivals_[op.collective].push_back(a);
    if (coll_members_[op.collective].size() == program_.collectives.at(op.collective).ranks.size())
      emit_collective(op.collective);
    return;
  }
  msg_members_.at(op.message).push_back({rank, i});
  msg_arrivals_[op.message].push_back(a);
  if (msg_members_[op.message].size() == 2) emit_message(op.message);
}

const CollectivePlan& StepGraph::plan_for(const workloads::Collective& c) {
  std::vector<DeviceId> ranks;
  for (int r : c.ranks) ranks.push_back(gpus_.at(static_cast<std::size_t>(r)));
  auto key = std::make_tuple(static_cast<int>(c.kind), ranks, c.total_bytes());
  auto it = plans_.find(key);
  if (it == plans_.end())
    it = plans_
             .emplace(std::move(key),
                      plan_collective(platform_, op_of(c.kind), ranks, Bytes{c.total_bytes()}, collective_))
             .first;
  return it->second;
}

std::size_t StepGraph::append_plan(const CollectivePlan& plan, std::size_t join, Seconds extra_latency) {
  const std::size_t offset = tasks_.size();
  std::vector<bool> has_dependent(plan.transfers.size(), false);
  for (const Transfer& t : plan.transfers) {
    Transfer copy = t;
    for (std::size_t& d : copy.after) {
      has_dependent[d] = true;
      d += offset;
    }
    if (copy.after.empty()) copy.after = {join};
    add(std::move(copy),
        {-1, workloads::Stream::Comm, OpKind::Collective, workloads::Purpose::GradSync, t.tag});
  }
  std::vector<std::size_t> sinks;
  for (std::size_t k = 0; k < plan.transfers.size(); ++k)
    if (!has_dependent[k]) sinks.push_back(offset + k);
  if (sinks.empty()) sinks = {join};
  Transfer end = marker(tasks_[join].src, -1, std::move(sinks));
  end.latency = extra_latency;
  return add(std::move(end),
             {-1, workloads::Stream::Comm, OpKind::Collective, workloads::Purpose::GradSync, ""});
}

void StepGraph::emit_collective(std::size_t c) {
  const workloads::Collective& coll = program_.collectives[c];
  const DeviceId first = gpus_.at(static_cast<std::size_t>(coll.ranks.front()));
  const std::size_t join = add(marker(first, -1, coll_arrivals_[c]),
                               {-1, workloads::Stream::Comm, OpKind::Collective, coll.purpose, ""});
  std::size_t end = join;
  if (coll.ranks.size() > 1 && coll.total_bytes() > 0) {
    const CollectivePlan& plan = plan_for(coll);
    // `count` identical instances run back to back: planned as one of count x the bytes (the same
    // bandwidth term), plus the latency term of the other count - 1 calls.
    end = append_plan(plan, join, Seconds{(coll.count - 1) * plan.latency.value});
    for (std::size_t k = join + 1; k <= end; ++k) info_[k].purpose = coll.purpose;
  }
  finish_members(coll_members_[c], end);
}

void StepGraph::emit_message(std::size_t m) {
  const workloads::Message& msg = program_.messages[m];
  const DeviceId src = gpus_.at(static_cast<std::size_t>(msg.src)),
                 dst = gpus_.at(static_cast<std::size_t>(msg.dst));
  const Connection c = platform_.connect(src, dst, collective_.p2p, gpus_.size());
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.bytes = Bytes{msg.bytes};
  t.transport = c.transport;
  t.after = msg_arrivals_[m];
  t.tag = msg.name;
  const std::size_t end =
      add(std::move(t), {-1, workloads::Stream::Comm, OpKind::Send, workloads::Purpose::Pipeline, msg.name});
  finish_members(msg_members_[m], end);
}

void StepGraph::finish_members(const std::vector<std::pair<int, std::size_t>>& members, std::size_t end) {
  for (const auto& [rank, i] : members) {
    const workloads::Op& op = program_.ranks[static_cast<std::size_t>(rank)].ops[i];
    const std::size_t d =
        add(marker(gpus_[static_cast<std::size_t>(rank)], stream_id(rank, op.stream), {end}),
            {rank, op.stream, op.kind, op.purpose, ""});
    done_[static_cast<std::size_t>(rank)][i] = static_cast<long>(d);
    Cursor& c = cursor_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(op.stream)];
    c.waiting = false;
    ++c.next;
  }
}

}  // namespace rigsim::model::detail
