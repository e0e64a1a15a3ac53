// The communicator calls of the benchmarks, once per implementation, so
// that each benchmark is one template that runs on endpoints and on plain
// MPI processes alike. Every call is checked; a failure ends the job.
#pragma once

#include <mpi.h>

#include <ep/ep.hpp>

#include "comm_bench.hpp"
#include "links.hpp"
#include "mpi_check.hpp"

namespace ep::bench {

struct EpOps {
  using Comm = ep::Comm;
  using Link = EpLink;
  static Comm parent(const Parent& p) { return p.ep; }
  static void split(Comm c, int color, int key, Comm* out) {
    tools::check(ep::Comm_split(c, color, key, out), "ep::Comm_split");
  }
  static void dup(Comm c, Comm* out) { tools::check(ep::Comm_dup(c, out), "ep::Comm_dup"); }
  static void intercomm(Comm local, Comm peer, int remote_leader, int tag, Comm* out) {
    tools::check(ep::Intercomm_create(local, 0, peer, remote_leader, tag, out),
                 "ep::Intercomm_create");
  }
  static void merge(Comm inter, int high, Comm* out) {
    tools::check(ep::Intercomm_merge(inter, high, out), "ep::Intercomm_merge");
  }
  static void free(Comm* c) { tools::check(ep::Comm_free(c), "ep::Comm_free"); }
  static CommFacts facts(Comm c) { return facts_of(c); }
};

struct MpiOps {
  using Comm = MPI_Comm;
  using Link = MpiLink;
  static Comm parent(const Parent& p) { return p.mpi; }
  static void split(Comm c, int color, int key, Comm* out) {
    tools::check(MPI_Comm_split(c, color, key, out), "MPI_Comm_split");
  }
  static void dup(Comm c, Comm* out) { tools::check(MPI_Comm_dup(c, out), "MPI_Comm_dup"); }
  static void intercomm(Comm local, Comm peer, int remote_leader, int tag, Comm* out) {
    tools::check(MPI_Intercomm_create(local, 0, peer, remote_leader, tag, out),
                 "MPI_Intercomm_create");
  }
  static void merge(Comm inter, int high, Comm* out) {
    tools::check(MPI_Intercomm_merge(inter, high, out), "MPI_Intercomm_merge");
  }
  static void free(Comm* c) { tools::check(MPI_Comm_free(c), "MPI_Comm_free"); }
  static CommFacts facts(Comm c) { return facts_of_mpi(c); }
};

}  // namespace ep::bench
