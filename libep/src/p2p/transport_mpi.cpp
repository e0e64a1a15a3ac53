#include "p2p/transport_mpi.hpp"

#include <vector>

#include "object/error.hpp"

namespace ep::detail {

int mpi_send(RequestImpl* s, bool blocking) {
  Endpoint* self = s->endpoint;
  CommShared& shared = *self->shared;
  const Location to = shared.map.at(s->target);
  const bool sync = s->mode == SendMode::synchronous;
  const int mpi_tag = shared.tags.encode({sync, self->local, s->tag});
  MPI_Comm inbox = shared.inbox[static_cast<std::size_t>(to.local_rank)];

  // A blocking send may sit inside MPI_Send only if it cannot depend on its
  // receiver: the receiver's receive is posted in libep, not in MPI, so a
  // rendezvous-sized MPI_Send could wait on a peer that is itself stuck in
  // MPI_Send. Small messages go eagerly; larger ones are polled by the engine
  // so the endpoint keeps draining its own inbox while it waits.
  constexpr std::int64_t kBlockingSendLimit = 1024;
  if (blocking && !sync && std::int64_t{s->count} * s->layout.size <= kBlockingSendLimit) {
    const int rc = MPI_Send(s->buf, s->count, s->type, to.mpi_rank, mpi_tag, inbox);
    s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return rc;
  }
  if (sync) {
    const int ack_tag = shared.tags.encode({false, to.local_rank, s->tag});
    const int rc = MPI_Irecv(nullptr, 0, MPI_BYTE, to.mpi_rank, ack_tag,
                             shared.acks[static_cast<std::size_t>(self->local)], &s->mpi[1]);
    if (rc != MPI_SUCCESS) return rc;
  }
  const int rc = MPI_Isend(s->buf, s->count, s->type, to.mpi_rank, mpi_tag, inbox, &s->mpi[0]);
  s->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
  return rc;
}

int mpi_next_arrival(Endpoint* endpoint, Incoming** arrival) {
  *arrival = nullptr;
  const CommShared& shared = *endpoint->shared;
  MPI_Comm inbox = shared.inbox[static_cast<std::size_t>(endpoint->local)];
  int found = 0;
  MPI_Message handle = MPI_MESSAGE_NULL;
  MPI_Status status;
  int rc = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, inbox, &found, &handle, &status);
  if (rc != MPI_SUCCESS || !found) return rc;
  int bytes = 0;
  rc = MPI_Get_count(&status, MPI_BYTE, &bytes);
  if (rc != MPI_SUCCESS) return rc;

  const Envelope envelope = shared.tags.decode(status.MPI_TAG);
  auto* message = new Incoming;
  message->kind = Incoming::Kind::remote;
  message->source =
      shared.source_rank(shared.map.rank_of(status.MPI_SOURCE, envelope.source_local));
  message->tag = envelope.tag;
  message->bytes = bytes;
  message->mpi_message = handle;
  message->sync = envelope.sync;
  message->source_mpi_rank = status.MPI_SOURCE;
  message->source_local = envelope.source_local;
  *arrival = message;
  return MPI_SUCCESS;
}

int mpi_acknowledge(Endpoint* endpoint, const Incoming& message) {
  if (!message.sync) return MPI_SUCCESS;
  const CommShared& shared = *endpoint->shared;
  const int ack_tag = shared.tags.encode({false, endpoint->local, message.tag});
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Isend(nullptr, 0, MPI_BYTE, message.source_mpi_rank, ack_tag,
                     shared.acks[static_cast<std::size_t>(message.source_local)], &request);
  // Nobody waits for the ack to leave; MPI completes it on its own.
  if (rc == MPI_SUCCESS) rc = MPI_Request_free(&request);
  return rc;
}

namespace {

// A message longer than the receive buffer is received whole into scratch
// memory and only what fits is copied: Open MPI 4.1.4 writes past the end of
// the buffer of a truncated matched receive (heap corruption seen in
// p2p.truncation), and MPI promises nothing about the buffer's tail.
int receive_truncated(Incoming* message, RequestImpl* r) {
  std::vector<std::byte> scratch(static_cast<std::size_t>(message->bytes));
  const int rc = MPI_Mrecv(scratch.data(), static_cast<int>(message->bytes), MPI_BYTE,
                           &message->mpi_message, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS)
    unpack(scratch.data(), message->bytes, {r->buf, r->count, r->type, r->layout});
  r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  return rc;
}

}  // namespace

void mpi_receive(Incoming* message, RequestImpl* r, bool blocking) {
  r->remote_bytes = message->bytes;
  int rc = mpi_acknowledge(r->endpoint, *message);
  if (rc == MPI_SUCCESS && r->status.MPI_ERROR == MPI_ERR_TRUNCATE) {
    rc = receive_truncated(message, r);
  } else if (rc == MPI_SUCCESS) {
    if (blocking) {
      MPI_Status status;
      rc = MPI_Mrecv(r->buf, r->count, r->type, &message->mpi_message, &status);
      if (r->status.MPI_ERROR == MPI_SUCCESS && rc != MPI_SUCCESS) {
        r->status.MPI_ERROR = error_class_of(rc);
      }
      rc = MPI_SUCCESS;
      r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    } else {
      rc = MPI_Imrecv(r->buf, r->count, r->type, &message->mpi_message, &r->mpi[0]);
      r->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
    }
  }
  if (rc != MPI_SUCCESS) {
    if (r->status.MPI_ERROR == MPI_SUCCESS) r->status.MPI_ERROR = error_class_of(rc);
    r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  }
  delete message;
}

bool mpi_test(RequestImpl* r) {
  for (MPI_Request& request : r->mpi) {
    if (request == MPI_REQUEST_NULL) continue;
    int done = 0;
    MPI_Status status;
    const int rc = MPI_Test(&request, &done, &status);
    if (rc != MPI_SUCCESS) {
      // The receive's own truncation check (from the probed length) already
      // set MPI_ERR_TRUNCATE; any other failure is MPI's to report.
      if (r->status.MPI_ERROR == MPI_SUCCESS) r->status.MPI_ERROR = error_class_of(rc);
      request = MPI_REQUEST_NULL;
      continue;
    }
    if (!done) return false;
  }
  r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  return true;
}

int mpi_discard(Incoming* message) {
  // Received whole, like a truncated receive (receive_truncated says why a
  // smaller buffer is not safe).
  std::vector<std::byte> scratch(static_cast<std::size_t>(message->bytes));
  const int rc = MPI_Mrecv(scratch.data(), static_cast<int>(message->bytes), MPI_BYTE,
                           &message->mpi_message, MPI_STATUS_IGNORE);
  delete message;
  return rc;
}

}  // namespace ep::detail
