#include "common/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/input.hpp"

namespace rigsim {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what, int err = 0) {
  throw InputError(path, "", what + (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
}

/// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// The file a chain of symbolic links ends at (the path itself when it is no link); relative targets
/// are taken from the link's directory. At most 40 links, as the kernel's ELOOP limit.
fs::path final_target(const std::string& path) {
  fs::path p = path;
  for (int i = 0; i < 40; ++i) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) fail(path, "cannot read the symbolic link", ec.value());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  fail(path, "too many levels of symbolic links");
}

void write_special(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open for writing", errno);
  const bool ok = write_all(fd, text);
  const int err = errno;
  ::close(fd);
  if (!ok) fail(path, "write failed", err);
}

void replace_regular(const std::string& shown, const fs::path& target, const std::string& text) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".rigsim-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(shown, "cannot create a temporary file in " + dir.string(), errno);
  // mkstemp creates 0600; give the file the mode a plain open() would (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  int err = 0;
  if (!write_all(fd, text) || ::fsync(fd) != 0 || ::fchmod(fd, 0666 & ~mask) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmpl.c_str(), target.c_str()) != 0) err = errno;
  const bool ok = err == 0;
  if (!ok) {
    ::unlink(tmpl.c_str());
    fail(shown, "write failed", err);
  }
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  if (path.empty()) fail(path, "no output file name given");
  const fs::path target = final_target(path);
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_directory(st)) fail(path, "is a directory; give a file name");
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    write_special(target.string(), text);
    return;
  }
  replace_regular(path, target, text);
}

}  // namespace rigsim
