// The objects behind ep::Request and ep::Message, and queued messages.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/datatype.hpp"
#include "base/held_type.hpp"
#include "ep/types.hpp"
#include "object/handle_pool.hpp"

namespace ep::detail {

struct Endpoint;
struct RequestImpl;

// buffered: Bsend/Ibsend/Bsend_init, whose message is packed into the
// attached buffer and sent from there (p2p/buffered.hpp).
enum class SendMode : std::uint8_t { standard, synchronous, ready, buffered };

/// A message that arrived at an endpoint before a receive matched it, in
/// the endpoint's unexpected queue. It is one of three kinds:
///  - eager: a small message, already packed (eager_data);
///  - rendezvous: a large or synchronous intra-process message, still in the
///    sender's buffer; `sender` completes when the receiver has copied it;
///  - remote: the notice of a bulk message from another process (p2p/
///    transport_mpi.hpp), whose data stays inside MPI until the receive that
///    matches the notice takes it. A small message from another process is
///    eager: it arrives whole.
struct Incoming {
  enum class Kind : std::uint8_t { eager, rendezvous, remote };

  Incoming* next = nullptr;
  Kind kind = Kind::eager;
  int source = 0;  // endpoint rank of the sender
  int tag = 0;     // user tag
  std::int64_t bytes = 0;

  RequestImpl* sender = nullptr;  // rendezvous

  /// Room for the `n` packed bytes of an eager message: in the object itself
  /// up to kInlineBytes (no second allocation for the small messages of a
  /// message-rate stream that beat their receives), else on the heap.
  std::byte* eager_room(std::int64_t n) {
    if (n <= kInlineBytes) return inline_data;
    data = std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(n));
    return data.get();
  }
  /// The packed bytes of an eager message.
  const std::byte* eager_data() const { return data ? data.get() : inline_data; }

  bool from_other_process = false;  // taken off MPI (eager or remote)
  int source_mpi_rank = -1;         // remote
  int source_local = -1;            // remote
  int bulk_number = -1;             // remote: the bulk message's tag on the bulk channel

 private:
  static constexpr std::int64_t kInlineBytes = 64;
  std::unique_ptr<std::byte[]> data;               // eager, longer than kInlineBytes
  alignas(8) std::byte inline_data[kInlineBytes];  // eager, up to kInlineBytes
};

/// What a request of an operation that is neither a send nor a receive
/// runs to move on (the non-blocking collectives, coll/nonblocking.hpp).
/// Its layer makes it; the completion functions of p2p/ call it.
class Deferred {
 public:
  virtual ~Deferred() = default;
  /// Moves the operation of `r` on; once it is over, fills r.status and
  /// publishes State::complete. Returns whether it is complete. Never blocks.
  virtual bool poll(RequestImpl& r) = 0;
  /// Why the operation failed, once it completed with an error.
  virtual std::string reason() const = 0;
};

/// The object behind ep::Request.
///
/// `state` is the only field another thread writes: an intra-process sender
/// that matches a posted receive (or a receiver that copies a rendezvous
/// send) fills in the status and then publishes `complete` with release
/// order; the owner reads it with acquire order.
///
/// Made with `new` it lives in the request pool (object/handle_pool.hpp) and
/// has a handle (handle_of); the blocking calls' requests on the stack have
/// none.
struct alignas(64) RequestImpl {
  // rma: Rput/Rget/Raccumulate/Rget_accumulate (ep/rma.hpp); complete from
  // the start (same-process copy) or in_mpi with `mpi` the MPI request.
  // coll: a non-blocking collective, posted until `deferred` completes it.
  enum class Kind : std::uint8_t { send, recv, rma, coll };
  enum class State : std::uint8_t {
    inactive,  // persistent, not started (or completed and waited)
    posted,    // receive in the posted queue / rendezvous send waiting for its receiver
    in_mpi,    // handed to MPI: `mpi` is the request to test
    complete,
  };
  // Receives that MPI serves (p2p/transport_mpi.hpp): posted in MPI for
  // the inbox message, or taking the bulk message it announced.
  enum class Phase : std::uint8_t { none, inbox, bulk };

  // The fields are in two cache lines by what another thread touches: an
  // intra-process sender that matches a posted receive reads the first to
  // match (peer, tag, next) and writes its status and state there, and reads
  // the second to copy (buffer, count, layout). The receiver, waiting, reads
  // the first alone (with the data of a small blocking receive, below).
  // Spread over four lines, a ping-pong between two endpoints of one
  // process moved each of them between the cores.
  std::atomic<State> state{State::inactive};
  Kind kind = Kind::send;
  SendMode mode = SendMode::standard;
  bool persistent = false;
  bool held = false;           // counted in its endpoint's requests_held (new_request)
  bool freed_by_user = false;  // Request_free while active: reclaim on completion
  Phase phase = Phase::none;
  // Whether an intra-process sender may leave the data of a message of up
  // to kInlineBytes (contiguous on both sides) in inline_data rather than in
  // the buffer, so that the receiver's wait and the data share one cache
  // line; the owner then moves it (take_inline, from test_request). A
  // receive accepts when it starts; the sender that matches it takes the
  // way with accepted -> held. Request_free of a receive still under way
  // refuses first (accepted -> refused), since a freed request's data must
  // reach its buffer when it completes, not when it is next tested, or waits
  // for the sender that holds it (p2p/internal.cpp, internal_release). A
  // blocking receive, which nobody can free, accepts for good: its sender
  // stores held without a locked compare-and-swap.
  enum class Inline : std::uint8_t { refused, accepted, accepted_for_good, held };
  std::atomic<Inline> inline_data_state{Inline::refused};
  Status status;
  int peer = 0;  // destination or source rank, as the user gave it
  int tag = 0;
  RequestImpl* next = nullptr;  // link in the posted queue
  static constexpr int kInlineBytes = 8;
  std::byte inline_data[kInlineBytes];

  // The operation's arguments (kept for persistent restarts).
  void* buf = nullptr;
  int count = 0;
  int target = 0;  // sends: the destination's union rank (object/endpoint.hpp)
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeLayout layout;
  Endpoint* endpoint = nullptr;
  HeldType held_type;  // when holding, `type` is its duplicate (hold_type), freed with it

  // The MPI operation under way while in_mpi.
  MPI_Request mpi = MPI_REQUEST_NULL;
  // In the inbox phase: the next receive of the endpoint posted in MPI with
  // the same envelope; and, while it heads its envelope's queue, its index in
  // Endpoint::inbox_heads and the queue's last receive.
  RequestImpl* inbox_next = nullptr;
  RequestImpl* inbox_last = nullptr;
  std::uint32_t inbox_slot = 0;
  // The inbox message of a small remote send, or of a receive posted in MPI.
  std::unique_ptr<std::byte[]> wire;

  std::unique_ptr<Deferred> deferred;  // Kind::coll

  RequestImpl() = default;
  RequestImpl(const RequestImpl&) = delete;
  RequestImpl& operator=(const RequestImpl&) = delete;
  ~RequestImpl() = default;

  // Over-aligned: both forms, so that `new` and `delete` find the pool
  // whichever they look for.
  static void* operator new(std::size_t size);
  static void* operator new(std::size_t size, std::align_val_t);
  static void operator delete(void* storage);
  static void operator delete(void* storage, std::align_val_t);

  /// What a receive reports once a message of `bytes` bytes from `source`
  /// with `tag` has matched it, before its data moves.
  void set_matched(int source, int tag_matched, std::int64_t bytes) {
    status.MPI_SOURCE = source;
    status.MPI_TAG = tag_matched;
    status.count_bytes = bytes;
    status.cancelled = 0;
    status.MPI_ERROR = bytes > std::int64_t{count} * layout.size ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  }

  bool is_active() const {
    const State s = state.load(std::memory_order_relaxed);
    return s != State::inactive;
  }
};

using RequestPool = HandlePool<RequestImpl>;

inline void* RequestImpl::operator new(std::size_t /*size*/) { return RequestPool::allocate(); }
inline void* RequestImpl::operator new(std::size_t /*size*/, std::align_val_t) {
  return RequestPool::allocate();
}
inline void RequestImpl::operator delete(void* storage) { RequestPool::release(storage); }
inline void RequestImpl::operator delete(void* storage, std::align_val_t) {
  RequestPool::release(storage);
}

/// The handle of a request made with `new` whose handle is live.
inline Request handle_of(const RequestImpl* r) {
  return reinterpret_cast<Request>(RequestPool::handle(r));
}
/// The request behind a handle, or nullptr for REQUEST_NULL and for freed
/// and garbage handles (handle_pool.hpp says which).
inline RequestImpl* valid_request(Request handle) {
  return RequestPool::live(reinterpret_cast<std::uintptr_t>(handle));
}
/// The request behind a handle that valid_request accepted.
inline RequestImpl* request_of(Request handle) {
  return RequestPool::object(reinterpret_cast<std::uintptr_t>(handle));
}

/// The object behind ep::Message: a message matched by Mprobe/Improbe. In
/// a pool, as requests are, so that a received (freed) message's handle is
/// refused without reading freed memory.
struct MessageImpl {
  Endpoint* endpoint = nullptr;
  Incoming* incoming = nullptr;

  static void* operator new(std::size_t size);
  static void operator delete(void* storage);
};

using MessagePool = HandlePool<MessageImpl>;

inline void* MessageImpl::operator new(std::size_t /*size*/) { return MessagePool::allocate(); }
inline void MessageImpl::operator delete(void* storage) { MessagePool::release(storage); }

inline Message handle_of(const MessageImpl* m) {
  return reinterpret_cast<Message>(MessagePool::handle(m));
}
/// The message behind a handle, or nullptr for MESSAGE_NULL, MESSAGE_NO_PROC,
/// received and garbage handles.
inline MessageImpl* valid_message(Message handle) {
  return MessagePool::live(reinterpret_cast<std::uintptr_t>(handle));
}
/// The message behind a handle that valid_message accepted.
inline MessageImpl* message_of(Message handle) {
  return MessagePool::object(reinterpret_cast<std::uintptr_t>(handle));
}

}  // namespace ep::detail
