// ep::Reduce_scatter and ep::Reduce_scatter_block.
//
// The vectors have sum(recvcounts) elements; rank r receives the
// recvcounts[r] elements that start after the blocks of ranks 0..r-1.
// Algorithms, by name (coll/algorithm.hpp; the first exact and suitable wins):
//
//   scatter     hierarchical, on the block layout (ranks/block_layout.hpp), where
//               each process's ranks own one contiguous part of the vector:
//     1. local:  the process's operands are combined, in local rank order,
//                into the team's scratch (by the leader, or one slice per
//                endpoint for large vectors);
//     2. MPI:    MPI_Reduce_scatter among the leaders, each process receiving
//                the part of its ranks;
//     3. spread: every endpoint copies its block out of that part.
//   allreduce   hierarchical, for a commutative op on any other layout, where
//               a process's blocks are scattered over the vector:
//     1. as scatter; 2. MPI_Allreduce of the whole vector; 3. as scatter.
//   gather_all  the fallback, taken for a non-commutative op when the
//               layout is not block:
//     1-2. every operand is gathered by rank at every process
//          (coll/contributions.hpp);
//     3.   every endpoint combines its own block, in rank order, straight
//          into its receive buffer.
#include <array>
#include <numeric>
#include <vector>

#include "coll/algorithm.hpp"
#include "coll/contributions.hpp"
#include "coll/inter.hpp"
#include "coll/mpi_step.hpp"
#include "coll/reduction.hpp"
#include "ep/coll.hpp"

namespace ep {

namespace {

using detail::ConstTyped;
using detail::Meeting;
using detail::ReduceCall;
using detail::Typed;

constexpr int kGathered = 1;
constexpr int kReduced = 2;
constexpr int kVector = 0;  // scratch: the process's combined vector
constexpr int kPart = 1;    // scratch: the process's part of the result

struct ScatterCall {
  ReduceCall reduce;            // count = the whole vector's length
  const int* counts = nullptr;  // recvcounts, by rank
  std::int64_t offset(int rank) const {
    return std::accumulate(counts, counts + rank, std::int64_t{0});
  }
  int mine() const { return counts[reduce.e->rank]; }
};

ConstTyped operand(const ReduceCall& c, const void* base, int count) {
  return {base, count, c.reduction.type, c.reduction.layout};
}

void* scratch_base(detail::LocalTeam& team, int index, int count, const detail::TypeLayout& layout,
                   bool acquire) {
  std::byte* memory =
      acquire ? team.scratch_acquire(index, layout.footprint(count).bytes) : team.scratch(index);
  return detail::typed_base(memory, count, layout);
}

// Steps 1 to 3 of scatter and allreduce; `scatter` picks the MPI step. With
// one process the combined vector is the result, and no MPI step is needed.
int hierarchical(const ScatterCall& s, bool scatter) {
  const ReduceCall& c = s.reduce;
  const detail::CommShared& shared = *c.e->shared;
  detail::LocalTeam& team = *shared.team;
  const detail::TypeLayout& layout = c.reduction.layout;
  const auto my_ranks = shared.map.ranks_on(shared.mpi_rank);
  const bool mpi_step = shared.mpi_size > 1;
  const bool use_part = scatter && mpi_step;
  const int part_count = std::accumulate(my_ranks.begin(), my_ranks.end(), 0,
                                         [&](int sum, int r) { return sum + s.counts[r]; });
  if (c.e->local == 0) {
    scratch_base(team, kVector, c.count, layout, true);
    if (use_part) scratch_base(team, kPart, part_count, layout, true);
  }
  Meeting m(c.e, &c.args);
  const auto in = detail::local_inputs(m);
  void* vector = scratch_base(team, kVector, c.count, layout, false);
  const int parts = detail::sharing_endpoints(c.bytes(), m.size());
  int rc = detail::reduce_my_part(m, c, in, vector, -1, parts);  // 1
  m.barrier();  // the vector is complete; the operands (maybe our outputs) are free
  // Where the result is, and the rank whose block starts it.
  void* result = use_part ? scratch_base(team, kPart, part_count, layout, false) : vector;
  const int first = use_part ? my_ranks.front() : 0;
  if (m.leader()) {
    int mpi_rc = MPI_SUCCESS;
    if (use_part) {  // 2
      std::vector<int> process_counts;
      for (int p = 0; p < shared.mpi_size; ++p) {
        int sum = 0;
        for (const int r : shared.map.ranks_on(p)) sum += s.counts[r];
        process_counts.push_back(sum);
      }
      MPI_Request request = MPI_REQUEST_NULL;
      mpi_rc = detail::complete(
          MPI_Ireduce_scatter(vector, result, process_counts.data(), c.reduction.type,
                              c.reduction.op, shared.mpi_comm, &request),
          &request);
    } else if (mpi_step) {
      MPI_Request request = MPI_REQUEST_NULL;
      // complete() tests the request to completion; the MPI checker cannot see it.
      // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
      mpi_rc = detail::complete(MPI_Iallreduce(MPI_IN_PLACE, vector, c.count, c.reduction.type,
                                               c.reduction.op, shared.mpi_comm, &request),
                                &request);
    }
    m.signal(kReduced, mpi_rc);
    team.lend(-1, m.size() - 1);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  } else {
    const int mpi_rc = m.wait(0, kReduced);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  }
  if (rc == MPI_SUCCESS) {  // 3
    const std::int64_t at = s.offset(c.e->rank) - s.offset(first);
    rc = detail::copy_typed(operand(c, result, 0).slice(at, s.mine()),
                            Typed{c.args.output, s.mine(), c.reduction.type, c.reduction.layout});
  }
  if (!m.leader()) m.scratch_read_done();
  return rc;
}

int scatter_parts(const ScatterCall& s) { return hierarchical(s, true); }
int allreduce_all(const ScatterCall& s) { return hierarchical(s, false); }

int gather_all(const ScatterCall& s) {
  const ReduceCall& c = s.reduce;
  return detail::gather_operands(  // 1-2
      c, -1, kGathered, [&](Meeting& m, const detail::Contributions& all, int rc) {
        if (rc == MPI_SUCCESS) {  // 3
          std::vector<const void*> in = all.of_ranks(0, c.e->shared->map.size());
          for (const void*& block : in) block = operand(c, block, 0).at(s.offset(c.e->rank));
          rc = detail::reduce_in_order(c.reduction, in, c.args.output, -1, {0, s.mine()});
        }
        m.barrier();  // nobody reads the gathered operands any more
        return rc;
      });
}

bool block(const ScatterCall& s) { return s.reduce.block; }
bool hierarchical_exact(const ScatterCall& s) { return s.reduce.hierarchical_exact(); }

constexpr std::array<detail::Algorithm<ScatterCall>, 3> kAlgorithms{{
    {"scatter", scatter_parts, block, detail::always},
    {"allreduce", allreduce_all, hierarchical_exact, detail::always},
    {"gather_all", gather_all, detail::always, detail::always},
}};

// Reduce_scatter(_block) on an intra- or inter-communicator, its agreed
// arguments checked but the length of the whole vector: the sum of the
// counts of the endpoint's group.
int reduce_scatter(const detail::Entered& in, const void* sendbuf, void* recvbuf, const int* counts,
                   MPI_Datatype datatype, MPI_Op op) {
  const int n = in.e->shared->group_size(in.e->group);
  const std::int64_t total = std::accumulate(counts, counts + n, std::int64_t{0});
  if (total > INT32_MAX) {
    return detail::raise(in.e, MPI_ERR_COUNT, in.function,
                         "the vector has {} elements, more than an int counts", total);
  }
  if (in.e->shared->inter) {
    return detail::inter_reduce_scatter(in, sendbuf, recvbuf, counts, static_cast<int>(total),
                                        datatype, op);
  }
  ScatterCall s{detail::reduce_call(in, static_cast<int>(total), datatype, op), counts};
  detail::LocalError err;
  detail::TypedScratch stand_in;
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    stand_in = detail::TypedScratch(static_cast<int>(total), datatype, in.layout,
                                    detail::TypedScratch::Fill::zero);
    recvbuf = stand_in.base();
  }
  s.reduce.args = {sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf};
  const int rc = detail::choose<ScatterCall>(kAlgorithms, s).run(s);
  return err.finish(in.e, in.function, rc, "the reduction or a local copy");
}

}  // namespace

int Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, Comm comm) {
  const detail::Entry entry{
      .function = "Reduce_scatter",
      .signature = {detail::CollId::Reduce_scatter, -1, -1, datatype, recvcounts},
      .recvcounts = recvcounts,
      .type = datatype,
      .op = op};
  const auto run = [&](const detail::Entered& in) {
    return reduce_scatter(in, sendbuf, recvbuf, recvcounts, datatype, op);
  };
  return detail::enter(comm, entry, run, run);
}

int Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                         MPI_Op op, Comm comm) {
  const detail::Entry entry{
      .function = "Reduce_scatter_block",
      .signature = {detail::CollId::Reduce_scatter_block, -1, recvcount, datatype},
      .count = recvcount,
      .count_name = "recvcount",
      .type = datatype,
      .op = op};
  const auto run = [&](const detail::Entered& in) {
    const std::vector<int> counts(static_cast<std::size_t>(in.e->shared->group_size(in.e->group)),
                                  recvcount);
    return reduce_scatter(in, sendbuf, recvbuf, counts.data(), datatype, op);
  };
  return detail::enter(comm, entry, run, run);
}

}  // namespace ep
