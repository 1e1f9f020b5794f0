// The one way rigsim writes a file (every sub-command's -o, --trace, profiles): all or nothing.
#pragma once

#include <string>

namespace rigsim {

/// Writes `text` to `path`:
/// - a regular file (or a new one) is replaced atomically: the text goes to a uniquely named temporary
///   file in the same directory (mkstemp), is flushed to disk, and renamed over `path`; on any error
///   the temporary file is removed and `path` is left as it was. A user's own `path.tmp` is never
///   touched.
/// - a symbolic link is written through: its final target is replaced as above, the link stays.
/// - a device, pipe or other special file (/dev/stdout, /dev/null, /dev/full) is written directly,
///   never renamed over, and a failed write (e.g. ENOSPC on /dev/full) is an error.
/// - a directory is an error, and nothing is left behind.
/// Throws rigsim::InputError naming the path and the reason.
void write_output_file(const std::string& path, const std::string& text);

}  // namespace rigsim
