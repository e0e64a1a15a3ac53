// Public functions around buffered sends and packed data: the buffer
// (Buffer_attach, Buffer_detach), Pack, Unpack, Pack_size, and Abort. The
// buffered sends themselves are in api_send_recv.cpp, beside the other
// send modes.
#include <cstdint>
#include <string>

#include "ep/p2p.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"
#include "p2p/buffered.hpp"
#include "p2p/checks.hpp"

namespace ep {

using detail::Endpoint;
using detail::raise;

int Buffer_attach(Comm comm, void* buffer, int size) {
  constexpr const char* fn = "Buffer_attach";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (size < 0) return raise(e, MPI_ERR_ARG, fn, "negative size {}", size);
  if (!buffer && size > 0) {
    return raise(e, MPI_ERR_BUFFER, fn, "the buffer is a null pointer for a size of {}", size);
  }
  return detail::attach_buffer(e, buffer, size, fn);
}

int Buffer_detach(Comm comm, void* buffer_addr, int* size) {
  constexpr const char* fn = "Buffer_detach";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!buffer_addr || !size) return raise(e, MPI_ERR_ARG, fn, "a result pointer is null");
  detail::detach_buffer(e, static_cast<void**>(buffer_addr), size);
  return MPI_SUCCESS;
}

namespace {

// The checks Pack and Unpack share: the endpoint, the typed buffer, and the
// packed buffer's position and size. `packed` bytes from *position must fit
// in `packed_size`: MPICH 4.0.2's MPI_Pack and MPI_Unpack do not check it
// (they write or read past the end), Open MPI 4.1.4's give MPI_ERR_TRUNCATE.
int check_packing(Comm comm, const void* typed_buf, int count, MPI_Datatype type,
                  const void* packed_buf, int packed_size, const int* position, const char* fn,
                  Endpoint** out) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!position) return raise(e, MPI_ERR_ARG, fn, "position is a null pointer");
  detail::TypeLayout layout;
  const int rc = detail::check_buffer(e, typed_buf, count, type, fn, &layout);
  if (rc != MPI_SUCCESS) return rc;
  if (packed_size < 0) return raise(e, MPI_ERR_ARG, fn, "negative packed size {}", packed_size);
  if (*position < 0 || *position > packed_size) {
    return raise(e, MPI_ERR_ARG, fn, "position {} is outside the packed buffer of {} bytes",
                 *position, packed_size);
  }
  const std::int64_t bytes = std::int64_t{count} * layout.size;
  if (bytes > packed_size - *position) {
    return raise(e, MPI_ERR_TRUNCATE, fn,
                 "{} packed bytes from position {} run past the packed buffer of {} bytes", bytes,
                 *position, packed_size);
  }
  if (bytes > 0 && !packed_buf) {
    return raise(e, MPI_ERR_BUFFER, fn, "the packed buffer is a null pointer");
  }
  *out = e;
  return MPI_SUCCESS;
}

}  // namespace

int Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
         int* position, Comm comm) {
  constexpr const char* fn = "Pack";
  Endpoint* e = nullptr;
  const int rc = check_packing(comm, inbuf, incount, datatype, outbuf, outsize, position, fn, &e);
  if (rc != MPI_SUCCESS) return rc;
  // The communicator's own MPI communicator: it returns errors to libep, and
  // all its processes share the native representation.
  return detail::check_mpi(
      MPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, e->shared->mpi_comm), e, fn,
      "MPI_Pack");
}

int Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
           MPI_Datatype datatype, Comm comm) {
  constexpr const char* fn = "Unpack";
  Endpoint* e = nullptr;
  const int rc = check_packing(comm, outbuf, outcount, datatype, inbuf, insize, position, fn, &e);
  if (rc != MPI_SUCCESS) return rc;
  return detail::check_mpi(
      MPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype, e->shared->mpi_comm), e, fn,
      "MPI_Unpack");
}

int Pack_size(int incount, MPI_Datatype datatype, Comm comm, int* size) {
  constexpr const char* fn = "Pack_size";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!size) return raise(e, MPI_ERR_ARG, fn, "size is a null pointer");
  if (incount < 0) return raise(e, MPI_ERR_COUNT, fn, "negative count {}", incount);
  if (datatype == MPI_DATATYPE_NULL) {
    return raise(e, MPI_ERR_TYPE, fn, "the datatype is MPI_DATATYPE_NULL");
  }
  return detail::check_mpi(MPI_Pack_size(incount, datatype, e->shared->mpi_comm, size), e, fn,
                           "MPI_Pack_size");
}

int Abort(Comm comm, int errorcode) {
  constexpr const char* fn = "Abort";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  detail::abort_job(fmt::format("libep: ep::{}: {}: called with error code {}\n", fn,
                                detail::describe(e), errorcode),
                    errorcode);
}

}  // namespace ep
