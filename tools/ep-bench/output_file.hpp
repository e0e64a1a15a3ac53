// Where ep-bench's output files (--json, --csv) go, and how they are written.
//   - "-" is stdout.
//   - A symbolic link is followed: its target is written, the link stays.
//   - A regular file (or a new path) is replaced atomically: the text goes to
//     a temporary file beside the target, which is then renamed over it, so
//     that a reader or a crash sees the old file or the new one, never half.
//     The target keeps its permissions.
//   - Anything else that can be opened for writing (/dev/null, a pipe, a
//     terminal) is written in place: never replaced by a regular file.
// A failed write (a full disk, /dev/full) is an error naming the path, the
// link's target when there is one, and the reason.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ep::bench {

/// An output file that could not be written; what() says which and why.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What an output path leads to, once links are followed.
struct OutputTarget {
  std::string path;      ///< as given
  std::string resolved;  ///< the file written: path with its links followed
  bool exists = false;
  /// True for a regular file or a new path (replaced atomically); false
  /// for a device, a pipe, a socket (written in place).
  bool replaceable = true;
};

/// Follows `path`'s symbolic links (not "-"). Reads no file.
OutputTarget resolve_output(const std::string& path);

/// "'path'", or "'path' (a link to 'target')": how messages name it.
std::string describe_output(const OutputTarget& target);

/// Empty if the target looks writable, found without writing anything, else
/// why not ("No such file or directory"): a directory, a missing or
/// read-only parent directory, a file or device without write permission.
std::string output_problem(const OutputTarget& target);

/// Writes `text` to `path` ("-": stdout) as the header says. `option`
/// (--json, --csv) names the file in errors. Throws OutputError.
void write_output(std::string_view option, const std::string& path, std::string_view text);

}  // namespace ep::bench
