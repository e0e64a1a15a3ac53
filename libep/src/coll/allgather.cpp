// ep::Allgather and ep::Allgatherv (Allgather is Allgatherv with equal blocks).
//
//   1. local:  every endpoint copies the blocks of its own process's ranks
//              straight from their send buffers into its receive buffer;
//   2. MPI:    meanwhile the leaders run one MPI_Alltoallw (coll/exchange.hpp):
//              each process's blocks go from their send buffers straight to
//              their places in every other process's leader's receive buffer;
//   3. spread: the other endpoints copy those blocks from the leader's
//              receive buffer (each byte crosses between processes once);
//      end:    a barrier of each process.
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

struct AllgatherArgs {
  ConstTyped send;  // this endpoint's block: its send buffer, or its place in recv (in place)
  RecvBlocks recv;
};

int allgather_mpi(const Meeting& m) {
  if (!m.multi_process()) return MPI_SUCCESS;
  const detail::CommShared& shared = m.shared();
  const RecvBlocks& into = m.args<AllgatherArgs>(0).recv;
  detail::Exchange exchange(shared.mpi_size);
  for (int q = 0; q < shared.mpi_size; ++q) {
    if (q == shared.mpi_rank) continue;
    for (int l = 0; l < m.size(); ++l) {
      const ConstTyped& send = m.args<AllgatherArgs>(l).send;
      exchange.send(q, send.buf, send.count, send.type);
    }
    for (const int r : shared.map.ranks_on(q)) {
      const Typed block = into.block(r);
      exchange.recv(q, block.buf, block.count, block.type);
    }
  }
  return exchange.run(shared.mpi_comm);
}

int allgather(detail::Endpoint* e, const AllgatherArgs& mine) {
  const detail::CommShared& shared = *e->shared;
  Meeting m(e, &mine);
  int rc = MPI_SUCCESS;
  if (m.leader()) {
    rc = allgather_mpi(m);  // 2
    m.signal(kMoved, rc);
  }
  int copy_rc = MPI_SUCCESS;
  for (int l = 0; l < m.size(); ++l) {  // 1
    const ConstTyped& from = m.args<AllgatherArgs>(l).send;
    const Typed to = mine.recv.block(shared.map.rank_of(shared.mpi_rank, l));
    if (from.buf != to.buf) detail::keep_first_error(&copy_rc, detail::copy_typed(from, to));
  }
  if (!m.leader() && m.multi_process()) {  // 3
    rc = m.wait(0, kMoved);
    const RecvBlocks& leaders = m.args<AllgatherArgs>(0).recv;
    for (int q = 0; q < shared.mpi_size && rc == MPI_SUCCESS; ++q) {
      if (q == shared.mpi_rank) continue;
      for (const int r : shared.map.ranks_on(q))
        detail::keep_first_error(&copy_rc,
                                 detail::copy_typed(leaders.block(r), mine.recv.block(r)));
    }
  }
  m.barrier();
  rc = m.leader() ? rc : m.wait(0, kMoved);
  detail::keep_first_error(&rc, copy_rc);
  return rc;
}

// Fills `args` from the public arguments, once recv.counts/displs are set;
// endpoint-local checks with stand-ins (see coll/checks.hpp).
void prepare(detail::Endpoint* e, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             void* recvbuf, MPI_Datatype recvtype, AllgatherArgs* args, detail::LocalError& err,
             detail::TypedScratch& stand_in) {
  const int ranks = e->shared->map.size();
  detail::local_type(&recvtype, &args->recv.layout, "recvtype", err);
  args->recv.buf = recvbuf;
  args->recv.type = recvtype;
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    int span = 0;
    for (int r = 0; r < ranks; ++r)
      span = std::max(span, args->recv.displs[r] + args->recv.counts[r]);
    stand_in =
        detail::TypedScratch(span, recvtype, args->recv.layout, detail::TypedScratch::Fill::zero);
    args->recv.buf = stand_in.base();
  }
  if (sendbuf == MPI_IN_PLACE) {
    args->send = args->recv.block(e->rank);
    return;
  }
  detail::local_count(&sendcount, "sendcount", err);
  detail::local_type(&sendtype, &args->send.layout, "sendtype", err);
  args->send = {sendbuf, sendcount, sendtype, args->send.layout};
}

// Allgather on an intra-communicator: every argument is endpoint-local.
int allgather_equal(const detail::Entered& in, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  AllgatherArgs args;
  detail::LocalError err;
  detail::TypedScratch stand_in;
  detail::local_count(&recvcount, "recvcount", err);
  const detail::EqualBlocks blocks(in.e->shared->map.size(), recvcount);
  args.recv.counts = blocks.counts.data();
  args.recv.displs = blocks.displs.data();
  prepare(in.e, sendbuf, sendcount, sendtype, recvbuf, recvtype, &args, err, stand_in);
  return err.finish(in.e, in.function, allgather(in.e, args), "MPI_Alltoallw or a local copy");
}

// Allgatherv on an intra-communicator: every argument is endpoint-local.
int allgather_v(const detail::Entered& in, const void* sendbuf, int sendcount,
                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype) {
  AllgatherArgs args;
  detail::LocalError err;
  detail::TypedScratch stand_in;
  const int ranks = in.e->shared->map.size();
  // Bad counts: take part with empty blocks, then report.
  const detail::EqualBlocks empty(ranks, 0);
  const bool counts_ok = detail::check_counts(recvcounts, ranks, "recvcounts", err) &&
                         (displs != nullptr || err.note(MPI_ERR_ARG, "displs is a null pointer"));
  args.recv.counts = counts_ok ? recvcounts : empty.counts.data();
  args.recv.displs = counts_ok ? displs : empty.displs.data();
  prepare(in.e, sendbuf, sendcount, sendtype, recvbuf, recvtype, &args, err, stand_in);
  return err.finish(in.e, in.function, allgather(in.e, args), "MPI_Alltoallw or a local copy");
}

// Allgather(v) on an inter-communicator: each group receives the other's
// blocks; Allgather's equal blocks of recvcount when `recvcounts` is null.
int allgather_inter(const detail::Entered& in, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs,
                    int recvcount, MPI_Datatype recvtype) {
  detail::LocalError err;
  const detail::ConstTyped send = detail::inter_block(
      sendbuf, sendcount, sendtype, {"sendcount", nullptr, "sendtype"}, "sendbuf", err);
  const std::vector<detail::Typed> recv = detail::inter_blocks(
      in, recvbuf, recvcounts, displs, recvcount, recvtype,
      {recvcounts ? "recvcounts" : "recvcount", "displs", "recvtype"}, "recvbuf", err);
  return detail::inter_allgather(in, send, recv, err);
}

}  // namespace

int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, Comm comm) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const detail::Entry entry{
      .function = "Allgather",
      .signature = {detail::CollId::Allgather, -1, in_place ? recvcount : sendcount,
                    in_place ? recvtype : sendtype}};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return allgather_equal(in, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      [&](const detail::Entered& in) {
        return allgather_inter(in, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr,
                               recvcount, recvtype);
      });
}

int Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, Comm comm) {
  const detail::Entry entry{.function = "Allgatherv",
                            .signature = {detail::CollId::Allgatherv, -1, -1}};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return allgather_v(in, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
      },
      [&](const detail::Entered& in) {
        return allgather_inter(in, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                               recvtype);
      });
}

}  // namespace ep
