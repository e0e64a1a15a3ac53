#include "object/endpoint.hpp"

#include "object/error.hpp"

namespace ep::detail {

int invalid_comm(Comm comm, const char* function) {
  return raise(nullptr, MPI_ERR_COMM, function,
               comm == nullptr
                   ? "the communicator is ep::COMM_NULL"
                   : "the communicator handle is not a live endpoint (freed, or not a handle)");
}

}  // namespace ep::detail
