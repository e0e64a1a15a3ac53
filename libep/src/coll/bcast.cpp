// ep::Bcast.
//
// Algorithms, by name (coll/algorithm.hpp; the first exact and suitable wins):
//
//   mailbox  up to LocalTeam::kMailboxBytes:
//     1. local:  the root packs its data into a team mailbox (on the root's
//                process), posts it and leaves at once;
//     2. MPI:    the leaders broadcast the packed bytes (message_bcast,
//                coll/mpi_step.hpp; every process takes this path for this size), into
//                the mailbox on the other processes; the receiving leader
//                leaves at once as well;
//     3. spread: every other endpoint unpacks from the mailbox into its buffer.
//     Nobody waits for a reader: the mailbox is reused kMailboxes calls
//     later, once every endpoint has left this call.
//   direct   larger messages, or any size when forced:
//     1. local:  the root publishes its buffer;
//     2. MPI:    the leader broadcasts straight from the root's buffer, and
//                on the other processes receives into its own buffer;
//     3. spread: every other endpoint copies straight from that buffer (on
//                the root's process, at the same time as step 2); the owner
//                of the buffer waits until its readers are done.
//
// Each byte is copied once per receiving endpoint, by that endpoint, so a
// process's copies run in parallel. Endpoints may describe the data with
// different (signature-equal) datatypes, so readers always read through the
// writer's type (direct) or the packed bytes (mailbox), never their own.
#include <array>

#include "coll/algorithm.hpp"
#include "coll/entry.hpp"
#include "coll/inter.hpp"
#include "coll/mpi_step.hpp"
#include "ep/coll.hpp"
#include "team/meeting.hpp"

namespace ep {

namespace {

using detail::Meeting;
using detail::Typed;

constexpr int kReady = 1;  // direct: the data is readable, published or received

struct BcastCall {
  detail::Endpoint* e = nullptr;
  Typed data;
  detail::Location root;
};

int ibcast(const Meeting& m, void* data, int count, MPI_Datatype type, int root_process) {
  MPI_Request request = MPI_REQUEST_NULL;
  // complete() tests the request to completion; the MPI checker cannot see it.
  // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
  return detail::complete(
      MPI_Ibcast(data, count, type, root_process, m.shared().mpi_comm, &request), &request);
}

// The mailbox's bytes among the processes (coll/mpi_step.hpp says why
// messages rather than MPI_Ibcast).
int bcast_bytes(const Meeting& m, std::byte* box, int bytes, int root_process) {
  return detail::message_bcast(m.shared(), root_process, box, bytes);
}

int through_mailbox(const BcastCall& c) {
  Meeting m(c.e, &c.data);
  detail::LocalTeam& team = m.team();
  const int bytes = static_cast<int>(c.data.bytes());
  const bool root_here = c.root.mpi_rank == m.shared().mpi_rank;
  const int writer = root_here ? c.root.local_rank : 0;
  int rc = MPI_SUCCESS;
  if (m.local() == writer) {
    std::byte* box = team.mailbox_acquire(m.local(), m.call(), static_cast<std::size_t>(bytes));
    if (root_here) {
      rc = detail::pack(c.data, box);  // 1
    } else {
      rc = bcast_bytes(m, box, bytes, c.root.mpi_rank);  // 2
    }
    team.mailbox_post(m.call(), rc);
    // The leader broadcasts even after a failed pack, so that the other
    // processes are not left waiting.
    if (root_here && m.leader() && m.multi_process()) {
      detail::keep_first_error(&rc, bcast_bytes(m, box, bytes, c.root.mpi_rank));
    }
    if (!root_here && rc == MPI_SUCCESS) rc = detail::unpack(box, bytes, c.data);
    return rc;
  }
  rc = team.mailbox_wait(m.call());
  std::byte* box = team.mailbox(m.call());
  if (root_here && m.leader() && m.multi_process())
    detail::keep_first_error(&rc, bcast_bytes(m, box, bytes, c.root.mpi_rank));  // 2
  if (rc == MPI_SUCCESS) rc = detail::unpack(box, bytes, c.data);                // 3
  return rc;
}

int direct(const BcastCall& c) {
  Meeting m(c.e, &c.data);  // 1
  const bool root_here = c.root.mpi_rank == m.shared().mpi_rank;
  const int owner = root_here ? c.root.local_rank : 0;
  int rc = MPI_SUCCESS;
  if (m.local() == owner) {
    if (root_here) {
      m.signal(kReady);                       // local readers copy while the leader sends
      if (m.leader() && m.multi_process()) {  // 2
        rc = ibcast(m, c.data.buf, c.data.count, c.data.type, c.root.mpi_rank);
      }
    } else {
      rc = ibcast(m, c.data.buf, c.data.count, c.data.type, c.root.mpi_rank);
      m.signal(kReady, rc);
    }
    m.wait_readers(m.size() - 1);
    return rc;
  }
  rc = m.wait(owner, kReady);
  const Typed& source = m.args<Typed>(owner);
  if (root_here && m.leader() && m.multi_process()) {
    rc = ibcast(m, source.buf, source.count, source.type, c.root.mpi_rank);
  }
  if (rc == MPI_SUCCESS) rc = detail::copy_typed(source, c.data);  // 3
  m.read_done(owner);
  return rc;
}

bool fits_mailbox(const BcastCall& c) {
  return c.data.bytes() <= static_cast<std::int64_t>(detail::LocalTeam::kMailboxBytes);
}

constexpr std::array<detail::Algorithm<BcastCall>, 2> kAlgorithms{{
    {"mailbox", through_mailbox, fits_mailbox, detail::always},
    {"direct", direct, detail::always, detail::always},
}};

// Bcast on an intra-communicator, its agreed arguments checked. The buffer
// is endpoint-local: MPI_IN_PLACE is reported after taking part with a
// stand-in.
int bcast(const detail::Entered& in, void* buffer, int count, MPI_Datatype datatype, int root) {
  detail::LocalError err;
  detail::TypedScratch stand_in;
  BcastCall c{in.e, {buffer, count, datatype, in.layout}, in.e->shared->map.at(root)};
  if (buffer == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the buffer of Bcast");
    stand_in = detail::TypedScratch(count, datatype, in.layout, detail::TypedScratch::Fill::zero);
    c.data.buf = stand_in.base();
  }
  const int rc = detail::choose<BcastCall>(kAlgorithms, c).run(c);
  return err.finish(in.e, in.function, rc, "MPI_Ibcast or a local copy");
}

}  // namespace

int Bcast(void* buffer, int count, MPI_Datatype datatype, int root, Comm comm) {
  const detail::Entry entry{.function = "Bcast",
                            .signature = {detail::CollId::Bcast, root, count, datatype},
                            .root = root,
                            .count = count,
                            .type = datatype};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) { return bcast(in, buffer, count, datatype, root); },
      [&](const detail::Entered& in) {
        return detail::inter_bcast(in, {buffer, count, datatype, in.layout}, root);
      });
}

}  // namespace ep
