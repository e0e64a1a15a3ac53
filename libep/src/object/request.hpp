// The objects behind ep::Request and ep::Message, and queued messages.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/datatype.hpp"
#include "ep/types.hpp"

namespace ep::detail {

struct Endpoint;
struct RequestImpl;

enum class SendMode : std::uint8_t { standard, synchronous, ready };

/// A message that arrived at an endpoint before a receive matched it, in
/// the endpoint's unexpected queue. It is one of three kinds:
///  - eager: a small intra-process message, already packed into `data`;
///  - rendezvous: a large or synchronous intra-process message, still in the
///    sender's buffer; `sender` completes when the receiver has copied it;
///  - remote: a message from another process, taken off MPI by a matched
///    probe; its data stays inside MPI until MPI_Imrecv places it.
struct Incoming {
  enum class Kind : std::uint8_t { eager, rendezvous, remote };

  Incoming* next = nullptr;
  Kind kind = Kind::eager;
  int source = 0;  // endpoint rank of the sender
  int tag = 0;     // user tag
  std::int64_t bytes = 0;

  std::unique_ptr<std::byte[]> data;  // eager
  RequestImpl* sender = nullptr;      // rendezvous

  MPI_Message mpi_message = MPI_MESSAGE_NULL;  // remote
  bool sync = false;                           // remote: the sender waits for an ack
  int source_mpi_rank = -1;                    // remote
  int source_local = -1;                       // remote
};

/// The object behind ep::Request.
///
/// `state` is the only field another thread writes: an intra-process sender
/// that matches a posted receive (or a receiver that copies a rendezvous
/// send) fills in the status and then publishes `complete` with release
/// order; the owner reads it with acquire order.
struct RequestImpl {
  static constexpr std::uint32_t kMagic = 0x65707271;  // "eprq"

  // rma: Rput/Rget/Raccumulate/Rget_accumulate (ep/rma.hpp); complete from
  // the start (same-process copy) or in_mpi with mpi[0] the MPI request.
  enum class Kind : std::uint8_t { send, recv, rma };
  enum class State : std::uint8_t {
    inactive,  // persistent, not started (or completed and waited)
    posted,    // receive in the posted queue / rendezvous send waiting for its receiver
    in_mpi,    // handed to MPI: mpi[] holds the requests to test
    complete,
  };

  std::uint32_t magic = kMagic;
  Kind kind = Kind::send;
  SendMode mode = SendMode::standard;
  bool persistent = false;
  bool freed_by_user = false;  // Request_free while active: reclaim on completion
  Endpoint* endpoint = nullptr;

  // The operation's arguments (kept for persistent restarts).
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeLayout layout;
  int peer = 0;    // destination or source rank, as the user gave it
  int target = 0;  // sends: the destination's union rank (object/endpoint.hpp)
  int tag = 0;

  std::atomic<State> state{State::inactive};
  Status status;
  // Data transfer and, for a synchronous remote send, the acknowledgement.
  MPI_Request mpi[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  // A remote receive's real message length, which MPI does not report on truncation.
  std::int64_t remote_bytes = 0;

  RequestImpl* next = nullptr;  // link in the posted queue

  bool is_valid() const { return magic == kMagic; }
  bool is_active() const {
    const State s = state.load(std::memory_order_relaxed);
    return s != State::inactive;
  }
};

/// The object behind ep::Message: a message matched by Mprobe/Improbe.
struct MessageImpl {
  static constexpr std::uint32_t kMagic = 0x65706d73;  // "epms"
  std::uint32_t magic = kMagic;
  Endpoint* endpoint = nullptr;
  Incoming* incoming = nullptr;
};

}  // namespace ep::detail
