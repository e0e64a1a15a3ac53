// ep::Scatter and ep::Scatterv (Scatter is Scatterv with equal blocks).
//
//   1. local:  on the root's process every endpoint copies its block
//              straight out of the root's send buffer;
//   2. MPI:    the leaders run one MPI_Alltoallw (coll/exchange.hpp): the
//              blocks of every other process's ranks go from their places in
//              the root's send buffer straight into those endpoints' receive
//              buffers, whatever the rank layout;
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
using detail::SendBlocks;
using detail::Typed;

constexpr int kMoved = 1;

struct ScatterArgs {
  Typed recv;             // this endpoint's block
  bool in_place = false;  // the root keeps its block where it is
  SendBlocks send;        // the root's send buffer
};

// The leader's MPI step: the root's blocks for other processes, or this
// process's blocks from the root's process.
int scatter_mpi(const Meeting& m, detail::Location root) {
  if (!m.multi_process()) return MPI_SUCCESS;
  const detail::CommShared& shared = m.shared();
  detail::Exchange exchange(shared.mpi_size);
  if (root.mpi_rank == shared.mpi_rank) {
    const SendBlocks& send = m.args<ScatterArgs>(root.local_rank).send;
    for (int q = 0; q < shared.mpi_size; ++q) {
      if (q == shared.mpi_rank) continue;
      for (const int r : shared.map.ranks_on(q)) {
        const ConstTyped block = send.block(r);
        exchange.send(q, block.buf, block.count, block.type);
      }
    }
  } else {
    for (int l = 0; l < m.size(); ++l) {
      const Typed& recv = m.args<ScatterArgs>(l).recv;
      exchange.recv(root.mpi_rank, recv.buf, recv.count, recv.type);
    }
  }
  return exchange.run(shared.mpi_comm);
}

int scatter(detail::Endpoint* e, const ScatterArgs& mine, int root) {
  const detail::Location at = e->shared->map.at(root);
  Meeting m(e, &mine);
  int rc = MPI_SUCCESS;
  if (m.leader()) {
    rc = scatter_mpi(m, at);  // 2
    m.signal(kMoved, rc);
  }
  int copy_rc = MPI_SUCCESS;
  if (at.mpi_rank == e->shared->mpi_rank && !(e->rank == root && mine.in_place)) {
    const SendBlocks& send = m.args<ScatterArgs>(at.local_rank).send;  // 1
    copy_rc = detail::copy_typed(send.block(e->rank), mine.recv);
  }
  m.barrier();  // 3
  rc = m.leader() ? rc : m.wait(0, kMoved);
  detail::keep_first_error(&rc, copy_rc);
  return rc;
}

// The receive side, shared by both functions; its checks are endpoint-local
// (a bad argument is noted and replaced by an empty stand-in). The root may
// pass MPI_IN_PLACE; anyone else taking part with it gets an error.
void prepare_recv(detail::Endpoint* e, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  bool is_root, ScatterArgs* args, detail::LocalError& err,
                  detail::TypedScratch& stand_in) {
  args->in_place = is_root && recvbuf == MPI_IN_PLACE;
  if (args->in_place) return;
  detail::local_count(&recvcount, "recvcount", err);
  detail::local_type(&recvtype, &args->recv.layout, "recvtype", err);
  args->recv = {recvbuf, recvcount, recvtype, args->recv.layout};
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's alone (rank {} is not the root)", e->rank);
    stand_in = detail::TypedScratch(recvcount, recvtype, args->recv.layout,
                                    detail::TypedScratch::Fill::zero);
    args->recv.buf = stand_in.base();
  }
}

// The root's send side, once its blocks are known; a zeroed stand-in for a
// send buffer of MPI_IN_PLACE.
void prepare_send(const void* sendbuf, MPI_Datatype sendtype, ScatterArgs* args, int ranks,
                  detail::LocalError& err, detail::TypedScratch& stand_in) {
  detail::local_type(&sendtype, &args->send.layout, "sendtype", err);
  args->send.buf = sendbuf;
  args->send.type = sendtype;
  if (sendbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "sendbuf may not be MPI_IN_PLACE");
    int span = 0;
    for (int r = 0; r < ranks; ++r) {
      span = std::max(span, args->send.displs[r] + args->send.counts[r]);
    }
    stand_in =
        detail::TypedScratch(span, sendtype, args->send.layout, detail::TypedScratch::Fill::zero);
    args->send.buf = stand_in.base();
  }
}

// Scatter on an intra-communicator, its root checked; every other argument
// is endpoint-local.
int scatter_equal(const detail::Entered& in, const void* sendbuf, int sendcount,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root) {
  ScatterArgs args;
  detail::LocalError err;
  detail::TypedScratch recv_stand_in;
  detail::TypedScratch send_stand_in;
  const bool is_root = in.e->rank == root;
  const int ranks = in.e->shared->map.size();
  prepare_recv(in.e, recvbuf, recvcount, recvtype, is_root, &args, err, recv_stand_in);
  if (is_root) detail::local_count(&sendcount, "sendcount", err);
  const detail::EqualBlocks blocks(is_root ? ranks : 0, sendcount);
  if (is_root) {
    args.send.counts = blocks.counts.data();
    args.send.displs = blocks.displs.data();
    prepare_send(sendbuf, sendtype, &args, ranks, err, send_stand_in);
  }
  return err.finish(in.e, in.function, scatter(in.e, args, root), "MPI_Alltoallw or a local copy");
}

// Scatterv on an intra-communicator, its root checked; every other
// argument is endpoint-local.
int scatter_v(const detail::Entered& in, const void* sendbuf, const int sendcounts[],
              const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype, int root) {
  ScatterArgs args;
  detail::LocalError err;
  detail::TypedScratch recv_stand_in;
  detail::TypedScratch send_stand_in;
  const bool is_root = in.e->rank == root;
  const int ranks = in.e->shared->map.size();
  // A root with bad counts takes part with empty blocks, then reports.
  const detail::EqualBlocks empty(is_root ? ranks : 0, 0);
  prepare_recv(in.e, recvbuf, recvcount, recvtype, is_root, &args, err, recv_stand_in);
  if (is_root) {
    const bool counts_ok = detail::check_counts(sendcounts, ranks, "sendcounts", err) &&
                           (displs != nullptr || err.note(MPI_ERR_ARG, "displs is a null pointer"));
    args.send.counts = counts_ok ? sendcounts : empty.counts.data();
    args.send.displs = counts_ok ? displs : empty.displs.data();
    prepare_send(sendbuf, sendtype, &args, ranks, err, send_stand_in);
  }
  return err.finish(in.e, in.function, scatter(in.e, args, root), "MPI_Alltoallw or a local copy");
}

// Scatter(v) on an inter-communicator: the root (MPI_ROOT) sends, the
// remote group's endpoints receive; Scatter's equal blocks of sendcount when
// `sendcounts` is null.
int scatter_inter(const detail::Entered& in, const void* sendbuf, const int* sendcounts,
                  const int* displs, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root) {
  detail::LocalError err;
  std::vector<detail::ConstTyped> send;
  detail::Typed recv;
  if (root == MPI_ROOT) {
    send = detail::inter_blocks(in, sendbuf, sendcounts, displs, sendcount, sendtype,
                                {sendcounts ? "sendcounts" : "sendcount", "displs", "sendtype"},
                                "sendbuf", err);
  }
  if (root >= 0) {
    recv = detail::inter_block(recvbuf, recvcount, recvtype, {"recvcount", nullptr, "recvtype"},
                               "recvbuf", err);
  }
  return detail::inter_scatter(in, send, recv, root, err);
}

}  // namespace

int Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, Comm comm) {
  const detail::Entry entry{.function = "Scatter",
                            .signature = {.id = detail::CollId::Scatter,
                                          .root = root,
                                          .count = recvcount,
                                          .type = recvtype,
                                          .root_in_place = recvbuf == MPI_IN_PLACE,
                                          .root_count = sendcount,
                                          .root_type = sendtype},
                            .root = root};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return scatter_equal(in, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
      },
      [&](const detail::Entered& in) {
        return scatter_inter(in, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, root);
      });
}

int Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, Comm comm) {
  const detail::Entry entry{
      .function = "Scatterv", .signature = {detail::CollId::Scatterv, root, -1}, .root = root};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return scatter_v(in, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                         root);
      },
      [&](const detail::Entered& in) {
        return scatter_inter(in, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                             recvtype, root);
      });
}

}  // namespace ep
