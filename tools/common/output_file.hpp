// Where the tools' output files (ep-bench --json and --csv, ep-inspect
// --output) go, and how they are written.
//   - "-" is stdout.
//   - A path that names an open file descriptor of this process (/dev/stdout,
//     /dev/stderr, /dev/fd/N, /proc/self/fd/N, bash's >(...)) is written
//     through that descriptor, as "-" is through stdout: at its offset, once,
//     never replaced, truncated or reopened, so that `--json /dev/stdout >>
//     log` appends to the log and `--json /dev/stdout | cat` feeds the pipe.
//     Another process's descriptor (/proc/PID/fd/N) is opened for appending.
//   - A symbolic link is followed: its target is written, the link stays.
//   - A regular file (or a new path) is replaced atomically: the text goes to
//     a temporary file beside the target, which is then renamed over it, so
//     that a reader or a crash sees the old file or the new one, never half.
//     The target keeps its permissions.
//   - Anything else that can be opened for writing (/dev/null, a pipe, a
//     terminal) is written in place: never replaced by a regular file.
// Checking a path (output_problem, same_file) opens nothing: opening a
// named pipe would be its reader's whole input, and a check of a run that
// then fails should leave no empty file.
// A failed write (a full disk, /dev/full) is an error naming the option, the
// path, the link's target when there is one, and the reason.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ep::tools {

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
  /// for a device, a pipe, a socket, a descriptor (written in place, once).
  bool replaceable = true;
  /// The descriptor of this process that the path names ("-": 1), or -1.
  int descriptor = -1;
  /// The path names another process's descriptor (/proc/PID/fd/N).
  bool foreign_descriptor = false;
};

/// Follows `path`'s symbolic links up to a descriptor or a file. Opens and
/// reads no file.
OutputTarget resolve_output(const std::string& path);

/// "'path'", "'path' (a link to 'target')", or "stdout" for "-": how
/// messages name it.
std::string describe_output(const OutputTarget& target);

/// Empty if the target looks writable, found without opening anything, else
/// why not ("No such file or directory"): a directory, a missing or
/// read-only parent directory, a file or device without write permission, a
/// descriptor that is not open for writing.
std::string output_problem(const OutputTarget& target);

/// Empty, or why `path` cannot be an output's name at all (an empty path).
std::string output_name_problem(const std::string& path);

/// True when `path` writes to this process's stdout: "-", /dev/stdout,
/// /dev/fd/1, ... (where a tool must then not print its tables).
bool writes_stdout(const std::string& path);

/// Writes `text` to `path` ("-": stdout) as the header says. `option`
/// (--json, --csv) names the file in errors. Throws OutputError.
void write_output(std::string_view option, const std::string& path, std::string_view text);

/// A file a command names: an output (`what` is its option, "--json"), or
/// an input (`what` says which, "the suite file").
struct NamedFile {
  std::string what;
  std::string path;
};

/// Empty, or a message naming both when two outputs, or an output and an
/// input, are one file (links followed; the same device and inode when the
/// files exist; for new files, the same directory and name): writing one
/// would destroy the other. Several outputs to one character device
/// (/dev/null) reached without a descriptor are fine: written in place, one
/// after the other, nothing is lost. Opens nothing. "" paths are skipped.
std::string output_collision(const std::vector<NamedFile>& outputs,
                             const std::vector<NamedFile>& inputs);

}  // namespace ep::tools
