// ep::Gather and ep::Gatherv (Gather is Gatherv with equal blocks).
//
//   1. local:  on the root's process every endpoint copies its block
//              straight into the root's receive buffer, at its rank's place;
//   2. MPI:    the leaders run one MPI_Alltoallw (coll/exchange.hpp): every
//              other process's blocks go from their endpoints' send buffers
//              straight to their places in the root's receive buffer, so
//              interleaved rank layouts need no reordering pass;
//   3. end:    a barrier of each process (nobody uses another's buffers after).
#include <algorithm>

#include "coll/entry.hpp"
#include "coll/exchange.hpp"
#include "coll/inter.hpp"
#include "coll/movement.hpp"
#include "ep/coll.hpp"
#include "team/meeting.hpp"

namespace ep {

namespace {

using detail::ConstTyped;
using detail::Meeting;
using detail::RecvBlocks;
using detail::Typed;

constexpr int kMoved = 1;

struct GatherArgs {
  ConstTyped send;        // this endpoint's block
  bool in_place = false;  // the root's block is already in place
  RecvBlocks recv;        // the root's receive buffer
};

// The leader's MPI step: blocks of other processes into the root's buffer,
// or this process's blocks to the root's process.
int gather_mpi(const Meeting& m, detail::Location root) {
  if (!m.multi_process()) return MPI_SUCCESS;
  const detail::CommShared& shared = m.shared();
  detail::Exchange exchange(shared.mpi_size);
  if (root.mpi_rank == shared.mpi_rank) {
    const RecvBlocks& recv = m.args<GatherArgs>(root.local_rank).recv;
    for (int q = 0; q < shared.mpi_size; ++q) {
      if (q == shared.mpi_rank) continue;
      for (const int r : shared.map.ranks_on(q)) {
        const Typed block = recv.block(r);
        exchange.recv(q, block.buf, block.count, block.type);
      }
    }
  } else {
    for (int l = 0; l < m.size(); ++l) {
      const ConstTyped& send = m.args<GatherArgs>(l).send;
      exchange.send(root.mpi_rank, send.buf, send.count, send.type);
    }
  }
  return exchange.run(shared.mpi_comm);
}

int gather(detail::Endpoint* e, const GatherArgs& mine, int root) {
  const detail::Location at = e->shared->map.at(root);
  Meeting m(e, &mine);
  int rc = MPI_SUCCESS;
  if (m.leader()) {
    rc = gather_mpi(m, at);  // 2
    m.signal(kMoved, rc);
  }
  int copy_rc = MPI_SUCCESS;
  if (at.mpi_rank == e->shared->mpi_rank && !(e->rank == root && mine.in_place)) {
    const RecvBlocks& recv = m.args<GatherArgs>(at.local_rank).recv;  // 1
    copy_rc = detail::copy_typed(mine.send, recv.block(e->rank));
  }
  m.barrier();  // 3
  rc = m.leader() ? rc : m.wait(0, kMoved);
  detail::keep_first_error(&rc, copy_rc);
  return rc;
}

// The send side, shared by both functions. Its checks are endpoint-local:
// a bad argument is noted and replaced by an empty stand-in. The root may
// pass MPI_IN_PLACE; anyone else taking part with it gets an error.
void prepare_send(detail::Endpoint* e, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  bool is_root, GatherArgs* args, detail::LocalError& err,
                  detail::TypedScratch& stand_in) {
  args->in_place = is_root && sendbuf == MPI_IN_PLACE;
  if (args->in_place) return;
  detail::local_count(&sendcount, "sendcount", err);
  detail::local_type(&sendtype, &args->send.layout, "sendtype", err);
  args->send = {sendbuf, sendcount, sendtype, args->send.layout};
  if (sendbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's alone (rank {} is not the root)", e->rank);
    stand_in = detail::TypedScratch(sendcount, sendtype, args->send.layout,
                                    detail::TypedScratch::Fill::zero);
    args->send.buf = stand_in.base();
  }
}

// The root's receive side, once its blocks are known; a stand-in for a
// receive buffer of MPI_IN_PLACE.
void prepare_recv(void* recvbuf, MPI_Datatype recvtype, GatherArgs* args, int ranks,
                  detail::LocalError& err, detail::TypedScratch& stand_in) {
  detail::local_type(&recvtype, &args->recv.layout, "recvtype", err);
  args->recv.buf = recvbuf;
  args->recv.type = recvtype;
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    int span = 0;
    for (int r = 0; r < ranks; ++r) {
      span = std::max(span, args->recv.displs[r] + args->recv.counts[r]);
    }
    stand_in =
        detail::TypedScratch(span, recvtype, args->recv.layout, detail::TypedScratch::Fill::zero);
    args->recv.buf = stand_in.base();
  }
}

// Gather on an intra-communicator, its root checked; every other argument
// is endpoint-local.
int gather_equal(const detail::Entered& in, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root) {
  GatherArgs args;
  detail::LocalError err;
  detail::TypedScratch send_stand_in;
  detail::TypedScratch recv_stand_in;
  const bool is_root = in.e->rank == root;
  const int ranks = in.e->shared->map.size();
  prepare_send(in.e, sendbuf, sendcount, sendtype, is_root, &args, err, send_stand_in);
  if (is_root) detail::local_count(&recvcount, "recvcount", err);
  const detail::EqualBlocks blocks(is_root ? ranks : 0, recvcount);
  if (is_root) {
    args.recv.counts = blocks.counts.data();
    args.recv.displs = blocks.displs.data();
    prepare_recv(recvbuf, recvtype, &args, ranks, err, recv_stand_in);
  }
  return err.finish(in.e, in.function, gather(in.e, args, root), "MPI_Alltoallw or a local copy");
}

// Gatherv on an intra-communicator, its root checked; every other argument
// is endpoint-local.
int gather_v(const detail::Entered& in, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
             int root) {
  GatherArgs args;
  detail::LocalError err;
  detail::TypedScratch send_stand_in;
  detail::TypedScratch recv_stand_in;
  const bool is_root = in.e->rank == root;
  const int ranks = in.e->shared->map.size();
  // A root with bad counts takes part with empty blocks, then reports.
  const detail::EqualBlocks empty(is_root ? ranks : 0, 0);
  prepare_send(in.e, sendbuf, sendcount, sendtype, is_root, &args, err, send_stand_in);
  if (is_root) {
    const bool counts_ok = detail::check_counts(recvcounts, ranks, "recvcounts", err) &&
                           (displs != nullptr || err.note(MPI_ERR_ARG, "displs is a null pointer"));
    args.recv.counts = counts_ok ? recvcounts : empty.counts.data();
    args.recv.displs = counts_ok ? displs : empty.displs.data();
    prepare_recv(recvbuf, recvtype, &args, ranks, err, recv_stand_in);
  }
  return err.finish(in.e, in.function, gather(in.e, args, root), "MPI_Alltoallw or a local copy");
}

// Gather(v) on an inter-communicator: the remote group's endpoints send, the
// root (MPI_ROOT) receives; Gather's equal blocks of recvcount when
// `recvcounts` is null.
int gather_inter(const detail::Entered& in, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs,
                 int recvcount, MPI_Datatype recvtype, int root) {
  detail::LocalError err;
  detail::ConstTyped send;
  std::vector<detail::Typed> recv;
  if (root >= 0) {
    send = detail::inter_block(sendbuf, sendcount, sendtype, {"sendcount", nullptr, "sendtype"},
                               "sendbuf", err);
  }
  if (root == MPI_ROOT) {
    recv = detail::inter_blocks(in, recvbuf, recvcounts, displs, recvcount, recvtype,
                                {recvcounts ? "recvcounts" : "recvcount", "displs", "recvtype"},
                                "recvbuf", err);
  }
  return detail::inter_gather(in, send, recv, root, err);
}

}  // namespace

int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, Comm comm) {
  const detail::Entry entry{.function = "Gather",
                            .signature = {.id = detail::CollId::Gather,
                                          .root = root,
                                          .count = sendcount,
                                          .type = sendtype,
                                          .root_in_place = sendbuf == MPI_IN_PLACE,
                                          .root_count = recvcount,
                                          .root_type = recvtype},
                            .root = root};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return gather_equal(in, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
      },
      [&](const detail::Entered& in) {
        return gather_inter(in, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount,
                            recvtype, root);
      });
}

int Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            Comm comm) {
  const detail::Entry entry{
      .function = "Gatherv", .signature = {detail::CollId::Gatherv, root, -1}, .root = root};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return gather_v(in, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                        root);
      },
      [&](const detail::Entered& in) {
        return gather_inter(in, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                            recvtype, root);
      });
}

}  // namespace ep
