// A worker's connection to its peer in a point-to-point pattern, one type per
// implementation. The kernels are templates over the link so that every
// implementation is called directly: the comparison should measure the
// libraries, not an indirection of the harness.
#pragma once

#include <mpi.h>

#include <ep/ep.hpp>
#include <span>

#include "mpi_check.hpp"

namespace ep::bench {

/// Plain MPI: a rank of a communicator of processes (--impl mpi) or a rank of
/// a per-pair duplicate that threads share (--impl mpi-threads).
struct MpiLink {
  using Request = MPI_Request;
  MPI_Comm comm = MPI_COMM_NULL;
  int peer = MPI_PROC_NULL;

  void send(const void* buf, int bytes, int tag) const {
    tools::check(MPI_Send(buf, bytes, MPI_BYTE, peer, tag, comm), "MPI_Send");
  }
  void recv(void* buf, int bytes, int tag) const {
    tools::check(MPI_Recv(buf, bytes, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  }
  /// Receives and returns the number of bytes that arrived.
  int recv_counted(void* buf, int bytes, int tag) const {
    MPI_Status status;
    tools::check(MPI_Recv(buf, bytes, MPI_BYTE, peer, tag, comm, &status), "MPI_Recv");
    int count = 0;
    tools::check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    return count;
  }
  void isend(const void* buf, int bytes, int tag, Request* request) const {
    tools::check(MPI_Isend(buf, bytes, MPI_BYTE, peer, tag, comm, request), "MPI_Isend");
  }
  void irecv(void* buf, int bytes, int tag, Request* request) const {
    tools::check(MPI_Irecv(buf, bytes, MPI_BYTE, peer, tag, comm, request), "MPI_Irecv");
  }
  void waitall(std::span<Request> requests) const {
    tools::check(
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  }
};

/// libep: an endpoint and the rank of its peer endpoint.
struct EpLink {
  using Request = ep::Request;
  ep::Comm comm = ep::COMM_NULL;
  int peer = MPI_PROC_NULL;

  void send(const void* buf, int bytes, int tag) const {
    tools::check(ep::Send(buf, bytes, MPI_BYTE, peer, tag, comm), "ep::Send");
  }
  void recv(void* buf, int bytes, int tag) const {
    tools::check(ep::Recv(buf, bytes, MPI_BYTE, peer, tag, comm, ep::STATUS_IGNORE), "ep::Recv");
  }
  int recv_counted(void* buf, int bytes, int tag) const {
    ep::Status status;
    tools::check(ep::Recv(buf, bytes, MPI_BYTE, peer, tag, comm, &status), "ep::Recv");
    int count = 0;
    tools::check(ep::Get_count(&status, MPI_BYTE, &count), "ep::Get_count");
    return count;
  }
  void isend(const void* buf, int bytes, int tag, Request* request) const {
    tools::check(ep::Isend(buf, bytes, MPI_BYTE, peer, tag, comm, request), "ep::Isend");
  }
  void irecv(void* buf, int bytes, int tag, Request* request) const {
    tools::check(ep::Irecv(buf, bytes, MPI_BYTE, peer, tag, comm, request), "ep::Irecv");
  }
  void waitall(std::span<Request> requests) const {
    tools::check(
        ep::Waitall(static_cast<int>(requests.size()), requests.data(), ep::STATUSES_IGNORE),
        "ep::Waitall");
  }
};

}  // namespace ep::bench
