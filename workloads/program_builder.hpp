// Appending ops to one rank's program, and the shared registry that turns the collectives and
// messages ranks emit into single records (matched by group and name). Internal to workloads/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "workloads/program.hpp"

namespace rigsim::workloads::detail {

/// Collectives are matched by (member ranks, name): every member emits the same name for the same
/// collective, so the first emitter creates the record and the others find it.
class Registry {
 public:
  explicit Registry(Program& program) : program_(program) {}
  std::size_t collective(const Collective& c);
  std::size_t message(const Message& m);

 private:
  Program& program_;
  std::map<std::pair<std::vector<int>, std::string>, std::size_t> collectives_;
  std::map<std::tuple<int, int, std::string>, std::size_t> messages_;
};

class RankBuilder {
 public:
  using Index = std::size_t;
  RankBuilder(int rank, Registry& registry, RankProgram& program)
      : rank_(rank), registry_(registry), program_(program) {}

  int rank() const { return rank_; }
  /// A kernel on the compute stream; it (like any compute-stream op) also waits for everything passed
  /// to wait_for() since the last one.
  Index kernel(Purpose purpose, const std::string& name, const KernelWork& work, double repeat);
  /// A collective on `stream` (Comm unless said), or nothing when the group is this rank alone.
  std::optional<Index> collective(Purpose purpose, const std::string& name, CommKind kind,
                                  const std::vector<int>& group, double bytes, double count,
                                  std::vector<Index> after, Stream stream = Stream::Comm);
  Index send(int dst, double bytes, const std::string& name, std::vector<Index> after);
  Index recv(int src, double bytes, const std::string& name);
  /// Host<->device copies on the copy stream.
  Index copy(OpKind kind, const std::string& name, double bytes, std::vector<Index> after);
  Index cpu(Purpose purpose, const std::string& name, double bytes, double flops, std::vector<Index> after);

  /// The next kernel waits for `op` (a collective, a receive or a copy).
  void wait_for(std::optional<Index> op);
  /// The last op appended on `stream`, if any.
  std::optional<Index> last(Stream stream) const;

 private:
  Index push(Op op);
  void take_waits(Op& op);

  int rank_;
  Registry& registry_;
  RankProgram& program_;
  std::vector<Index> waits_;
  std::map<Stream, Index> last_;
};

}  // namespace rigsim::workloads::detail
