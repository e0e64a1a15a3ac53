// ep::Scan and ep::Exscan.
//
// Rank r receives the reduction of the operands of ranks 0..r (Scan) or
// 0..r-1 (Exscan; rank 0's receive buffer is left as it was, as Open MPI
// leaves it). Algorithms, by name (coll/algorithm.hpp):
//
//   hierarchical  on the block layout (ranks/block_layout.hpp), where a process's
//                 endpoints hold consecutive ranks and the processes follow
//                 rank order:
//     1. local:  the prefixes within the process are chained through the
//                endpoints' receive buffers (out[l] = out[l-1] op in[l]),
//                by the leader, or one slice of the elements per endpoint
//                for large buffers; the process's total goes to the leader;
//     2. MPI:    MPI_Exscan of the totals among the leaders gives each
//                process the reduction of all earlier processes;
//     3. spread: every endpoint puts that in front of its own prefix.
//   gather_all    the fallback, taken whenever the layout is not block
//                 (whatever the op: a process's ranks are then not one
//                 prefix interval, so step 2 would combine the wrong ranks):
//     1-2. every operand is gathered by rank at every process
//          (coll/contributions.hpp);
//     3.   every endpoint reduces its own prefix, in rank order, straight
//          into its receive buffer.
#include <array>

#include "coll/algorithm.hpp"
#include "coll/contributions.hpp"
#include "coll/mpi_step.hpp"
#include "coll/reduction.hpp"
#include "ep/coll.hpp"

namespace ep {

namespace {

using detail::ConstTyped;
using detail::Meeting;
using detail::ReduceArgs;
using detail::ReduceCall;
using detail::Typed;

constexpr int kGathered = 1;
constexpr int kScanned = 2;
constexpr int kTotal = 0;   // scratch: the process's total (Exscan)
constexpr int kBefore = 1;  // scratch: the reduction of the earlier processes

struct ScanCall {
  ReduceCall reduce;
  bool exclusive = false;  // Exscan
};

int reduce_local(const ReduceCall& c, const void* in, void* inout, detail::ElementRange range) {
  if (range.count == 0) return MPI_SUCCESS;
  const ConstTyped a{in, 0, c.reduction.type, c.reduction.layout};
  const Typed b{inout, 0, c.reduction.type, c.reduction.layout};
  return MPI_Reduce_local(a.at(range.first), b.at(range.first), range.count, c.reduction.type,
                          c.reduction.op);
}

int copy_range(const ReduceCall& c, const void* from, void* to, detail::ElementRange range) {
  if (from == to) return MPI_SUCCESS;
  const ConstTyped a{from, c.count, c.reduction.type, c.reduction.layout};
  const Typed b{to, c.count, c.reduction.type, c.reduction.layout};
  return detail::copy_typed(a.slice(range.first, range.count), b.slice(range.first, range.count));
}

// Step 1 over one slice of the elements: the process's prefixes chained
// through the outputs, and its total into `total` (Exscan) or out[last].
int chain_prefixes(const Meeting& m, const ScanCall& s, void* total, detail::ElementRange range) {
  const ReduceCall& c = s.reduce;
  const int n = m.size();
  int rc = MPI_SUCCESS;
  const auto in = [&](int l) { return m.args<ReduceArgs>(l).input; };
  const auto out = [&](int l) { return m.args<ReduceArgs>(l).output; };
  if (!s.exclusive) {
    for (int l = 0; l < n && rc == MPI_SUCCESS; ++l) {
      rc = copy_range(c, in(l), out(l), range);
      // out[l] = out[l-1] op in[l]
      if (rc == MPI_SUCCESS && l > 0) rc = reduce_local(c, out(l - 1), out(l), range);
    }
    return rc;
  }
  // Exscan: out[l] = in[0] op ... op in[l-1], never touching out[0]; the
  // operands are private copies (see Exscan), so writing out[l] loses none.
  for (int l = 1; l < n && rc == MPI_SUCCESS; ++l) {
    rc = copy_range(c, in(l - 1), out(l), range);
    if (rc == MPI_SUCCESS && l > 1) rc = reduce_local(c, out(l - 1), out(l), range);
  }
  if (rc == MPI_SUCCESS) rc = copy_range(c, in(n - 1), total, range);
  if (rc == MPI_SUCCESS && n > 1) rc = reduce_local(c, out(n - 1), total, range);
  return rc;
}

void* scratch_base(detail::LocalTeam& team, int index, const ReduceCall& c, bool acquire) {
  const std::size_t bytes = c.reduction.layout.footprint(c.count).bytes;
  return detail::typed_base(acquire ? team.scratch_acquire(index, bytes) : team.scratch(index),
                            c.count, c.reduction.layout);
}

int hierarchical(const ScanCall& s) {
  const ReduceCall& c = s.reduce;
  detail::LocalTeam& team = *c.e->shared->team;
  if (c.e->local == 0) {
    scratch_base(team, kTotal, c, true);
    scratch_base(team, kBefore, c, true);
  }
  Meeting m(c.e, &c.args);
  m.wait_all_posted();
  void* total =
      s.exclusive ? scratch_base(team, kTotal, c, false) : m.args<ReduceArgs>(m.size() - 1).output;
  void* before = scratch_base(team, kBefore, c, false);
  const int parts = detail::sharing_endpoints(c.bytes(), m.size());
  int rc = MPI_SUCCESS;
  if (m.local() < parts) {  // 1
    rc =
        chain_prefixes(m, s, total, detail::part_of(c.count, parts, m.local(), c.reduction.layout));
  }
  m.barrier();
  const bool mpi_step = m.multi_process();
  if (m.leader()) {
    int mpi_rc = MPI_SUCCESS;
    if (mpi_step) {  // 2
      MPI_Request request = MPI_REQUEST_NULL;
      mpi_rc = detail::complete(MPI_Iexscan(total, before, c.count, c.reduction.type,
                                            c.reduction.op, m.shared().mpi_comm, &request),
                                &request);
    }
    m.signal(kScanned, mpi_rc);
    m.team().lend(-1, m.size() - 1);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  } else {
    const int mpi_rc = m.wait(0, kScanned);
    if (rc == MPI_SUCCESS) rc = mpi_rc;
  }
  if (rc == MPI_SUCCESS && mpi_step && m.shared().mpi_rank > 0) {  // 3
    if (s.exclusive && m.local() == 0) {
      rc = copy_range(c, before, c.args.output, {0, c.count});
    } else {
      rc = reduce_local(c, before, c.args.output, {0, c.count});
    }
  }
  if (!m.leader()) m.scratch_read_done();
  return rc;
}

int gather_all(const ScanCall& s) {
  const ReduceCall& c = s.reduce;
  return detail::gather_operands(  // 1-2
      c, -1, kGathered, [&](Meeting& m, const detail::Contributions& all, int rc) {
        const int operands = s.exclusive ? c.e->rank : c.e->rank + 1;
        if (rc == MPI_SUCCESS && operands > 0) {  // 3
          rc = detail::reduce_in_order(c.reduction, all.of_ranks(0, operands), c.args.output, -1,
                                       {0, c.count});
        }
        m.barrier();  // nobody reads the gathered operands any more
        return rc;
      });
}

bool block(const ScanCall& s) { return s.reduce.block; }

constexpr std::array<detail::Algorithm<ScanCall>, 2> kAlgorithms{{
    {"hierarchical", hierarchical, block, detail::always},
    {"gather_all", gather_all, detail::always, detail::always},
}};

// Scan or Exscan on an intra-communicator, its agreed arguments checked.
int scan(const detail::Entered& in, const void* sendbuf, void* recvbuf, int count,
         MPI_Datatype datatype, MPI_Op op, bool exclusive) {
  ScanCall s{detail::reduce_call(in, count, datatype, op), exclusive};
  detail::LocalError err;
  detail::TypedScratch stand_in;
  if (recvbuf == MPI_IN_PLACE) {
    err.note(MPI_ERR_BUFFER, "recvbuf may not be MPI_IN_PLACE");
    stand_in = detail::TypedScratch(count, datatype, in.layout, detail::TypedScratch::Fill::zero);
    recvbuf = stand_in.base();
  }
  // Exscan overwrites an endpoint's buffer with a prefix that ends at the
  // previous rank while that rank's prefix still needs the operand: an
  // in-place operand is copied first.
  detail::TypedScratch operand;
  if (sendbuf == MPI_IN_PLACE && exclusive) {
    operand = detail::TypedScratch(count, datatype, in.layout);
    err.note_mpi(detail::copy_typed({recvbuf, count, datatype, in.layout}, operand.typed()),
                 "copying the operand aside");
    sendbuf = operand.base();
  }
  s.reduce.args = {sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf};
  const int rc = detail::choose<ScanCall>(kAlgorithms, s).run(s);
  return err.finish(in.e, in.function, rc, "the scan or a local copy");
}

// The entry of both.
int enter_scan(Comm comm, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, bool exclusive) {
  const detail::Entry entry{
      .function = exclusive ? "Exscan" : "Scan",
      .signature = {exclusive ? detail::CollId::Exscan : detail::CollId::Scan, -1, count, datatype},
      .count = count,
      .type = datatype,
      .op = op};
  return detail::enter(comm, entry, [&](const detail::Entered& in) {
    return scan(in, sendbuf, recvbuf, count, datatype, op, exclusive);
  });
}

}  // namespace

int Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
         Comm comm) {
  return enter_scan(comm, sendbuf, recvbuf, count, datatype, op, false);
}

int Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           Comm comm) {
  return enter_scan(comm, sendbuf, recvbuf, count, datatype, op, true);
}

}  // namespace ep
