// Private to engine/: runs a function in a forked child process and hands its result back over a pipe.
// SimGrid 3.32 allows one s4u::Engine per process and cannot reset it; a child per simulation gives
// every run a fresh engine at time 0 while the parent never initialises SimGrid at all.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace rigsim::engine::detail {

/// Runs `body` in a child process and returns the bytes it returned. An exception thrown by `body` is
/// rethrown here as std::runtime_error with the same message; a child that dies (signal, abort in
/// SimGrid) or exits without an answer also gives std::runtime_error. POSIX only (fork, pipe).
std::string run_isolated(const std::function<std::string()>& body);

/// A child started by start_isolated: finish_isolated waits for it and returns its answer (as
/// run_isolated does). Several may run at once; each must be finished exactly once.
struct Isolated {
  int pid = -1;
  int fd = -1;
};
Isolated start_isolated(const std::function<std::string()>& body);
/// Children started and not yet finished, this one included when asked from inside a child (set
/// before the fork): side-by-side runs share the machine's memory.
std::size_t running_children();
std::string finish_isolated(Isolated child);

}  // namespace rigsim::engine::detail
