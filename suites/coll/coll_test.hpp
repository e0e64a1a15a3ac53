// Shared by the collective tests: the collective API under one name for
// both programs of a differential test, the communicators every test runs
// over, and deterministic data.
//
// capi::Bcast etc. are ep::Bcast in the endpoint program and MPI_Bcast in
// the plain-MPI one (the harness's mpi_shim covers point-to-point only).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"

#if defined(EPTEST_MODE_EP)
namespace capi = ::ep;
#else
namespace eptest::coll_shim {
using Comm = MPI_Comm;
inline int Barrier(Comm c) { return MPI_Barrier(c); }
inline int Bcast(void* b, int n, MPI_Datatype t, int root, Comm c) {
  return MPI_Bcast(b, n, t, root, c);
}
inline int Gather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                  int root, Comm c) {
  return MPI_Gather(sb, sn, st, rb, rn, rt, root, c);
}
inline int Gatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rn[], const int d[],
                   MPI_Datatype rt, int root, Comm c) {
  return MPI_Gatherv(sb, sn, st, rb, rn, d, rt, root, c);
}
inline int Scatter(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                   int root, Comm c) {
  return MPI_Scatter(sb, sn, st, rb, rn, rt, root, c);
}
inline int Scatterv(const void* sb, const int sn[], const int d[], MPI_Datatype st, void* rb,
                    int rn, MPI_Datatype rt, int root, Comm c) {
  return MPI_Scatterv(sb, sn, d, st, rb, rn, rt, root, c);
}
inline int Allgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                     Comm c) {
  return MPI_Allgather(sb, sn, st, rb, rn, rt, c);
}
inline int Allgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rn[],
                      const int d[], MPI_Datatype rt, Comm c) {
  return MPI_Allgatherv(sb, sn, st, rb, rn, d, rt, c);
}
inline int Alltoall(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                    Comm c) {
  return MPI_Alltoall(sb, sn, st, rb, rn, rt, c);
}
inline int Alltoallv(const void* sb, const int sn[], const int sd[], MPI_Datatype st, void* rb,
                     const int rn[], const int rd[], MPI_Datatype rt, Comm c) {
  return MPI_Alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c);
}
inline int Alltoallw(const void* sb, const int sn[], const int sd[], const MPI_Datatype st[],
                     void* rb, const int rn[], const int rd[], const MPI_Datatype rt[], Comm c) {
  return MPI_Alltoallw(sb, sn, sd, st, rb, rn, rd, rt, c);
}
inline int Reduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int root, Comm c) {
  return MPI_Reduce(sb, rb, n, t, op, root, c);
}
inline int Allreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c) {
  return MPI_Allreduce(sb, rb, n, t, op, c);
}
inline int Reduce_scatter(const void* sb, void* rb, const int rn[], MPI_Datatype t, MPI_Op op,
                          Comm c) {
  return MPI_Reduce_scatter(sb, rb, rn, t, op, c);
}
inline int Reduce_scatter_block(const void* sb, void* rb, int rn, MPI_Datatype t, MPI_Op op,
                                Comm c) {
  return MPI_Reduce_scatter_block(sb, rb, rn, t, op, c);
}
inline int Scan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c) {
  return MPI_Scan(sb, rb, n, t, op, c);
}
inline int Exscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c) {
  return MPI_Exscan(sb, rb, n, t, op, c);
}
inline int Comm_split(Comm c, int color, int key, Comm* out) {
  return MPI_Comm_split(c, color, key, out);
}
inline int Comm_dup(Comm c, Comm* out) { return MPI_Comm_dup(c, out); }
inline int Intercomm_create(Comm local, int local_leader, Comm peer, int remote_leader, int tag,
                            Comm* out) {
  return MPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, out);
}
inline int Comm_free(Comm* c) { return MPI_Comm_free(c); }
inline int Comm_rank(Comm c, int* r) { return MPI_Comm_rank(c, r); }
inline int Comm_size(Comm c, int* s) { return MPI_Comm_size(c, s); }
inline int Comm_remote_size(Comm c, int* s) { return MPI_Comm_remote_size(c, s); }
inline const Comm COMM_NULL = MPI_COMM_NULL;
inline int Comm_set_errhandler(Comm c, MPI_Errhandler h) { return MPI_Comm_set_errhandler(c, h); }
// The non-blocking collectives and the completion calls they need.
using Request = MPI_Request;
inline const Request REQUEST_NULL = MPI_REQUEST_NULL;
inline int Wait(Request* r, MPI_Status* s) { return MPI_Wait(r, s); }
inline int Test(Request* r, int* flag, MPI_Status* s) { return MPI_Test(r, flag, s); }
inline int Waitall(int n, Request r[], MPI_Status s[]) { return MPI_Waitall(n, r, s); }
inline int Testall(int n, Request r[], int* flag, MPI_Status s[]) {
  return MPI_Testall(n, r, flag, s);
}
inline int Ibarrier(Comm c, Request* r) { return MPI_Ibarrier(c, r); }
inline int Ibcast(void* b, int n, MPI_Datatype t, int root, Comm c, Request* r) {
  return MPI_Ibcast(b, n, t, root, c, r);
}
inline int Igather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                   int root, Comm c, Request* r) {
  return MPI_Igather(sb, sn, st, rb, rn, rt, root, c, r);
}
inline int Igatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rn[],
                    const int d[], MPI_Datatype rt, int root, Comm c, Request* r) {
  return MPI_Igatherv(sb, sn, st, rb, rn, d, rt, root, c, r);
}
inline int Iscatter(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                    int root, Comm c, Request* r) {
  return MPI_Iscatter(sb, sn, st, rb, rn, rt, root, c, r);
}
inline int Iscatterv(const void* sb, const int sn[], const int d[], MPI_Datatype st, void* rb,
                     int rn, MPI_Datatype rt, int root, Comm c, Request* r) {
  return MPI_Iscatterv(sb, sn, d, st, rb, rn, rt, root, c, r);
}
inline int Iallgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                      Comm c, Request* r) {
  return MPI_Iallgather(sb, sn, st, rb, rn, rt, c, r);
}
inline int Iallgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rn[],
                       const int d[], MPI_Datatype rt, Comm c, Request* r) {
  return MPI_Iallgatherv(sb, sn, st, rb, rn, d, rt, c, r);
}
inline int Ialltoall(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                     Comm c, Request* r) {
  return MPI_Ialltoall(sb, sn, st, rb, rn, rt, c, r);
}
inline int Ialltoallv(const void* sb, const int sn[], const int sd[], MPI_Datatype st, void* rb,
                      const int rn[], const int rd[], MPI_Datatype rt, Comm c, Request* r) {
  return MPI_Ialltoallv(sb, sn, sd, st, rb, rn, rd, rt, c, r);
}
inline int Ialltoallw(const void* sb, const int sn[], const int sd[], const MPI_Datatype st[],
                      void* rb, const int rn[], const int rd[], const MPI_Datatype rt[], Comm c,
                      Request* r) {
  return MPI_Ialltoallw(sb, sn, sd, st, rb, rn, rd, rt, c, r);
}
inline int Ireduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int root, Comm c,
                   Request* r) {
  return MPI_Ireduce(sb, rb, n, t, op, root, c, r);
}
inline int Iallreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c,
                      Request* r) {
  return MPI_Iallreduce(sb, rb, n, t, op, c, r);
}
inline int Ireduce_scatter(const void* sb, void* rb, const int rn[], MPI_Datatype t, MPI_Op op,
                           Comm c, Request* r) {
  return MPI_Ireduce_scatter(sb, rb, rn, t, op, c, r);
}
inline int Ireduce_scatter_block(const void* sb, void* rb, int rn, MPI_Datatype t, MPI_Op op,
                                 Comm c, Request* r) {
  return MPI_Ireduce_scatter_block(sb, rb, rn, t, op, c, r);
}
inline int Iscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c, Request* r) {
  return MPI_Iscan(sb, rb, n, t, op, c, r);
}
inline int Iexscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c, Request* r) {
  return MPI_Iexscan(sb, rb, n, t, op, c, r);
}
}  // namespace eptest::coll_shim
namespace capi = ::eptest::coll_shim;
#endif

namespace eptest::coll {

/// A communicator a test runs over, with its own rank and size.
struct Sub {
  capi::Comm comm;
  std::string name;
  int rank = 0;
  int size = 0;
};

/// The communicators every collective test runs over: the test's own, one
/// split whose ranks interleave across processes (keys put even ranks
/// first), one whose ranks are reversed (each process's ranks contiguous
/// but in the wrong order), and one of two colors (even, odd ranks) whose
/// two communicators run at the same time on the same processes.
/// free_subs() frees all but the first.
std::vector<Sub> make_subs(Context& t);
void free_subs(Context& t, std::vector<Sub>& subs);
/// Whether `s` is among the subs named by --subs=a,b (all without it): for
/// narrowing a failure down by hand.
bool selected(const Context& t, const Sub& s);

/// Element i of rank r's data in test step `step`: small enough that sums
/// over a few ranks and thousands of elements never overflow an int.
inline int value(int step, int rank, int i) { return (step * 31 + rank * 7 + i * 3) % 101 + 1; }
std::vector<int> values(int step, int rank, int count);

/// FNV-1a of the ints, as hex: the output lines compare results compactly.
std::string digest(const int* data, std::size_t count);
inline std::string digest(const std::vector<int>& v) { return digest(v.data(), v.size()); }

/// Where each element count is the same for ranks: uneven counts for the
/// v-variants, with a zero for some ranks.
inline int uneven_count(int rank, int scale) { return ((rank * 5 + 2) % 4) * scale; }

/// Fails the test unless `rc` is MPI_SUCCESS; prefixes the call with the sub.
bool ok(Context& t, const Sub& s, int rc, const std::string& call);

/// Compares two int vectors; reports the first differing element.
bool same(Context& t, const Sub& s, const std::vector<int>& got, const std::vector<int>& want,
          const std::string& what);

/// An inter-communicator between two groups of the test's ranks, whose
/// members are known by their ranks in the test's communicator.
struct Inter {
  capi::Comm comm{};
  capi::Comm local{};
  std::string name;
  int group = 0;
  int rank = 0;            // in its group
  std::vector<int> mine;   // the test ranks of the local group, by rank
  std::vector<int> other;  // ... and of the remote group
  int me() const { return mine[static_cast<std::size_t>(rank)]; }
  int remote() const { return static_cast<int>(other.size()); }
  Sub sub() const { return {comm, name, rank, static_cast<int>(mine.size())}; }
};

/// The groups of `kind`: "parity" (even and odd ranks) or halves (lower and
/// upper); `tag` for Intercomm_create. Collective over the test's ranks.
Inter make_inter(Context& t, const std::string& kind, int tag);

/// The product of 2x2 integer matrices modulo 1009: associative, not
/// commutative, so that only a reduction in rank order is right.
inline constexpr int kModulus = 1009;
using Mat = std::array<int, 4>;  // [a b; c d]
inline Mat mul(const Mat& x, const Mat& y) {
  return {(x[0] * y[0] + x[1] * y[2]) % kModulus, (x[0] * y[1] + x[1] * y[3]) % kModulus,
          (x[2] * y[0] + x[3] * y[2]) % kModulus, (x[2] * y[1] + x[3] * y[3]) % kModulus};
}
/// Element i of rank r's matrices in test step `step`.
inline Mat matrix(int step, int rank, int i) {
  return {(rank + i + step) % 3 + 1, (rank * 2 + i) % 5, (i * 3 + rank + step) % 4, 1 + rank % 2};
}

}  // namespace eptest::coll
