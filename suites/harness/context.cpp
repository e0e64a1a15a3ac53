#include <cstdio>

#include "harness.hpp"
#include "sync.hpp"

namespace eptest {

namespace {
// A broken rank can fail thousands of payload checks; the first few say why.
constexpr int kReportedFailures = 20;
}  // namespace

int Params::get_int(const std::string& key, int fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : std::stoi(it->second);
}

std::string Params::get(const std::string& key, std::string fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

Context::Context(api::Comm comm, const Params& params, ProcessBarrier& barrier)
    : comm_(comm), params_(params), barrier_(barrier) {
  check_rc(api::Comm_rank(comm_, &rank_), "Comm_rank");
  check_rc(api::Comm_size(comm_, &size_), "Comm_size");
}

void Context::barrier() { barrier_.arrive_and_wait(); }

void Context::fail(std::string_view what, std::source_location where) {
  ++failures_;
  if (failures_ <= kReportedFailures) {
    // One fputs per failure keeps lines of concurrent ranks from interleaving.
    const std::string line =
        fmt::format("FAIL rank {} at {}:{}: {}\n", rank_, where.file_name(), where.line(), what);
    std::fputs(line.c_str(), stderr);
  } else if (failures_ == kReportedFailures + 1) {
    std::fputs(fmt::format("FAIL rank {}: further failures not shown\n", rank_).c_str(), stderr);
  }
}

bool Context::check(bool ok, std::string_view what, std::source_location where) {
  if (!ok) fail(what, where);
  return ok;
}

bool Context::check_rc(int rc, std::string_view call, std::source_location where) {
  if (rc == MPI_SUCCESS) return true;
  fail(fmt::format("{} returned {} ({})", call, rc, error_class_name(error_class_of(rc))), where);
  return false;
}

bool Context::expect_class(int rc, int error_class, std::string_view call,
                           std::source_location where) {
  const int actual = rc == MPI_SUCCESS ? MPI_SUCCESS : error_class_of(rc);
  if (actual == error_class) return true;
  fail(fmt::format("{} gave {}, expected {}", call, error_class_name(actual),
                   error_class_name(error_class)),
       where);
  return false;
}

int error_class_of(int rc) {
  int error_class = -1;
  if (MPI_Error_class(rc, &error_class) != MPI_SUCCESS) return -1;
  return error_class;
}

std::string error_class_name(int error_class) {
  switch (error_class) {
    case MPI_SUCCESS:
      return "MPI_SUCCESS";
    case MPI_ERR_BUFFER:
      return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE:
      return "MPI_ERR_TYPE";
    case MPI_ERR_TAG:
      return "MPI_ERR_TAG";
    case MPI_ERR_COMM:
      return "MPI_ERR_COMM";
    case MPI_ERR_RANK:
      return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST:
      return "MPI_ERR_REQUEST";
    case MPI_ERR_ROOT:
      return "MPI_ERR_ROOT";
    case MPI_ERR_ARG:
      return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER:
      return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN:
      return "MPI_ERR_INTERN";
    case MPI_ERR_IN_STATUS:
      return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING:
      return "MPI_ERR_PENDING";
    case MPI_ERR_UNSUPPORTED_OPERATION:
      return "MPI_ERR_UNSUPPORTED_OPERATION";
    // One-sided communication (ep/rma.hpp).
    case MPI_ERR_OP:
      return "MPI_ERR_OP";
    case MPI_ERR_WIN:
      return "MPI_ERR_WIN";
    case MPI_ERR_DISP:
      return "MPI_ERR_DISP";
    case MPI_ERR_SIZE:
      return "MPI_ERR_SIZE";
    case MPI_ERR_BASE:
      return "MPI_ERR_BASE";
    case MPI_ERR_LOCKTYPE:
      return "MPI_ERR_LOCKTYPE";
    case MPI_ERR_ASSERT:
      return "MPI_ERR_ASSERT";
    case MPI_ERR_RMA_RANGE:
      return "MPI_ERR_RMA_RANGE";
    case MPI_ERR_RMA_SYNC:
      return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_RMA_CONFLICT:
      return "MPI_ERR_RMA_CONFLICT";
    case MPI_ERR_RMA_ATTACH:
      return "MPI_ERR_RMA_ATTACH";
    case MPI_ERR_RMA_SHARED:
      return "MPI_ERR_RMA_SHARED";
    case MPI_ERR_RMA_FLAVOR:
      return "MPI_ERR_RMA_FLAVOR";
    case MPI_ERR_KEYVAL:
      return "MPI_ERR_KEYVAL";
    default:
      return fmt::format("error class {}", error_class);
  }
}

}  // namespace eptest
