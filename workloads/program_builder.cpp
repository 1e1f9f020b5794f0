#include "workloads/program_builder.hpp"

#include <algorithm>
#include <cassert>

namespace rigsim::workloads::detail {

std::size_t Registry::collective(const Collective& c) {
  const auto key = std::make_pair(c.ranks, c.name);
  const auto it = collectives_.find(key);
  if (it != collectives_.end()) {
    assert(program_.collectives[it->second].bytes == c.bytes && "members disagree on a collective's size");
    return it->second;
  }
  program_.collectives.push_back(c);
  collectives_.emplace(key, program_.collectives.size() - 1);
  return program_.collectives.size() - 1;
}

std::size_t Registry::message(const Message& m) {
  const auto key = std::make_tuple(m.src, m.dst, m.name);
  const auto it = messages_.find(key);
  if (it != messages_.end()) return it->second;
  program_.messages.push_back(m);
  messages_.emplace(key, program_.messages.size() - 1);
  return program_.messages.size() - 1;
}

RankBuilder::Index RankBuilder::push(Op op) {
  program_.ops.push_back(std::move(op));
  const Index i = program_.ops.size() - 1;
  last_[program_.ops[i].stream] = i;
  return i;
}

void RankBuilder::take_waits(Op& op) {
  for (Index w : waits_)
    if (std::find(op.after.begin(), op.after.end(), w) == op.after.end()) op.after.push_back(w);
  waits_.clear();
}

RankBuilder::Index RankBuilder::kernel(Purpose purpose, const std::string& name, const KernelWork& work,
                                       double repeat) {
  Op op;
  op.purpose = purpose;
  op.name = name;
  op.work = work;
  op.repeat = repeat;
  take_waits(op);
  return push(std::move(op));
}

std::optional<RankBuilder::Index> RankBuilder::collective(Purpose purpose, const std::string& name,
                                                          CommKind kind, const std::vector<int>& group,
                                                          double bytes, double count,
                                                          std::vector<Index> after, Stream stream) {
  if (group.size() <= 1 || bytes <= 0 || count <= 0) return std::nullopt;
  Op op;
  op.kind = OpKind::Collective;
  op.stream = stream;
  op.purpose = purpose;
  op.name = name;
  op.collective = registry_.collective({kind, group, bytes, purpose, name, count});
  op.after = std::move(after);
  if (stream == Stream::Compute) take_waits(op);
  return push(std::move(op));
}

RankBuilder::Index RankBuilder::send(int dst, double bytes, const std::string& name,
                                     std::vector<Index> after) {
  Op op;
  op.kind = OpKind::Send;
  op.stream = Stream::Comm;
  op.purpose = Purpose::Pipeline;
  op.name = name;
  op.message = registry_.message({rank_, dst, bytes, name});
  op.after = std::move(after);
  return push(std::move(op));
}

RankBuilder::Index RankBuilder::recv(int src, double bytes, const std::string& name) {
  Op op;
  op.kind = OpKind::Recv;
  op.stream = Stream::Comm;
  op.purpose = Purpose::Pipeline;
  op.name = name;
  op.message = registry_.message({src, rank_, bytes, name});
  return push(std::move(op));
}

RankBuilder::Index RankBuilder::copy(OpKind kind, const std::string& name, double bytes,
                                     std::vector<Index> after) {
  Op op;
  op.kind = kind;
  op.stream = Stream::Copy;
  op.purpose = Purpose::Offload;
  op.name = name;
  op.bytes = bytes;
  op.after = std::move(after);
  return push(std::move(op));
}

RankBuilder::Index RankBuilder::cpu(Purpose purpose, const std::string& name, double bytes, double flops,
                                    std::vector<Index> after) {
  Op op;
  op.kind = OpKind::CpuWork;
  op.stream = Stream::Cpu;
  op.purpose = purpose;
  op.name = name;
  op.bytes = bytes;
  op.cpu_flops = flops;
  op.after = std::move(after);
  return push(std::move(op));
}

void RankBuilder::wait_for(std::optional<Index> op) {
  if (op) waits_.push_back(*op);
}

std::optional<RankBuilder::Index> RankBuilder::last(Stream stream) const {
  const auto it = last_.find(stream);
  return it == last_.end() ? std::nullopt : std::optional<Index>(it->second);
}

}  // namespace rigsim::workloads::detail
