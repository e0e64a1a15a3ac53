#include "object/error.hpp"

#include <cstdio>
#include <cstdlib>

#include "object/endpoint.hpp"

namespace ep::detail {

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return fmt::format("MPI error {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

std::string describe(const Endpoint* endpoint) {
  if (!endpoint) return "no endpoint";
  const CommShared& shared = *endpoint->shared;
  return fmt::format("endpoint {} of communicator #{} (MPI process {}, local endpoint {})",
                     endpoint->rank, shared.id, shared.mpi_rank, endpoint->local);
}

int error_class_of(int code) {
  int error_class = MPI_ERR_OTHER;
  if (MPI_Error_class(code, &error_class) != MPI_SUCCESS) return MPI_ERR_OTHER;
  return error_class;
}

namespace {

bool handler_returns(MPI_Comm comm) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS) return false;
  const bool returns = handler == MPI_ERRORS_RETURN;
  // Releases the reference MPI_Comm_get_errhandler made; were it to fail,
  // the answer would stand, and this path is already reporting an error.
  static_cast<void>(MPI_Errhandler_free(&handler));
  return returns;
}

[[noreturn]] void abort_with(int error_class, const char* function, std::string_view where,
                             std::string_view reason) {
  std::string message = fmt::format("libep: ep::{}: {}: {} ({})\n", function, where, reason,
                                    mpi_error_string(error_class));
  std::fputs(message.c_str(), stderr);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, error_class);  // should not return; if it does, abort here
  std::abort();
}

}  // namespace

int raise(const Endpoint* endpoint, int error_class, const char* function,
          std::string_view reason) {
  if (endpoint ? endpoint->errhandler == MPI_ERRORS_RETURN : handler_returns(MPI_COMM_WORLD)) {
    return error_class;
  }
  abort_with(error_class, function, endpoint ? describe(endpoint) : "invalid handle", reason);
}

int raise_on(MPI_Comm comm, int error_class, const char* function, std::string_view reason) {
  const bool valid = comm != MPI_COMM_NULL;
  if (handler_returns(valid ? comm : MPI_COMM_WORLD)) return error_class;
  abort_with(error_class, function, valid ? "on its parent communicator" : "invalid handle",
             reason);
}

int check_mpi(int rc, const Endpoint* endpoint, const char* function, const char* mpi_call) {
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(endpoint, error_class_of(rc), function, "{} failed: {}", mpi_call,
               mpi_error_string(rc));
}

}  // namespace ep::detail
