// Shared by the collective tests: the collective API under one name for
// both programs of a differential test, the communicators every test runs
// over, and deterministic data.
//
// capi::Bcast etc. are ep::Bcast in the endpoint program and MPI_Bcast in
// the plain-MPI one (the harness's mpi_shim covers point-to-point only).
#pragma once

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

}  // namespace eptest::coll
