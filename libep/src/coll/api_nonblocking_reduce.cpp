// The public non-blocking reductions (ep/coll.hpp): Ireduce, Iallreduce,
// Ireduce_scatter(_block), Iscan and Iexscan, on the engine of
// coll/nonblocking.hpp, with the entry and helpers of the other non-blocking
// collectives (coll/api_nonblocking.hpp).
//
// Each endpoint reduces the ranks' operands in rank order from everyone's
// contributions (fold_into), or, where the operation allows it, the
// processes reduce theirs with one of MPI's own non-blocking reductions
// (coll/nonblocking_steps.hpp, ReduceStep). On an inter-communicator the
// operands are the remote group's, as coll/inter.hpp defines each
// reduction there. The op is held until the operation is done: the user may
// free theirs meanwhile.
#include <climits>
#include <cstdint>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "base/held_op.hpp"
#include "coll/api_nonblocking.hpp"
#include "coll/blocks.hpp"
#include "coll/gathered.hpp"
#include "coll/nonblocking_steps.hpp"
#include "ep/coll.hpp"
#include "ranks/block_layout.hpp"

namespace ep {

namespace {

using detail::ConstTyped;
using detail::Entered;
using detail::Entry;
using detail::Gathered;
using detail::NonblockingCall;
using detail::Typed;
using detail::icoll::enter_both;
using detail::icoll::enter_intra;
using detail::icoll::held;
using detail::icoll::sources;
using detail::icoll::start;

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
