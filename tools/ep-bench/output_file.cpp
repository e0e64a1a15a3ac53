#include "output_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ep::bench {

namespace {

// Enough for any sane chain of links; a longer one is a loop, which open()
// then reports (ELOOP).
constexpr int max_link_hops = 40;

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? std::string("/") : path.substr(0, slash);
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

void write_stdout(std::string_view option, std::string_view text) {
  std::clearerr(stdout);
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (std::fflush(stdout) != 0 || !written || std::ferror(stdout) != 0)
    throw OutputError(fmt::format("cannot write {} to stdout: {}", option, std::strerror(errno)));
}

// A device, a pipe, a terminal: written where it is.
void write_in_place(std::string_view option, const OutputTarget& t, std::string_view text) {
  const int fd = ::open(t.resolved.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
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
  if (fd < 0) fail(option, t, errno);
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

}  // namespace

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  t.resolved = path;
  for (int hop = 0;; ++hop) {
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
  if (t.resolved == t.path) return fmt::format("'{}'", t.path);
  return fmt::format("'{}' (a link to '{}')", t.path, t.resolved);
}

std::string output_problem(const OutputTarget& t) {
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

void write_output(std::string_view option, const std::string& path, std::string_view text) {
  if (path == "-") {
    write_stdout(option, text);
    return;
  }
  const OutputTarget t = resolve_output(path);
  if (t.replaceable)
    replace(option, t, text);
  else
    write_in_place(option, t, text);
}

}  // namespace ep::bench
