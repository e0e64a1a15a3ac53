// The test harness: one test source, two programs.
//
// A test defines `void eptest::run(eptest::Context&)` and calls the API as
// `api::Send`, `api::Comm`, `api::Status`, ... The build compiles it twice:
//   EPTEST_MODE_EP   api = ep        main() creates endpoints (--layout) and
//                                    runs `run` once per endpoint, one thread each;
//   EPTEST_MODE_MPI  api = mpi_shim  main() runs `run` once per MPI process.
// `run` writes deterministic lines with `t.out(...)`; the driver
// (run_test.sh) concatenates them in rank order for both programs and diffs.
// Checks count failures; main() reduces the counts over all ranks (with plain
// MPI on MPI_COMM_WORLD, after the endpoints are gone), prints one verdict and
// exits non-zero if any rank failed.
#pragma once

#include <fmt/format.h>
#include <mpi.h>

#include <map>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#if defined(EPTEST_MODE_EP)
#include <ep/ep.hpp>
namespace eptest {
namespace api = ::ep;
inline constexpr bool kEndpoints = true;
}  // namespace eptest
#elif defined(EPTEST_MODE_MPI)
#include "mpi_shim.hpp"
namespace eptest {
namespace api = ::eptest::mpi_shim;
inline constexpr bool kEndpoints = false;
}  // namespace eptest
#else
#error "compile with EPTEST_MODE_EP or EPTEST_MODE_MPI (use ep_add_mpi_test)"
#endif

namespace eptest {

class ProcessBarrier;

/// Extra `--key=value` arguments given to the test program after its own options.
class Params {
 public:
  void set(std::string key, std::string value) { values_[std::move(key)] = std::move(value); }
  int get_int(const std::string& key, int fallback) const;
  std::string get(const std::string& key, std::string fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

/// What one rank's test body sees: its communicator, its output, its failures.
/// Used by exactly one thread; nothing in it is shared between ranks.
class Context {
 public:
  Context(api::Comm comm, const Params& params, ProcessBarrier& barrier);

  api::Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const Params& params() const { return params_; }

  /// A barrier over all ranks that sends nothing on comm(): safe while
  /// wildcard receives are posted. Every rank must call it equally often.
  void barrier();

  /// Appends one line of deterministic output (compared across variants).
  template <typename... Args>
  void out(fmt::format_string<Args...> format, Args&&... args) {
    lines_.push_back(fmt::format(format, std::forward<Args>(args)...));
  }
  const std::vector<std::string>& lines() const { return lines_; }

  /// Counts a failure and reports it on stderr with the rank and the place.
  void fail(std::string_view what, std::source_location where = std::source_location::current());
  /// Fails unless `ok`. Returns `ok` so callers can stop early.
  bool check(bool ok, std::string_view what,
             std::source_location where = std::source_location::current());
  /// Fails unless actual == expected; the message shows both.
  template <typename A, typename E>
  bool expect_eq(const A& actual, const E& expected, std::string_view what,
                 std::source_location where = std::source_location::current()) {
    if (actual == expected) return true;
    fail(fmt::format("{}: got {}, expected {}", what, actual, expected), where);
    return false;
  }
  /// Fails unless rc == MPI_SUCCESS.
  bool check_rc(int rc, std::string_view call,
                std::source_location where = std::source_location::current());
  /// Fails unless rc is an error whose class is `error_class`.
  bool expect_class(int rc, int error_class, std::string_view call,
                    std::source_location where = std::source_location::current());

  int failures() const { return failures_; }

 private:
  api::Comm comm_;
  int rank_ = -1;
  int size_ = 0;
  const Params& params_;
  ProcessBarrier& barrier_;
  std::vector<std::string> lines_;
  int failures_ = 0;
};

/// The test body, defined once per test program. Runs once per rank.
void run(Context& t);

/// The name of an MPI error class, for messages ("MPI_ERR_TRUNCATE").
std::string error_class_name(int error_class);
/// The class of an error code, or -1 if MPI cannot classify it.
int error_class_of(int rc);

}  // namespace eptest
