// The public non-blocking collectives (ep/coll.hpp) but the reductions
// (api_nonblocking_reduce.cpp), on the engine of coll/nonblocking.hpp: each
// function checks its agreed arguments as the blocking form does
// (coll/entry.hpp), makes this endpoint's blocks and says what the endpoint
// takes from everyone's contributions.
//
// On an intra-communicator every rank's contribution reaches every process;
// the endpoint takes the blocks addressed to it (by rank). On an
// inter-communicator the same with the remote group's ranks, as
// coll/inter.hpp defines each collective there.
#include "coll/api_nonblocking.hpp"

#include <cstdint>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "coll/blocks.hpp"
#include "coll/gathered.hpp"
#include "coll/inter.hpp"
#include "coll/movement.hpp"
#include "coll/nonblocking_steps.hpp"
#include "ep/coll.hpp"

namespace ep {

namespace detail::icoll {

std::vector<int> sources(const Endpoint& e) {
  const CommShared& shared = *e.shared;
  if (shared.inter) return shared.members(1 - e.group);
  std::vector<int> all(static_cast<std::size_t>(shared.map.size()));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

Typed held(NonblockingCall& c, Typed t) {
  c.err.note_mpi(c.held.hold(&t), "MPI_Type_dup of a receive datatype");
  return t;
}
std::vector<Typed> held(NonblockingCall& c, std::vector<Typed> blocks) {
  for (Typed& b : blocks) c.err.note_mpi(c.held.hold(&b), "MPI_Type_dup of a receive datatype");
  return blocks;
}

int need_request(const Entered& in, const Request* request) {
  if (request) return MPI_SUCCESS;
  return raise(in.e, MPI_ERR_REQUEST, in.function, "request is a null pointer");
}

int start(NonblockingCall&& c, Request* request) {
  return start_nonblocking(std::move(c), request);
}

}  // namespace detail::icoll

namespace {

using detail::ConstTyped;
using detail::Entered;
using detail::Entry;
using detail::Gathered;
using detail::LocalError;
using detail::NonblockingCall;
using detail::Typed;
using detail::TypeLayout;
using detail::icoll::enter_both;
using detail::icoll::held;
using detail::icoll::sources;
using detail::icoll::start;

// `count` elements of `type` at `buf`, an endpoint-local argument: checked,
// empty when bad (MPI_IN_PLACE included, where the caller has not handled it).
template <class Void>
detail::BasicTyped<Void> block(Void* buf, int count, MPI_Datatype type, const char* buf_name,
                               const char* count_name, const char* type_name, LocalError& err) {
  TypeLayout layout;
  if (buf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "{} may not be MPI_IN_PLACE", buf_name);
    return {};
  }
  if (!detail::local_count(&count, count_name, err) ||
      !detail::local_type(&type, &layout, type_name, err)) {
    return {};
  }
  return {buf, count, type, layout};
}

std::vector<ConstTyped> readable(const std::vector<Typed>& blocks) {
  return {blocks.begin(), blocks.end()};
}

// ---- Gather, Scatter, Allgather, Alltoall: blocks by rank ----

// One block per rank the endpoint addresses: counts[q] elements at displs[q]
// (`v`), or `count` elements each; endpoint-local arguments, checked. Empty
// blocks when they are bad.
template <class Void>
std::vector<detail::BasicTyped<Void>> blocks_by_rank(NonblockingCall& c, Void* buf, bool v,
                                                     const int* counts, const int* displs,
                                                     int count, MPI_Datatype type,
                                                     const detail::BlockNames& names,
                                                     const char* buf_name) {
  const int n = c.e->shared->peer_count(*c.e);
  TypeLayout layout;
  if (buf == MPI_IN_PLACE) {
    c.err.note(MPI_ERR_BUFFER, "{} may not be MPI_IN_PLACE", buf_name);
  } else if ((v || detail::local_count(&count, names.counts, c.err)) &&
             detail::local_type(&type, &layout, names.types, c.err)) {
    if (v) return detail::v_blocks(buf, n, counts, displs, type, layout, names, c.err);
    const detail::EqualBlocks equal(n, count);
    return detail::v_blocks(buf, n, equal.counts.data(), equal.displs.data(), type, layout, names,
                            c.err);
  }
  return std::vector<detail::BasicTyped<Void>>(static_cast<std::size_t>(n));
}

// Gather(v): rank q's block lands in the root's recv[q].
int gather(const Entered& in, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
           void* recvbuf, bool v, const int* recvcounts, const int* displs, int recvcount,
           MPI_Datatype recvtype, int root, Request* request) {
  detail::Endpoint* e = in.e;
  NonblockingCall c{e};
  const bool inter = e->shared->inter;
  const bool receives = inter ? root == MPI_ROOT : e->rank == root;
  const bool sends = inter ? root >= 0 : true;
  const bool in_place = !inter && receives && sendbuf == MPI_IN_PLACE;
  if (sends && !in_place) {
    c.send = {block(sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype", c.err)};
  }
  if (!inter) {
    c.route = NonblockingCall::Route::root;
    c.route_root = root;
  }
  if (receives) {
    std::vector<Typed> recv =
        held(c, blocks_by_rank(c, recvbuf, v, recvcounts, displs, recvcount, recvtype,
                               {v ? "recvcounts" : "recvcount", "displs", "recvtype"}, "recvbuf"));
    // MPI_IN_PLACE: the root's own block is where it belongs.
    if (in_place) recv[static_cast<std::size_t>(e->rank)] = {};
    c.take = [from = sources(*e), recv = std::move(recv)](const Gathered& g) {
      return detail::take_blocks(g, from, 0, recv);
    };
  }
  return start(std::move(c), request);
}

// Scatter(v): the root's send[q] lands in rank q's recv.
int scatter(const Entered& in, const void* sendbuf, bool v, const int* sendcounts,
            const int* displs, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, Request* request) {
  detail::Endpoint* e = in.e;
  NonblockingCall c{e};
  const bool inter = e->shared->inter;
  const bool is_root = inter ? root == MPI_ROOT : e->rank == root;
  const bool receives = inter ? root >= 0 : true;
  const bool in_place = !inter && is_root && recvbuf == MPI_IN_PLACE;
  if (is_root) {
    c.send = blocks_by_rank(c, sendbuf, v, sendcounts, displs, sendcount, sendtype,
                            {v ? "sendcounts" : "sendcount", "displs", "sendtype"}, "sendbuf");
  }
  if (!inter) c.route = NonblockingCall::Route::by_rank;
  if (receives && !in_place) {
    const Typed recv =
        held(c, block(recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype", c.err));
    const int u = e->shared->peer_to_union(*e, root);
    c.take = [recv, u, me = static_cast<std::size_t>(e->rank)](const Gathered& g) {
      return detail::unpack_piece(detail::piece_of(g, u, me), recv);
    };
  }
  return start(std::move(c), request);
}

// Block `block_index` of every source rank q's contribution into recv[q].
detail::Take take_blocks(const detail::Endpoint& e, std::vector<Typed> recv,
                         std::size_t block_index) {
  return [from = sources(e), recv = std::move(recv), block_index](const Gathered& g) {
    return detail::take_blocks(g, from, block_index, recv);
  };
}

int allgather(const Entered& in, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, bool v, const int* recvcounts, const int* displs, int recvcount,
              MPI_Datatype recvtype, Request* request) {
  detail::Endpoint* e = in.e;
  NonblockingCall c{e};
  std::vector<Typed> recv =
      blocks_by_rank(c, recvbuf, v, recvcounts, displs, recvcount, recvtype,
                     {v ? "recvcounts" : "recvcount", "displs", "recvtype"}, "recvbuf");
  if (sendbuf == MPI_IN_PLACE && !e->shared->inter) {
    // This endpoint's block is already in place: it sends it from there.
    c.send = {static_cast<ConstTyped>(recv[static_cast<std::size_t>(e->rank)])};
  } else {
    c.send = {block(sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype", c.err)};
  }
  c.take = take_blocks(*e, held(c, std::move(recv)), 0);
  return start(std::move(c), request);
}

// Alltoall(v,w): block j of rank q's send lands in block q of rank j's recv.
// `send` is empty for MPI_IN_PLACE: the data to send is in `recv`.
int alltoall(NonblockingCall&& c, std::vector<ConstTyped> send, std::vector<Typed> recv,
             bool in_place, Request* request) {
  if (in_place) {
    c.send = readable(recv);
  } else {
    c.send = std::move(send);
  }
  if (!c.e->shared->inter) c.route = NonblockingCall::Route::by_rank;
  c.take = take_blocks(*c.e, held(c, std::move(recv)), static_cast<std::size_t>(c.e->rank));
  return start(std::move(c), request);
}

}  // namespace

int Ibarrier(Comm comm, Request* request) {
  const Entry entry{.function = "Ibarrier", .compare = false};
  const auto run = [&](const Entered& in) {
    NonblockingCall c(in.e);
    c.step = std::make_shared<detail::BarrierStep>();
    c.synchronizing = true;
    return start(std::move(c), request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, Comm comm, Request* request) {
  const Entry entry{
      .function = "Ibcast", .root = root, .count = count, .type = datatype, .compare = false};
  const auto run = [&](const Entered& in) {
    detail::Endpoint* e = in.e;
    NonblockingCall c{e};
    Typed data{buffer, count, datatype, in.layout};
    if (buffer == MPI_IN_PLACE) {
      c.err.note(MPI_ERR_BUFFER, "the buffer may not be MPI_IN_PLACE");
      data = {};
    }
    const bool inter = e->shared->inter;
    if (!inter) {
      const auto at = e->shared->map.at(root);
      c.step = std::make_shared<detail::BcastStep>(at.mpi_rank, at.local_rank,
                                                   std::int64_t{count} * in.layout.size);
    }
    if (inter ? root == MPI_ROOT : e->rank == root) {
      c.send = {data};
    } else if (inter) {
      if (root >= 0) {
        data = held(c, data);
        c.take = [data, u = e->shared->peer_to_union(*e, root)](const Gathered& g) {
          return detail::unpack_piece(detail::piece_of(g, u, 0), data);
        };
      }
    } else {
      data = held(c, data);
      c.take = [data](const Gathered& g) {
        return detail::unpack(g.result + detail::header_bytes(1), data.bytes(), data);
      };
    }
    return start(std::move(c), request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, Comm comm, Request* request) {
  const Entry entry{.function = "Igather", .root = root, .compare = false};
  const auto run = [&](const Entered& in) {
    return gather(in, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr, recvcount,
                  recvtype, root, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, Comm comm,
             Request* request) {
  const Entry entry{.function = "Igatherv", .root = root, .compare = false};
  const auto run = [&](const Entered& in) {
    return gather(in, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0, recvtype,
                  root, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, Comm comm, Request* request) {
  const Entry entry{.function = "Iscatter", .root = root, .compare = false};
  const auto run = [&](const Entered& in) {
    return scatter(in, sendbuf, false, nullptr, nullptr, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              Comm comm, Request* request) {
  const Entry entry{.function = "Iscatterv", .root = root, .compare = false};
  const auto run = [&](const Entered& in) {
    return scatter(in, sendbuf, true, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype,
                   root, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, Comm comm, Request* request) {
  const Entry entry{.function = "Iallgather", .compare = false};
  const auto run = [&](const Entered& in) {
    return allgather(in, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr, recvcount,
                     recvtype, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, Comm comm,
                Request* request) {
  const Entry entry{.function = "Iallgatherv", .compare = false};
  const auto run = [&](const Entered& in) {
    return allgather(in, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0,
                     recvtype, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, Comm comm, Request* request) {
  const Entry entry{.function = "Ialltoall", .compare = false};
  const auto run = [&](const Entered& in) {
    NonblockingCall c{in.e};
    const bool in_place = sendbuf == MPI_IN_PLACE && !in.e->shared->inter;
    std::vector<Typed> recv =
        blocks_by_rank(c, recvbuf, false, nullptr, nullptr, recvcount, recvtype,
                       {"recvcount", nullptr, "recvtype"}, "recvbuf");
    std::vector<ConstTyped> send;
    if (!in_place) {
      send = blocks_by_rank(c, sendbuf, false, nullptr, nullptr, sendcount, sendtype,
                            {"sendcount", nullptr, "sendtype"}, "sendbuf");
    }
    return alltoall(std::move(c), std::move(send), std::move(recv), in_place, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, Comm comm, Request* request) {
  const Entry entry{.function = "Ialltoallv", .compare = false};
  const auto run = [&](const Entered& in) {
    NonblockingCall c{in.e};
    const bool in_place = sendbuf == MPI_IN_PLACE && !in.e->shared->inter;
    std::vector<Typed> recv = blocks_by_rank(c, recvbuf, true, recvcounts, rdispls, 0, recvtype,
                                             {"recvcounts", "rdispls", "recvtype"}, "recvbuf");
    std::vector<ConstTyped> send;
    if (!in_place) {
      send = blocks_by_rank(c, sendbuf, true, sendcounts, sdispls, 0, sendtype,
                            {"sendcounts", "sdispls", "sendtype"}, "sendbuf");
    }
    return alltoall(std::move(c), std::move(send), std::move(recv), in_place, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], Comm comm, Request* request) {
  const Entry entry{.function = "Ialltoallw", .compare = false};
  const auto run = [&](const Entered& in) {
    NonblockingCall c{in.e};
    const bool in_place = sendbuf == MPI_IN_PLACE && !in.e->shared->inter;
    const int n = in.e->shared->peer_count(*in.e);
    std::vector<Typed> recv(static_cast<std::size_t>(n));
    if (recvbuf == MPI_IN_PLACE) {
      c.err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    } else {
      recv = detail::w_blocks(recvbuf, n, recvcounts, rdispls, recvtypes,
                              {"recvcounts", "rdispls", "recvtypes"}, c.err);
    }
    std::vector<ConstTyped> send;
    if (!in_place) {
      if (sendbuf == MPI_IN_PLACE) {
        c.err.note(MPI_ERR_BUFFER, "sendbuf may not be MPI_IN_PLACE");
      } else {
        send = detail::w_blocks(sendbuf, n, sendcounts, sdispls, sendtypes,
                                {"sendcounts", "sdispls", "sendtypes"}, c.err);
      }
    }
    return alltoall(std::move(c), std::move(send), std::move(recv), in_place, request);
  };
  return enter_both(comm, entry, request, run, run);
}

}  // namespace ep
