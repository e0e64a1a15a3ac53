// Raising errors as MPI does.
//
// Every public function checks its arguments and reports a violation through
// raise(): the error carries the MPI error class, the function, the endpoint
// and the reason. Under MPI_ERRORS_ARE_FATAL (the default) the message is
// printed and the job aborted; under MPI_ERRORS_RETURN the class is returned.
#pragma once

#include <fmt/format.h>
#include <mpi.h>

#include <string>
#include <string_view>

namespace ep::detail {

struct Endpoint;

/// Reports an error on `endpoint` (nullptr: an invalid handle; the handler of
/// MPI_COMM_WORLD applies). Returns `error_class` when the handler returns.
[[gnu::cold]] int raise(const Endpoint* endpoint, int error_class, const char* function,
                        std::string_view reason);

/// Reports an error through `handler` (an RMA window handle's, ep/rma.hpp):
/// returns `error_class` under MPI_ERRORS_RETURN, else prints "where: reason"
/// and aborts the job.
[[gnu::cold]] int raise_with(MPI_Errhandler handler, int error_class, const char* function,
                             std::string_view where, std::string_view reason);

/// Reports an error of a call on an MPI communicator (endpoint creation),
/// through that communicator's error handler.
[[gnu::cold]] int raise_on(MPI_Comm comm, int error_class, const char* function,
                           std::string_view reason);

// The formatting forms below are kept out of line and marked cold: inlined,
// the message's std::string and its clean-up landed in every checking
// function, whose passing path (the common case) then saved and restored
// registers and set up a frame on every call.
template <class... Args>
[[gnu::cold, gnu::noinline]] int raise_on(MPI_Comm comm, int error_class, const char* function,
                                          fmt::format_string<Args...> format, Args&&... args) {
  return raise_on(comm, error_class, function,
                  std::string_view(fmt::format(format, std::forward<Args>(args)...)));
}

template <class... Args>
[[gnu::cold, gnu::noinline]] int raise(const Endpoint* endpoint, int error_class,
                                       const char* function, fmt::format_string<Args...> format,
                                       Args&&... args) {
  return raise(endpoint, error_class, function,
               std::string_view(fmt::format(format, std::forward<Args>(args)...)));
}

/// Prints `message` and ends the job with MPI_Abort(MPI_COMM_WORLD, code).
/// Only the first thread of the process to get here aborts; the others wait
/// for it to end the process (concurrent MPI_Abort calls crash some MPIs).
[[noreturn]] void abort_job(std::string_view message, int code);

/// Turns the return code of an MPI call made inside libep into a libep
/// error, with MPI's own error string; MPI_SUCCESS passes through.
int check_mpi(int rc, const Endpoint* endpoint, const char* function, const char* mpi_call);

/// For a sequence of MPI calls that must all be made (releasing handles):
/// keeps the first failure in *rc.
inline void keep_first_error(int* rc, int call_rc) {
  if (*rc == MPI_SUCCESS) *rc = call_rc;
}

/// "endpoint 3 of communicator #2 (process 1, local endpoint 1)"
std::string describe(const Endpoint* endpoint);

/// The error class of an MPI error code (MPI_ERR_OTHER if MPI cannot say).
int error_class_of(int code);

/// MPI's text for an error code.
std::string mpi_error_string(int code);

/// A new reference to the predefined handler `handler` (MPI_ERRORS_RETURN or
/// MPI_ERRORS_ARE_FATAL) in *out, as MPI_Comm_get_errhandler hands out: the
/// caller may release it with MPI_Errhandler_free. Returns an MPI error code.
int errhandler_reference(MPI_Errhandler handler, MPI_Errhandler* out);

}  // namespace ep::detail
