#include "p2p/buffered.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/backoff.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"
#include "p2p/engine.hpp"

namespace ep::detail {

namespace {

// A buffered message: `charged` bytes of the buffer from `offset`, and the
// send that carries its packed data.
struct Held {
  std::int64_t offset = 0;
  std::int64_t charged = 0;
  RequestImpl* send = nullptr;
};

// The buffer of one identity. `lock` guards everything: endpoints of one
// identity may run on several threads at once.
struct AttachedBuffer {
  std::mutex lock;
  std::byte* base = nullptr;  // nullptr: none attached
  std::int64_t size = 0;
  std::vector<Held> held;  // by offset
};

// The buffers of the identities of this process. An entry stays once made,
// so that a reference to it stays valid without the table's lock; there is
// one per identity that ever attached or sent buffered.
AttachedBuffer& buffer_of(std::int64_t identity) {
  static std::mutex lock;
  static std::unordered_map<std::int64_t, std::unique_ptr<AttachedBuffer>> buffers;
  std::lock_guard guard(lock);
  std::unique_ptr<AttachedBuffer>& entry = buffers[identity];
  if (!entry) entry = std::make_unique<AttachedBuffer>();
  return *entry;
}

// Gives back the space of the messages whose sends have completed. Called
// with b.lock held. Testing a buffered message's send touches only the
// request and MPI (start_buffered says why), so any thread of the identity
// may do it, and its endpoint may be gone.
void reclaim(AttachedBuffer& b) {
  std::erase_if(b.held, [](const Held& h) {
    if (!test_request(h.send)) return false;
    delete h.send;
    return true;
  });
}

// The first offset with `need` free bytes, or -1. Called with b.lock held.
std::int64_t place(const AttachedBuffer& b, std::int64_t need) {
  std::int64_t start = 0;
  for (const Held& h : b.held) {
    if (h.offset - start >= need) return start;
    start = h.offset + h.charged;
  }
  return b.size - start >= need ? start : -1;
}

std::int64_t free_bytes(const AttachedBuffer& b) {
  std::int64_t used = 0;
  for (const Held& h : b.held) used += h.charged;
  return b.size - used;
}

}  // namespace

int start_buffered(RequestImpl* r, const char* function) {
  Endpoint* e = r->endpoint;
  r->status = empty_status();
  if (r->peer == MPI_PROC_NULL) {
    r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }
  // What MPI tells the user to reserve for the message, which the packed data
  // (the bytes of the type signature: base/datatype.hpp) never exceeds.
  int pack_size = 0;
  int rc = MPI_Pack_size(r->count, r->type, e->shared->mpi_comm, &pack_size);
  if (rc != MPI_SUCCESS) return check_mpi(rc, e, function, "MPI_Pack_size");
  const std::int64_t bytes = std::int64_t{r->count} * r->layout.size;
  const std::int64_t charged = std::max<std::int64_t>(pack_size, bytes) + MPI_BSEND_OVERHEAD;

  AttachedBuffer& b = buffer_of(e->identity);
  std::lock_guard guard(b.lock);
  reclaim(b);
  if (!b.base) {
    return raise(e, MPI_ERR_BUFFER, function,
                 "no buffer is attached (Buffer_attach) for a buffered send of {} bytes", bytes);
  }
  const std::int64_t offset = place(b, charged);
  if (offset < 0) {
    return raise(e, MPI_ERR_BUFFER, function,
                 "the attached buffer has no room for {} bytes (Pack_size {} + "
                 "MPI_BSEND_OVERHEAD {}): {} of its {} bytes are free, in {} messages not yet "
                 "sent",
                 charged, pack_size, MPI_BSEND_OVERHEAD, free_bytes(b), b.size, b.held.size());
  }
  std::byte* data = b.base + offset;
  rc = pack({r->buf, r->count, r->type, r->layout}, data);
  if (rc != MPI_SUCCESS) return check_mpi(rc, e, function, "MPI_Pack into the attached buffer");

  // The packed bytes go as MPI_PACKED, which matches any receive type. The
  // send starts as a blocking one would: a small message to another process
  // leaves whole in one MPI_Send (which MPI completes without its receiver)
  // and a larger one is an MPI_Isend of the buffer's bytes, so the send
  // holds no inbox buffer of its endpoint's and nothing in its endpoint
  // refers to it; within a process it completes when it is copied (eager)
  // or when its receiver copies it (rendezvous). Testing it later therefore
  // needs neither its endpoint nor that endpoint's thread.
  auto send = std::make_unique<RequestImpl>();
  send->kind = RequestImpl::Kind::send;
  send->mode = SendMode::standard;
  send->endpoint = e;
  send->buf = data;
  send->count = static_cast<int>(bytes);
  send->type = MPI_PACKED;
  send->layout = TypeLayout{1, 1, 0, 1};
  send->peer = r->peer;
  send->tag = r->tag;
  rc = start_send(send.get(), /*blocking=*/true);
  if (rc != MPI_SUCCESS) return check_mpi(rc, e, function, "the MPI send below");
  if (send->state.load(std::memory_order_acquire) != RequestImpl::State::complete) {
    const auto at = std::find_if(b.held.begin(), b.held.end(),
                                 [offset](const Held& h) { return h.offset > offset; });
    b.held.insert(at, Held{offset, charged, send.release()});
  }
  r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  return MPI_SUCCESS;
}

int attach_buffer(Endpoint* endpoint, void* buffer, int size, const char* function) {
  AttachedBuffer& b = buffer_of(endpoint->identity);
  std::lock_guard guard(b.lock);
  if (b.base) {
    return raise(endpoint, MPI_ERR_BUFFER, function,
                 "a buffer of {} bytes is attached already to this endpoint (its identity, "
                 "shared by every communicator it belongs to): Buffer_detach it first",
                 b.size);
  }
  b.base = static_cast<std::byte*>(buffer);
  b.size = size;
  return MPI_SUCCESS;
}

void detach_buffer(Endpoint* endpoint, void** buffer, int* size) {
  AttachedBuffer& b = buffer_of(endpoint->identity);
  Backoff backoff;
  std::unique_lock guard(b.lock);
  for (reclaim(b); !b.held.empty(); reclaim(b)) {
    // A receive this endpoint posted may be what a peer needs before it
    // takes the message this endpoint sent it: MPI would progress both.
    guard.unlock();
    progress(endpoint);
    backoff.pause();
    guard.lock();
  }
  *buffer = b.base;
  *size = static_cast<int>(b.size);
  b.base = nullptr;
  b.size = 0;
}

}  // namespace ep::detail
