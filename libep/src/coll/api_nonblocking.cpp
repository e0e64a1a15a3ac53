// The public non-blocking collectives (ep/coll.hpp), on the engine of
// coll/nonblocking.hpp: each function checks its agreed arguments as the
// blocking form does (coll/entry.hpp), makes this endpoint's blocks and says
// what the endpoint takes from everyone's contributions.
//
// On an intra-communicator every rank's contribution reaches every process;
// the endpoint takes the blocks addressed to it (by rank), or reduces the
// ranks' operands in rank order. On an inter-communicator the same with the
// remote group's ranks, as coll/inter.hpp defines each collective there.
#include <algorithm>
#include <climits>
#include <numeric>
#include <utility>
#include <vector>

#include "base/held_op.hpp"
#include "coll/blocks.hpp"
#include "coll/entry.hpp"
#include "coll/gathered.hpp"
#include "coll/inter.hpp"
#include "coll/movement.hpp"
#include "coll/nonblocking.hpp"
#include "coll/nonblocking_steps.hpp"
#include "ep/coll.hpp"
#include "ranks/block_layout.hpp"

namespace ep {

namespace {

using detail::ConstTyped;
using detail::Entered;
using detail::Entry;
using detail::Gathered;
using detail::LocalError;
using detail::NonblockingCall;
using detail::Typed;
using detail::TypeLayout;

// The ranks whose contributions an endpoint takes: every rank of an
// intra-communicator, in rank order, or the remote group's ranks (union
// ranks) of an inter-communicator.
std::vector<int> sources(const detail::Endpoint& e) {
  const detail::CommShared& shared = *e.shared;
  if (shared.inter) return shared.members(1 - e.group);
  std::vector<int> all(static_cast<std::size_t>(shared.map.size()));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

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

// A receive buffer the operation writes after its call returned: its
// datatype held.
Typed held(NonblockingCall& c, Typed t) {
  c.err.note_mpi(c.held.hold(&t), "MPI_Type_dup of a receive datatype");
  return t;
}
std::vector<Typed> held(NonblockingCall& c, std::vector<Typed> blocks) {
  for (Typed& b : blocks) c.err.note_mpi(c.held.hold(&b), "MPI_Type_dup of a receive datatype");
  return blocks;
}

std::vector<ConstTyped> readable(const std::vector<Typed>& blocks) {
  return {blocks.begin(), blocks.end()};
}

// The start of every function: a request pointer to fill.
int need_request(const Entered& in, const Request* request) {
  if (request) return MPI_SUCCESS;
  return detail::raise(in.e, MPI_ERR_REQUEST, in.function, "request is a null pointer");
}

int start(NonblockingCall&& c, Request* request) {
  return detail::start_nonblocking(std::move(c), request);
}

// Entry of a function without an inter-communicator form (Iscan, Iexscan).
template <class Intra>
int enter_intra(Comm comm, const Entry& entry, Request* request, Intra&& intra) {
  return detail::enter(comm, entry, [&](const Entered& in) {
    const int rc = need_request(in, request);
    return rc != MPI_SUCCESS ? rc : intra(in);
  });
}

template <class Intra, class Inter>
int enter_both(Comm comm, const Entry& entry, Request* request, Intra&& intra, Inter&& inter) {
  return detail::enter(
      comm, entry,
      [&](const Entered& in) {
        const int rc = need_request(in, request);
        return rc != MPI_SUCCESS ? rc : intra(in);
      },
      [&](const Entered& in) {
        const int rc = need_request(in, request);
        return rc != MPI_SUCCESS ? rc : inter(in);
      });
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

// ---- Reductions ----

// An operand of `count` elements of the agreed datatype, MPI_IN_PLACE
// excluded (the caller handles it where MPI allows it).
ConstTyped operand(const Entered& in, const void* buf, int count, MPI_Datatype type,
                   const char* name, NonblockingCall& c) {
  if (buf == MPI_IN_PLACE) {
    c.err.note(MPI_ERR_BUFFER, "{} may not be MPI_IN_PLACE", name);
    return {};
  }
  return {buf, count, type, in.layout};
}

// The reduction of the operands of `from` (in that order) into `into`. The
// op is held until the take is gone: the user may free theirs meanwhile.
detail::Take fold_into(std::vector<int> from, Typed into, MPI_Op op) {
  return [from = std::move(from), into, op = detail::HeldOp(op)](const Gathered& g) {
    return from.empty() ? MPI_SUCCESS : detail::fold(g, from, into, op.get());
  };
}

int reduce(const Entered& in, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, bool all, Request* request) {
  detail::Endpoint* e = in.e;
  NonblockingCall c{e};
  const bool inter = e->shared->inter;
  const bool receives = all || (inter ? root == MPI_ROOT : e->rank == root);
  const bool sends = all || !inter || root >= 0;
  // Whether this endpoint has a result to write (recvbuf may be null for
  // count 0).
  bool writes = receives;
  Typed into;
  if (receives) into = held(c, Typed{recvbuf, count, type, in.layout});
  if (receives && recvbuf == MPI_IN_PLACE) {
    c.err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    into = {};
    writes = false;
  }
  if (sends) {
    const bool in_place = !inter && writes && sendbuf == MPI_IN_PLACE;
    c.send = {in_place ? ConstTyped{into.buf, count, type, in.layout}
                       : operand(in, sendbuf, count, type, "sendbuf", c)};
  }
  const bool hierarchical = !inter && (in.commutative || detail::is_block_layout(e->shared->map)) &&
                            in.layout.contiguous(count);
  if (hierarchical) {
    const int root_process = all ? -1 : e->shared->map.at(root).mpi_rank;
    auto step = std::make_shared<detail::ReduceStep>(Typed{nullptr, count, type, in.layout}, op,
                                                     root_process);
    c.err.note_mpi(step->hold(), "MPI_Type_dup of the datatype");
    c.step = std::move(step);
    if (writes) {
      c.take = [into](const Gathered& g) { return detail::unpack(g.result, into.bytes(), into); };
    }
  } else {
    if (!inter && !all) {
      c.route = NonblockingCall::Route::root;
      c.route_root = root;
    }
    if (writes) c.take = fold_into(sources(*e), into, op);
  }
  return start(std::move(c), request);
}

int reduce_scatter(const Entered& in, const void* sendbuf, void* recvbuf, const int* counts,
                   MPI_Datatype type, MPI_Op op, Request* request) {
  detail::Endpoint* e = in.e;
  const int ranks = e->shared->group_size(e->group);
  std::int64_t total = 0;
  std::int64_t first = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r == e->rank) first = total;
    total += counts[r];
  }
  if (total > INT_MAX) {
    return detail::raise(e, MPI_ERR_COUNT, in.function,
                         "the vector of {} elements (the sum of recvcounts) exceeds INT_MAX",
                         total);
  }
  NonblockingCall c{e};
  const int mine = counts[e->rank];
  const bool in_place = !e->shared->inter && sendbuf == MPI_IN_PLACE;
  if (recvbuf == MPI_IN_PLACE) {
    c.err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    c.send = {ConstTyped{}};
    return start(std::move(c), request);
  }
  c.send = {in_place ? ConstTyped{recvbuf, static_cast<int>(total), type, in.layout}
                     : operand(in, sendbuf, static_cast<int>(total), type, "sendbuf", c)};
  const Typed out = held(c, Typed{recvbuf, mine, type, in.layout});
  c.take = [from = sources(*e), out, total, first, op = detail::HeldOp(op)](const Gathered& g) {
    const detail::TypedScratch whole(static_cast<int>(total), out.type, out.layout);
    const int rc = detail::fold(g, from, whole.typed(), op.get());
    if (rc != MPI_SUCCESS) return rc;
    return detail::copy_typed(whole.typed().slice(first, out.count), out);
  };
  return start(std::move(c), request);
}

int scan(const Entered& in, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
         MPI_Op op, bool exclusive, Request* request) {
  detail::Endpoint* e = in.e;
  NonblockingCall c{e};
  if (recvbuf == MPI_IN_PLACE) {
    c.err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    c.send = {ConstTyped{}};
    return start(std::move(c), request);
  }
  const Typed into = held(c, Typed{recvbuf, count, type, in.layout});
  c.send = {sendbuf == MPI_IN_PLACE ? static_cast<ConstTyped>(into)
                                    : ConstTyped{sendbuf, count, type, in.layout}};
  std::vector<int> from(static_cast<std::size_t>(exclusive ? e->rank : e->rank + 1));
  std::iota(from.begin(), from.end(), 0);
  c.take = fold_into(std::move(from), into, op);
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

int Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, Comm comm, Request* request) {
  const Entry entry{.function = "Ireduce",
                    .root = root,
                    .count = count,
                    .type = datatype,
                    .op = op,
                    .compare = false};
  const auto run = [&](const Entered& in) {
    return reduce(in, sendbuf, recvbuf, count, datatype, op, root, false, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               Comm comm, Request* request) {
  const Entry entry{
      .function = "Iallreduce", .count = count, .type = datatype, .op = op, .compare = false};
  const auto run = [&](const Entered& in) {
    return reduce(in, sendbuf, recvbuf, count, datatype, op, -1, true, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                    MPI_Datatype datatype, MPI_Op op, Comm comm, Request* request) {
  const Entry entry{.function = "Ireduce_scatter",
                    .recvcounts = recvcounts,
                    .type = datatype,
                    .op = op,
                    .compare = false};
  const auto run = [&](const Entered& in) {
    return reduce_scatter(in, sendbuf, recvbuf, recvcounts, datatype, op, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                          MPI_Op op, Comm comm, Request* request) {
  const Entry entry{.function = "Ireduce_scatter_block",
                    .count = recvcount,
                    .count_name = "recvcount",
                    .type = datatype,
                    .op = op,
                    .compare = false};
  const auto run = [&](const Entered& in) {
    const std::vector<int> counts(static_cast<std::size_t>(in.e->shared->group_size(in.e->group)),
                                  recvcount);
    return reduce_scatter(in, sendbuf, recvbuf, counts.data(), datatype, op, request);
  };
  return enter_both(comm, entry, request, run, run);
}

int Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
          Comm comm, Request* request) {
  const Entry entry{
      .function = "Iscan", .count = count, .type = datatype, .op = op, .compare = false};
  return enter_intra(comm, entry, request, [&](const Entered& in) {
    return scan(in, sendbuf, recvbuf, count, datatype, op, false, request);
  });
}

int Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            Comm comm, Request* request) {
  const Entry entry{
      .function = "Iexscan", .count = count, .type = datatype, .op = op, .compare = false};
  return enter_intra(comm, entry, request, [&](const Entered& in) {
    return scan(in, sendbuf, recvbuf, count, datatype, op, true, request);
  });
}

}  // namespace ep
