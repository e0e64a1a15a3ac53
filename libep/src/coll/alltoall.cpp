// ep::Alltoall, ep::Alltoallv and ep::Alltoallw (Alltoall is Alltoallv with
// equal blocks; Alltoallw gives every block whole, SendBlocks::each).
//
//   1. local:  every endpoint copies the blocks its own process's ranks
//              send it, straight from their send buffers;
//   2. MPI:    meanwhile the leaders run one MPI_Alltoallw (coll/exchange.hpp)
//              that moves every block between processes straight from its
//              sender's send buffer into its receiver's receive buffer;
//   3. end:    a barrier of each process.
// The pieces between two processes are listed by (sending local rank,
// receiving local rank) on both sides, which gives both the same order.
// MPI_IN_PLACE: an endpoint first copies its receive buffer aside and sends
// from the copy, since its blocks are overwritten while others read them.
#include <algorithm>

#include "coll/blocks.hpp"
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
using detail::SendBlocks;
using detail::Typed;

constexpr int kMoved = 1;

struct AlltoallArgs {
  SendBlocks send;
  RecvBlocks recv;
};

int alltoall_mpi(const Meeting& m) {
  if (!m.multi_process()) return MPI_SUCCESS;
  const detail::CommShared& shared = m.shared();
  detail::Exchange exchange(shared.mpi_size);
  for (int q = 0; q < shared.mpi_size; ++q) {
    if (q == shared.mpi_rank) continue;
    const auto peers = shared.map.ranks_on(q);
    for (int l = 0; l < m.size(); ++l) {
      const SendBlocks& send = m.args<AlltoallArgs>(l).send;
      for (const int d : peers) {
        const ConstTyped block = send.block(d);
        exchange.send(q, block.buf, block.count, block.type);
      }
    }
    for (const int s : peers) {
      for (int l = 0; l < m.size(); ++l) {
        const Typed block = m.args<AlltoallArgs>(l).recv.block(s);
        exchange.recv(q, block.buf, block.count, block.type);
      }
    }
  }
  return exchange.run(shared.mpi_comm);
}

int alltoall(detail::Endpoint* e, const AlltoallArgs& mine) {
  const detail::CommShared& shared = *e->shared;
  Meeting m(e, &mine);
  int rc = MPI_SUCCESS;
  if (m.leader()) {
    rc = alltoall_mpi(m);  // 2
    m.signal(kMoved, rc);
  }
  int copy_rc = MPI_SUCCESS;
  for (int l = 0; l < m.size(); ++l) {  // 1
    const ConstTyped from = m.args<AlltoallArgs>(l).send.block(e->rank);
    const Typed to = mine.recv.block(shared.map.rank_of(shared.mpi_rank, l));
    detail::keep_first_error(&copy_rc, detail::copy_typed(from, to));
  }
  m.barrier();  // 3
  rc = m.leader() ? rc : m.wait(0, kMoved);
  detail::keep_first_error(&rc, copy_rc);
  return rc;
}

int span_of(const RecvBlocks& b, int ranks) {
  int span = 0;
  for (int r = 0; r < ranks; ++r) span = std::max(span, b.displs[r] + b.counts[r]);
  return span;
}

// Fills the buffers of `args` once their counts and displacements are set;
// endpoint-local checks with stand-ins (see coll/checks.hpp).
void prepare(int ranks, const void* sendbuf, MPI_Datatype sendtype, void* recvbuf,
             MPI_Datatype recvtype, AlltoallArgs* args, detail::LocalError& err,
             detail::TypedScratch& recv_stand_in, detail::TypedScratch& send_copy) {
  detail::local_type(&recvtype, &args->recv.layout, "recvtype", err);
  args->recv.buf = recvbuf;
  args->recv.type = recvtype;
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    recv_stand_in = detail::TypedScratch(span_of(args->recv, ranks), recvtype, args->recv.layout,
                                         detail::TypedScratch::Fill::zero);
    args->recv.buf = recv_stand_in.base();
  }
  if (sendbuf != MPI_IN_PLACE) {
    detail::local_type(&sendtype, &args->send.layout, "sendtype", err);
    args->send.buf = sendbuf;
    args->send.type = sendtype;
    return;
  }
  // In place: send what the receive buffer holds now, from a copy.
  const int span = span_of(args->recv, ranks);
  send_copy = detail::TypedScratch(span, recvtype, args->recv.layout);
  err.note_mpi(
      detail::copy_typed(detail::ConstTyped{args->recv.buf, span, recvtype, args->recv.layout},
                         send_copy.typed()),
      "copying the receive buffer aside");
  args->send = {send_copy.base(), args->recv.counts, args->recv.displs, recvtype,
                args->recv.layout};
}

// Alltoall on an intra-communicator: every argument is endpoint-local.
int alltoall_equal(const detail::Entered& in, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  AlltoallArgs args;
  detail::LocalError err;
  detail::TypedScratch recv_stand_in;
  detail::TypedScratch send_copy;
  const int ranks = in.e->shared->map.size();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  detail::local_count(&recvcount, "recvcount", err);
  if (!in_place) detail::local_count(&sendcount, "sendcount", err);
  const detail::EqualBlocks recv_blocks(ranks, recvcount);
  const detail::EqualBlocks send_blocks(ranks, in_place ? 0 : sendcount);
  args.recv.counts = recv_blocks.counts.data();
  args.recv.displs = recv_blocks.displs.data();
  args.send.counts = send_blocks.counts.data();
  args.send.displs = send_blocks.displs.data();
  prepare(ranks, sendbuf, sendtype, recvbuf, recvtype, &args, err, recv_stand_in, send_copy);
  return err.finish(in.e, in.function, alltoall(in.e, args), "MPI_Alltoallw or a local copy");
}

// Alltoallv on an intra-communicator: every argument is endpoint-local.
int alltoall_v(const detail::Entered& in, const void* sendbuf, const int sendcounts[],
               const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
               const int rdispls[], MPI_Datatype recvtype) {
  AlltoallArgs args;
  detail::LocalError err;
  detail::TypedScratch recv_stand_in;
  detail::TypedScratch send_copy;
  const int ranks = in.e->shared->map.size();
  // Bad counts: take part with empty blocks, then report.
  const detail::EqualBlocks empty(ranks, 0);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const bool recv_ok = detail::check_counts(recvcounts, ranks, "recvcounts", err) &&
                       (rdispls != nullptr || err.note(MPI_ERR_ARG, "rdispls is a null pointer"));
  const bool send_ok =
      in_place || (detail::check_counts(sendcounts, ranks, "sendcounts", err) &&
                   (sdispls != nullptr || err.note(MPI_ERR_ARG, "sdispls is a null pointer")));
  args.recv.counts = recv_ok ? recvcounts : empty.counts.data();
  args.recv.displs = recv_ok ? rdispls : empty.displs.data();
  args.send.counts = send_ok && !in_place ? sendcounts : empty.counts.data();
  args.send.displs = send_ok && !in_place ? sdispls : empty.displs.data();
  prepare(ranks, sendbuf, sendtype, recvbuf, recvtype, &args, err, recv_stand_in, send_copy);
  return err.finish(in.e, in.function, alltoall(in.e, args), "MPI_Alltoallw or a local copy");
}

// Alltoallw on an intra-communicator: every argument is endpoint-local.
int alltoall_w(const detail::Entered& in, const void* sendbuf, const int sendcounts[],
               const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
               const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[]) {
  detail::LocalError err;
  const int ranks = in.e->shared->map.size();
  std::vector<Typed> recv(static_cast<std::size_t>(ranks));
  if (recvbuf == MPI_IN_PLACE) {
    // Take part receiving nothing, then report.
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
  } else {
    recv = detail::w_blocks(recvbuf, ranks, recvcounts, rdispls, recvtypes,
                            {"recvcounts", "rdispls", "recvtypes"}, err);
  }
  std::vector<ConstTyped> send;
  std::vector<detail::TypedScratch> copies;
  if (sendbuf != MPI_IN_PLACE) {
    send = detail::w_blocks(sendbuf, ranks, sendcounts, sdispls, sendtypes,
                            {"sendcounts", "sdispls", "sendtypes"}, err);
  } else {
    // In place: send what the receive blocks hold now, from copies, since
    // they are overwritten while others read them.
    copies.reserve(recv.size());
    for (const Typed& block : recv) {
      copies.emplace_back(block.count, block.type, block.layout);
      err.note_mpi(detail::copy_typed(block, copies.back().typed()),
                   "copying the receive buffer aside");
      send.push_back(copies.back().typed());
    }
  }
  AlltoallArgs args;
  args.send.each = send.data();
  args.recv.each = recv.data();
  return err.finish(in.e, in.function, alltoall(in.e, args), "MPI_Alltoallw or a local copy");
}

// Alltoall(v) on an inter-communicator: block j of rank q lands in block q
// of remote rank j; Alltoall's equal blocks when the counts are null.
int alltoall_inter(const detail::Entered& in, const void* sendbuf, const int* sendcounts,
                   const int* sdispls, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* rdispls, int recvcount,
                   MPI_Datatype recvtype) {
  detail::LocalError err;
  const std::vector<ConstTyped> send = detail::inter_blocks(
      in, sendbuf, sendcounts, sdispls, sendcount, sendtype,
      {sendcounts ? "sendcounts" : "sendcount", "sdispls", "sendtype"}, "sendbuf", err);
  const std::vector<Typed> recv = detail::inter_blocks(
      in, recvbuf, recvcounts, rdispls, recvcount, recvtype,
      {recvcounts ? "recvcounts" : "recvcount", "rdispls", "recvtype"}, "recvbuf", err);
  return detail::inter_alltoall(in, send, recv, err);
}

}  // namespace

int Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, Comm comm) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const detail::Entry entry{
      .function = "Alltoall",
      .signature = {detail::CollId::Alltoall, -1, in_place ? recvcount : sendcount,
                    in_place ? recvtype : sendtype}};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return alltoall_equal(in, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      [&](const detail::Entered& in) {
        return alltoall_inter(in, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr,
                              nullptr, recvcount, recvtype);
      });
}

int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, Comm comm) {
  const detail::Entry entry{.function = "Alltoallv",
                            .signature = {detail::CollId::Alltoallv, -1, -1}};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return alltoall_v(in, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype);
      },
      [&](const detail::Entered& in) {
        return alltoall_inter(in, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts,
                              rdispls, 0, recvtype);
      });
}

int Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], Comm comm) {
  const detail::Entry entry{.function = "Alltoallw",
                            .signature = {detail::CollId::Alltoallw, -1, -1}};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return alltoall_w(in, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes);
      },
      [&](const detail::Entered& in) {
        detail::LocalError err;
        const std::vector<ConstTyped> send =
            detail::inter_w_blocks(in, sendbuf, sendcounts, sdispls, sendtypes,
                                   {"sendcounts", "sdispls", "sendtypes"}, "sendbuf", err);
        const std::vector<Typed> recv =
            detail::inter_w_blocks(in, recvbuf, recvcounts, rdispls, recvtypes,
                                   {"recvcounts", "rdispls", "recvtypes"}, "recvbuf", err);
        return detail::inter_alltoall(in, send, recv, err);
      });
}

}  // namespace ep
