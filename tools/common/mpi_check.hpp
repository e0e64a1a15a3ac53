// Checking MPI and libep return codes in the tools.
//
// A tool that loses a message or a rank half-way through a benchmark cannot
// recover: the peers of the failing thread would wait forever. So a failed
// call reports what failed, where, and the MPI error string, and then aborts
// the whole job.
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>

namespace ep::tools {

/// The name that prefixes the tools' messages ("ep-bench").
void set_program_name(std::string name);
const std::string& program_name();

/// The MPI error string of `code`, or "error code N" if MPI does not know it.
std::string mpi_error_string(int code);

/// Prints "<program>: <call> failed: <MPI error string> (<file>:<line>)" on
/// stderr and calls MPI_Abort on MPI_COMM_WORLD.
[[noreturn]] void abort_on_error(int code, std::string_view call, const char* file, int line);

/// Prints "<program>: <message>" on stderr and calls MPI_Abort: for broken
/// invariants found while other ranks are already waiting for this one.
[[noreturn]] void abort_job(std::string_view message);

/// Checks the return code of an MPI or libep call; cheap enough for hot loops.
/// The call site is found with __builtin_FILE/__builtin_LINE (GCC and Clang)
/// rather than std::source_location, which Clang 14's tools cannot parse
/// against libstdc++ 12.
inline void check(int code, std::string_view call, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
  if (code != MPI_SUCCESS) [[unlikely]] {
    abort_on_error(code, call, file, line);
  }
}

}  // namespace ep::tools
