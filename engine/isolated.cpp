#include "engine/isolated.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace rigsim::engine::detail {
namespace {

// First byte of the child's answer.
constexpr char kResult = 'R';
constexpr char kError = 'E';

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent went away: nothing left to tell
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

[[noreturn]] void child(int fd, const std::function<std::string()>& body) {
  std::string answer;
  try {
    answer = kResult + body();
  } catch (const std::exception& e) {
    answer = std::string(1, kError) + e.what();
  } catch (...) {
    answer = std::string(1, kError) + "unknown exception in the simulation process";
  }
  write_all(fd, answer);
  ::close(fd);
  ::_exit(0);  // no atexit handlers, no flushing of stdio buffers copied from the parent
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  return status;
}

std::size_t g_running = 0;  // the parent's count; a child sees it as it was at its fork

}  // namespace

std::size_t running_children() { return g_running; }

Isolated start_isolated(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ++g_running;
  const pid_t pid = ::fork();
  if (pid < 0) {
    --g_running;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], body);
  }
  ::close(fds[1]);
  return {static_cast<int>(pid), fds[0]};
}

std::string finish_isolated(Isolated c) {
  struct Done {
    ~Done() { --g_running; }
  } done;
  // A child blocked writing a long answer waits for this read; one that finished first waits in the
  // pipe's buffer: children finished in any order cannot deadlock.
  std::string answer = read_all(c.fd);
  ::close(c.fd);
  const int status = wait_for(static_cast<pid_t>(c.pid));
  if (WIFSIGNALED(status))
    throw std::runtime_error("the simulation process was killed by signal " +
                             std::to_string(WTERMSIG(status)));
  if (answer.empty()) throw std::runtime_error("the simulation process ended without an answer");
  if (answer[0] == kError) throw std::runtime_error("simulation failed: " + answer.substr(1));
  return answer.substr(1);
}

std::string run_isolated(const std::function<std::string()>& body) {
  return finish_isolated(start_isolated(body));
}

}  // namespace rigsim::engine::detail
