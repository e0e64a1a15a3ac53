#include "output_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace ep::tools {

namespace {

// Enough for any sane chain of links; a longer one is a loop, which open()
// then reports (ELOOP).
constexpr int max_link_hops = 40;

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string read_link(const std::string& path) {
  std::vector<char> buffer(256);
  for (;;) {
    const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < buffer.size())
      return std::string(buffer.data(), static_cast<std::size_t>(n));
    buffer.resize(buffer.size() * 2);
  }
}

// The path with every link resolved (realpath), or "" if it cannot be.
std::string real_path(const std::string& path) {
  const std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr),
                                                         &std::free);
  return real ? std::string(real.get()) : std::string();
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// A process's descriptor table in /proc: "/proc/PID/fd" or
// "/proc/PID/task/TID/fd" (what /dev/fd, /proc/self/fd and /proc/thread-self/fd
// lead to). Returns PID, or "" for any other directory.
std::string descriptor_table_owner(const std::string& directory) {
  constexpr std::string_view head = "/proc/";
  constexpr std::string_view tail = "/fd";
  std::string_view d = directory;
  if (d.size() <= head.size() + tail.size() || d.substr(0, head.size()) != head ||
      d.substr(d.size() - tail.size()) != tail)
    return {};
  d = d.substr(head.size(), d.size() - head.size() - tail.size());
  const std::string_view pid = d.substr(0, d.find('/'));
  const std::string_view rest = d.substr(pid.size());
  constexpr std::string_view task = "/task/";
  if (!all_digits(pid)) return {};
  if (!rest.empty() &&
      (rest.substr(0, task.size()) != task || !all_digits(rest.substr(task.size()))))
    return {};
  return std::string(pid);
}

// This process's number as /proc sees it (its own namespace's, which getpid
// need not be).
const std::string& own_proc_pid() {
  static const std::string pid = name_of(real_path("/proc/self"));
  return pid;
}

struct DescriptorName {
  int number = -1;  ///< -1: the path names no descriptor
  bool own = false;
};

// Whether `path` is an entry of a descriptor table in /proc (through
// /dev/stdout, /dev/fd, /proc/self/fd, ...), whose link leads to the open
// file but must not be followed: "pipe:[1234]" names no file, and a regular
// file found there would be replaced, not written at the descriptor's offset.
DescriptorName descriptor_named(const std::string& path) {
  const std::string name = name_of(path);
  if (!all_digits(name) || name.size() > 9) return {};
  const std::string owner = descriptor_table_owner(real_path(directory_of(path)));
  if (owner.empty()) return {};
  return {std::atoi(name.c_str()), owner == own_proc_pid()};
}

[[noreturn]] void fail(std::string_view option, const OutputTarget& t, int error) {
  throw OutputError(
      fmt::format("cannot write {} {}: {}", option, describe_output(t), std::strerror(error)));
}

// Writes all of `text` to `fd`; 0 or the errno of the failure.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// Through stdio, after what the tool printed there before.
void write_stdout(std::string_view option, const OutputTarget& t, std::string_view text) {
  std::clearerr(stdout);
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (std::fflush(stdout) != 0 || !written || std::ferror(stdout) != 0) {
    const int error = errno != 0 ? errno : EIO;
    if (t.path == "-")
      throw OutputError(fmt::format("cannot write {} to stdout: {}", option, std::strerror(error)));
    fail(option, t, error);
  }
}

// A descriptor of this process: written where its offset is, left open.
void write_descriptor(std::string_view option, const OutputTarget& t, std::string_view text) {
  if (t.descriptor == STDOUT_FILENO) {
    write_stdout(option, t, text);
    return;
  }
  const int flags = ::fcntl(t.descriptor, F_GETFL);
  if (flags < 0) fail(option, t, errno);
  if ((flags & O_ACCMODE) == O_RDONLY) fail(option, t, EBADF);
  if (t.descriptor == STDERR_FILENO) std::fflush(stderr);
  if (const int error = write_all(t.descriptor, text); error != 0) fail(option, t, error);
}

// A device, a pipe, a terminal, another process's descriptor: written where
// it is (appended to, for a descriptor, so that a file behind it keeps what
// it holds).
void write_in_place(std::string_view option, const OutputTarget& t, std::string_view text) {
  const int append = t.foreign_descriptor ? O_APPEND : 0;
  const int fd = ::open(t.resolved.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | append);
  if (fd < 0) fail(option, t, errno);
  const int error = write_all(fd, text);
  const int closed = ::close(fd) == 0 ? 0 : errno;
  if (error != 0 || closed != 0) fail(option, t, error != 0 ? error : closed);
}

// A regular file or a new one: a temporary file beside it, renamed over it.
void replace(std::string_view option, const OutputTarget& t, std::string_view text) {
  static std::atomic<unsigned> serial{0};
  const std::string temporary =
      fmt::format("{}.tmp.{}.{}", t.resolved, ::getpid(), serial.fetch_add(1));
  // 0666 less the umask, as any new file; an existing target's own mode.
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    throw OutputError(fmt::format("cannot write {} {}: cannot create a file beside it: {}", option,
                                  describe_output(t), std::strerror(errno)));
  int error = 0;
  if (struct stat old{}; t.exists && ::stat(t.resolved.c_str(), &old) == 0)
    if (::fchmod(fd, old.st_mode & 07777) != 0) error = errno;
  if (error == 0) error = write_all(fd, text);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), t.resolved.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(option, t, error);
  }
}

// What makes two paths one file, found without opening either.
struct Identity {
  bool known = false;
  bool node = false;  ///< an existing file: dev and ino; else a new file's name
  dev_t dev = 0;
  ino_t ino = 0;
  bool character_device = false;
  bool descriptor = false;  ///< reached through a descriptor (/dev/stdout)
  std::string name;         ///< a new file: its directory's real path and its name
};

Identity identify(const std::string& path) {
  const OutputTarget t = resolve_output(path);
  Identity id;
  struct stat st {};
  if (t.descriptor >= 0) {
    if (::fstat(t.descriptor, &st) != 0) return id;
    id.descriptor = true;
  } else if (t.exists) {
    if (::stat(t.resolved.c_str(), &st) != 0) return id;
    id.descriptor = t.foreign_descriptor;
  } else {
    const std::string directory = real_path(directory_of(t.resolved));
    if (directory.empty()) return id;
    id.known = true;
    id.name = directory + "/" + name_of(t.resolved);
    return id;
  }
  id.known = id.node = true;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.character_device = S_ISCHR(st.st_mode);
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  if (!a.known || !b.known || a.node != b.node) return false;
  if (!a.node) return a.name == b.name;
  if (a.dev != b.dev || a.ino != b.ino) return false;
  // /dev/null twice: each written in place, nothing lost. Not so a
  // descriptor (stdout twice), whose texts would run together.
  return !(a.character_device && !a.descriptor && !b.descriptor);
}

std::string describe_path(const std::string& path) { return describe_output(resolve_output(path)); }

}  // namespace

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  t.resolved = path;
  if (path == "-") {
    t.exists = true;
    t.replaceable = false;
    t.descriptor = STDOUT_FILENO;
    return t;
  }
  for (int hop = 0;; ++hop) {
    if (const DescriptorName d = descriptor_named(t.resolved); d.number >= 0) {
      t.exists = true;
      t.replaceable = false;
      if (d.own)
        t.descriptor = d.number;
      else
        t.foreign_descriptor = true;
      return t;
    }
    struct stat st {};
    if (::lstat(t.resolved.c_str(), &st) != 0) return t;  // a new file
    if (!S_ISLNK(st.st_mode)) {
      t.exists = true;
      t.replaceable = S_ISREG(st.st_mode);
      return t;
    }
    std::string target = read_link(t.resolved);
    if (hop == max_link_hops || target.empty()) {
      // A loop: written in place, open() says ELOOP; never renamed over.
      t.exists = true;
      t.replaceable = false;
      return t;
    }
    if (target.front() != '/') target = directory_of(t.resolved) + "/" + target;
    t.resolved = std::move(target);
  }
}

std::string describe_output(const OutputTarget& t) {
  if (t.path == "-") return "stdout";
  if (t.resolved == t.path) return fmt::format("'{}'", t.path);
  return fmt::format("'{}' (a link to '{}')", t.path, t.resolved);
}

std::string output_problem(const OutputTarget& t) {
  if (t.descriptor >= 0) {
    const int flags = ::fcntl(t.descriptor, F_GETFL);
    if (flags < 0) return fmt::format("descriptor {} is not open", t.descriptor);
    if ((flags & O_ACCMODE) == O_RDONLY)
      return fmt::format("descriptor {} is open for reading only", t.descriptor);
    return {};
  }
  if (t.exists) {
    struct stat st {};
    if (::stat(t.resolved.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return "it is a directory";
    if (::access(t.resolved.c_str(), W_OK) != 0) return std::strerror(errno);
    if (!t.replaceable) return {};
  }
  // The temporary file and the rename need the directory.
  if (::access(directory_of(t.resolved).c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return {};
}

std::string output_name_problem(const std::string& path) {
  if (path.empty()) return "an empty path names no file (give a file name, or '-' for stdout)";
  return {};
}

bool writes_stdout(const std::string& path) {
  return !path.empty() && resolve_output(path).descriptor == STDOUT_FILENO;
}

void write_output(std::string_view option, const std::string& path, std::string_view text) {
  const OutputTarget t = resolve_output(path);
  if (t.descriptor >= 0)
    write_descriptor(option, t, text);
  else if (t.replaceable)
    replace(option, t, text);
  else
    write_in_place(option, t, text);
}

std::string output_collision(const std::vector<NamedFile>& outputs,
                             const std::vector<NamedFile>& inputs) {
  std::vector<Identity> ids;
  for (const NamedFile& o : outputs) ids.push_back(o.path.empty() ? Identity{} : identify(o.path));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (same_file(ids[i], ids[j]))
        return fmt::format(
            "{} {} and {} {} are the same file: one would overwrite the other; give each its "
            "own file",
            outputs[i].what, describe_path(outputs[i].path), outputs[j].what,
            describe_path(outputs[j].path));
    for (const NamedFile& input : inputs)
      if (!input.path.empty() && same_file(ids[i], identify(input.path)))
        return fmt::format(
            "{} {} and {} '{}' are the same file: writing the output would destroy the input; "
            "give another file",
            outputs[i].what, describe_path(outputs[i].path), input.what, input.path);
  }
  return {};
}

}  // namespace ep::tools
