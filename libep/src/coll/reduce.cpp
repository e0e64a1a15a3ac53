// ep::Reduce.
//
// Algorithms, by name (coll/algorithm.hpp; the first exact and suitable wins):
//
//   leader      hierarchical, below 64 KiB:
//     1. local:  the leader combines the process's operands, in local rank
//                order, into a team mailbox, and lets the endpoints that are
//                not the root go;
//     2. MPI:    MPI_Ireduce among the leaders to the root's process (in
//                place there);
//     3. result: on the root's process the root copies it out of the
//                mailbox; nobody waits for it to be done (LocalTeam).
//   shared      hierarchical, from 64 KiB:
//     1. local:  every endpoint combines one slice of the elements, straight
//                into the root's receive buffer on the root's process and
//                into the scratch elsewhere;
//     2. MPI:    MPI_Reduce among the leaders, in place at the root's process;
//     3. result: already in the root's buffer.
//   gather_all  the fallback, taken for a non-commutative op when the
//               processes do not hold blocks of consecutive ranks (see
//               ranks/block_layout.hpp):
//     1-2. every operand is gathered by rank at the root's process
//          (coll/contributions.hpp, with MPI_Gatherv);
//     3.   its endpoints combine one slice each, in rank order, straight
//          into the root's receive buffer.
#include <array>

#include "coll/algorithm.hpp"
#include "coll/contributions.hpp"
#include "coll/inter.hpp"
#include "coll/mpi_step.hpp"
#include "coll/reduction.hpp"
#include "ep/coll.hpp"

namespace ep {

namespace {

using detail::Meeting;
using detail::ReduceArgs;
using detail::ReduceCall;
using detail::Typed;

constexpr int kCombined = 1;  // the leader has read every local operand
constexpr int kReduced = 2;   // the leader's MPI step is over
constexpr int kScratch = 0;

struct Root {
  int process;
  int local;  // on the root's process
};

Root root_of(const ReduceCall& c) {
  const detail::Location at = c.e->shared->map.at(c.root);
  return {at.mpi_rank, at.local_rank};
}

// The leader's MPI_Reduce of `acc` (in place at the root's process).
int reduce_mpi(const Meeting& m, const ReduceCall& c, void* acc, int root_process) {
  if (!m.multi_process()) return MPI_SUCCESS;
  const bool at_root = root_process == m.shared().mpi_rank;
  MPI_Request request = MPI_REQUEST_NULL;
  // complete() tests the request to completion; the MPI checker cannot see it.
  // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
  return detail::complete(
      MPI_Ireduce(at_root ? MPI_IN_PLACE : acc, at_root ? acc : nullptr, c.count, c.reduction.type,
                  c.reduction.op, root_process, m.shared().mpi_comm, &request),
      &request);
}

void* acquire_scratch(const ReduceCall& c) {
  if (c.e->local != 0) return nullptr;
  const std::size_t bytes = c.reduction.layout.footprint(c.count).bytes;
  return detail::typed_base(c.e->shared->team->scratch_acquire(kScratch, bytes), c.count,
                            c.reduction.layout);
}

int leader_combines(const ReduceCall& c) {
  const Root root = root_of(c);
  Meeting m(c.e, &c.args);
  detail::LocalTeam& team = m.team();
  const bool at_root = root.process == m.shared().mpi_rank;
  const bool root_reads = at_root && root.local != 0;  // the mailbox's only reader
  const auto result = [&](std::byte* box) {
    return Typed{detail::typed_base(box, c.count, c.reduction.layout), c.count, c.reduction.type,
                 c.reduction.layout};
  };
  if (m.leader()) {
    const std::size_t span = c.reduction.layout.footprint(c.count).bytes;
    const Typed acc = result(team.mailbox_acquire(m.local(), m.call(), span));
    const int local_rc = detail::reduce_in_order(c.reduction, detail::local_inputs(m), acc.buf, -1,
                                                 {0, c.count});  // 1
    m.signal(kCombined);
    int rc = reduce_mpi(m, c, acc.buf, root.process);  // 2
    if (local_rc != MPI_SUCCESS) rc = local_rc;
    m.signal(kReduced, rc);
    if (at_root && !root_reads && rc == MPI_SUCCESS) {
      rc = detail::copy_typed(acc, {c.args.output, c.count, c.reduction.type, c.reduction.layout});
    }
    return rc;
  }
  if (!root_reads || m.local() != root.local) {
    m.wait(0, kCombined);  // until then the leader reads my operand
    return MPI_SUCCESS;
  }
  int rc = m.wait(0, kReduced);
  if (rc == MPI_SUCCESS) {  // 3
    rc = detail::copy_typed(result(team.mailbox(m.call())),
                            {c.args.output, c.count, c.reduction.type, c.reduction.layout});
  }
  return rc;
}

int endpoints_share(const ReduceCall& c) {
  const Root root = root_of(c);
  acquire_scratch(c);  // for the processes other than the root's
  Meeting m(c.e, &c.args);
  const bool at_root = root.process == m.shared().mpi_rank;
  const auto in = detail::local_inputs(m);
  void* acc = nullptr;
  int holds = -1;
  if (at_root) {
    const ReduceArgs& r = m.args<ReduceArgs>(root.local);
    acc = r.output;
    holds = r.in_place() ? root.local : -1;
  } else {
    acc = detail::typed_base(m.team().scratch(kScratch), c.count, c.reduction.layout);
  }
  int rc = detail::reduce_my_part(m, c, in, acc, holds, m.size());  // 1
  m.barrier();  // every slice is combined; nobody reads the operands any more
  if (m.leader()) {
    const int mpi_rc = reduce_mpi(m, c, acc, root.process);  // 2
    m.signal(kReduced, mpi_rc);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  } else if (at_root && m.local() == root.local) {
    const int mpi_rc = m.wait(0, kReduced);  // 3
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  }
  return rc;
}

int gather_all(const ReduceCall& c) {
  const Root root = root_of(c);
  return detail::gather_operands(  // 1-2
      c, root.process, kCombined, [&](Meeting& m, const detail::Contributions& all, int rc) {
        if (root.process != m.shared().mpi_rank) return rc;
        void* acc = m.args<ReduceArgs>(root.local).output;
        const int ranks = c.e->shared->map.size();
        if (rc == MPI_SUCCESS)
          rc = detail::reduce_my_part(m, c, all.of_ranks(0, ranks), acc, -1, m.size());  // 3
        m.barrier();
        return rc;
      });
}

constexpr std::array<detail::Algorithm<ReduceCall>, 3> kAlgorithms{{
    {"leader", leader_combines, detail::reduce_hierarchical, detail::reduce_small},
    {"shared", endpoints_share, detail::reduce_hierarchical, detail::always},
    {"gather_all", gather_all, detail::always, detail::always},
}};

// Reduce on an intra-communicator, its agreed arguments checked. The
// buffers are endpoint-local: MPI_IN_PLACE where it is not allowed is
// reported after taking part with a stand-in.
int reduce(const detail::Entered& in, const void* sendbuf, void* recvbuf, int count,
           MPI_Datatype datatype, MPI_Op op, int root) {
  ReduceCall c = detail::reduce_call(in, count, datatype, op);
  c.root = root;
  detail::LocalError err;
  detail::TypedScratch stand_in;
  const bool is_root = in.e->rank == root;
  if (is_root && recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "the root's recvbuf may not be MPI_IN_PLACE");
    stand_in = detail::TypedScratch(count, datatype, in.layout, detail::TypedScratch::Fill::zero);
    recvbuf = stand_in.base();
  } else if (!is_root && sendbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's alone (rank {} is not root {})",
             in.e->rank, root);
    stand_in = detail::TypedScratch(count, datatype, in.layout, detail::TypedScratch::Fill::zero);
    sendbuf = stand_in.base();
  }
  if (is_root) {
    c.args = {sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf};
  } else {
    c.args = {sendbuf, nullptr};
  }
  const int rc = detail::choose<ReduceCall>(kAlgorithms, c).run(c);
  return err.finish(in.e, in.function, rc, "the reduction or a local copy");
}

}  // namespace

int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, Comm comm) {
  const detail::Entry entry{.function = "Reduce",
                            .signature = {detail::CollId::Reduce, root, count, datatype},
                            .root = root,
                            .count = count,
                            .type = datatype,
                            .op = op};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return reduce(in, sendbuf, recvbuf, count, datatype, op, root);
      },
      [&](const detail::Entered& in) {
        return detail::inter_reduce(in, sendbuf, recvbuf, count, datatype, op, root);
      });
}

}  // namespace ep
