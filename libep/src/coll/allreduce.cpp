// ep::Allreduce.
//
// Algorithms, by name (coll/algorithm.hpp; the first exact and suitable wins):
//
//   leader      hierarchical, below 64 KiB (named for the endpoint that
//               leads the call, the last to arrive, not for local endpoint 0):
//     1. local:  every endpoint arrives at the team's gate (LocalTeam::arrive);
//                the last to arrive combines the process's operands, in
//                local rank order, into a team mailbox;
//     2. MPI:    it reduces the mailbox in place among the processes:
//                message_allreduce (coll/mpi_step.hpp) where the processes
//                are a power of two, else MPI_Iallreduce;
//     3. spread: it opens the gate, and the others copy the result out of
//                the mailbox.
//     Only the last arriver waits for nobody; the others wait for the gate
//     alone, and nobody waits at the end: the mailbox is reused
//     LocalTeam::kMailboxes calls later.
//   shared      hierarchical, from 64 KiB:
//     1. local:  every endpoint combines one slice of the elements, straight
//                from the operands into the last endpoint's receive buffer;
//     2. MPI:    MPI_Allreduce in place on that buffer among the leaders;
//     3. spread: the others copy it out, in parallel.
//   gather_all  the fallback, taken for a non-commutative op when the
//               processes do not hold blocks of consecutive ranks (see
//               ranks/block_layout.hpp), where steps 1-2 would reorder operands:
//     1-2. every operand is gathered by rank at every process
//          (coll/contributions.hpp); the endpoints then combine one slice
//          each, in rank order, into the last endpoint's receive buffer;
//     3.   as shared.
//
// The hierarchical algorithms are exact for every op on the block layout:
// local rank order is rank order within a process, and MPI applies a
// non-commutative op in MPI rank order, which is the order of the blocks.
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

constexpr int kGathered = 1;  // the leader's MPI step of gather_all is over
constexpr int kReduced = 2;   // the leader's MPI_Allreduce is over

// The result from `acc` into this endpoint's receive buffer.
int copy_out(const ReduceCall& c, const void* acc) {
  return detail::copy_typed({acc, c.count, c.reduction.type, c.reduction.layout},
                            {c.args.output, c.count, c.reduction.type, c.reduction.layout});
}

// Step 2 of leader_combines, on the process's combined operand in `acc`.
int reduce_among_processes(const Meeting& m, const ReduceCall& c, void* acc) {
  const detail::CommShared& shared = m.shared();
  if (detail::message_allreduce_fits(shared.mpi_size)) {
    return detail::message_allreduce(shared, acc, c.count, c.reduction);
  }
  MPI_Request request = MPI_REQUEST_NULL;
  // complete() tests the request to completion; the MPI checker cannot see it.
  // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
  return detail::complete(MPI_Iallreduce(MPI_IN_PLACE, acc, c.count, c.reduction.type,
                                         c.reduction.op, shared.mpi_comm, &request),
                          &request);
}

int leader_combines(const ReduceCall& c) {
  Meeting m(c.e, &c.args);  // publishes the operand before the arrival below
  detail::LocalTeam& team = m.team();
  const detail::LocalTeam::Passage passage = team.arrive(m.local());  // 1
  if (!passage.last) {
    int rc = team.wait_open(passage.number);
    void* acc = detail::typed_base(team.mailbox(m.call()), c.count, c.reduction.layout);
    if (rc == MPI_SUCCESS) rc = copy_out(c, acc);  // 3
    return rc;
  }
  const std::size_t span = c.reduction.layout.footprint(c.count).bytes;
  void* acc = detail::typed_base(team.mailbox_acquire(m.local(), m.call(), span), c.count,
                                 c.reduction.layout);
  detail::LocalInputs in(m);
  const int local_rc = detail::reduce_in_order(c.reduction, in.get(), acc, -1, {0, c.count});  // 1
  // The MPI step runs even after a local failure, so that the other
  // processes are not left waiting in it.
  int rc = m.multi_process() ? reduce_among_processes(m, c, acc) : MPI_SUCCESS;  // 2
  if (local_rc != MPI_SUCCESS) rc = local_rc;
  team.open(passage.number, rc);
  if (rc == MPI_SUCCESS) rc = copy_out(c, acc);  // 3
  return rc;
}

// Steps 2 and 3 once the process's combined operand (or, with gather_all,
// the whole result) is in `acc`, the last endpoint's receive buffer.
int finish_from_last(Meeting& m, const ReduceCall& c, void* acc, int rc, bool mpi_step) {
  const int last = m.size() - 1;
  if (m.leader()) {
    int mpi_rc = MPI_SUCCESS;
    if (mpi_step && m.multi_process()) {  // 2
      MPI_Request request = MPI_REQUEST_NULL;
      // complete() tests the request to completion; the MPI checker cannot see it.
      // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
      mpi_rc = detail::complete(MPI_Iallreduce(MPI_IN_PLACE, acc, c.count, c.reduction.type,
                                               c.reduction.op, m.shared().mpi_comm, &request),
                                &request);
    }
    m.signal(kReduced, mpi_rc);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  } else {
    const int mpi_rc = m.wait(0, kReduced);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  }
  if (m.local() == last) {
    m.wait_readers(last);  // everyone else copies from my receive buffer
    return rc;
  }
  if (rc == MPI_SUCCESS) rc = copy_out(c, acc);  // 3
  m.read_done(last);
  return rc;
}

int endpoints_share(const ReduceCall& c) {
  Meeting m(c.e, &c.args);
  const auto in = detail::local_inputs(m);
  const ReduceArgs& owner = m.args<ReduceArgs>(m.size() - 1);
  const int holds = owner.in_place() ? m.size() - 1 : -1;
  const int rc = detail::reduce_my_part(m, c, in, owner.output, holds, m.size());  // 1
  m.barrier();  // every slice is combined; nobody reads the operands any more
  return finish_from_last(m, c, owner.output, rc, true);
}

int gather_all(const ReduceCall& c) {
  return detail::gather_operands(  // 1-2
      c, -1, kGathered, [&](Meeting& m, const detail::Contributions& all, int rc) {
        // Operands are copies now, so the last endpoint's buffer may take
        // the result even when it held its own operand.
        void* acc = m.args<ReduceArgs>(m.size() - 1).output;
        const int ranks = c.e->shared->map.size();
        if (rc == MPI_SUCCESS)
          rc = detail::reduce_my_part(m, c, all.of_ranks(0, ranks), acc, -1, m.size());
        m.barrier();
        return finish_from_last(m, c, acc, rc, false);  // 3
      });
}

constexpr std::array<detail::Algorithm<ReduceCall>, 3> kAlgorithms{{
    {"leader", leader_combines, detail::reduce_hierarchical, detail::reduce_small},
    {"shared", endpoints_share, detail::reduce_hierarchical, detail::always},
    {"gather_all", gather_all, detail::always, detail::always},
}};

// Allreduce on an intra-communicator, its agreed arguments checked.
int allreduce(const detail::Entered& in, const void* sendbuf, void* recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op) {
  ReduceCall c = detail::reduce_call(in, count, datatype, op);
  detail::LocalError err;
  detail::TypedScratch stand_in;
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    stand_in = detail::TypedScratch(count, datatype, in.layout, detail::TypedScratch::Fill::zero);
    recvbuf = stand_in.base();
  }
  c.args = {sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf};
  const int rc = detail::choose<ReduceCall>(kAlgorithms, c).run(c);
  return err.finish(in.e, in.function, rc, "the reduction or a local copy");
}

}  // namespace

int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              Comm comm) {
  const detail::Entry entry{.function = "Allreduce",
                            .signature = {detail::CollId::Allreduce, -1, count, datatype},
                            .count = count,
                            .type = datatype,
                            .op = op};
  return detail::enter(
      comm, entry,
      [&](const detail::Entered& in) {
        return allreduce(in, sendbuf, recvbuf, count, datatype, op);
      },
      [&](const detail::Entered& in) {
        return detail::inter_allreduce(in, sendbuf, recvbuf, count, datatype, op);
      });
}

}  // namespace ep
