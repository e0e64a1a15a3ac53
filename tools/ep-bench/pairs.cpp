#include "pairs.hpp"

#include <fmt/format.h>

#include "mpi_check.hpp"
#include "subcommand.hpp"

namespace ep::bench {

PairLayout plan_pair_layout(Impl impl, int pairs, const std::string& placement) {
  PairLayout l;
  l.impl = impl;
  l.pairs = pairs;
  // One rank per MPI process: the ends of a pair cannot share a process, and
  // measuring inter-process messages under the name intra would mislead.
  if (impl == Impl::mpi && placement == "intra")
    throw UsageError(
        "--impl mpi --placement intra: plain MPI processes hold one rank each, so the two ends "
        "of a pair are always in different processes; leave out --placement (inter), or use "
        "--impl ep or mpi-threads for both ends in one process");
  l.intra = placement.empty() ? impl != Impl::mpi : placement == "intra";
  if (impl == Impl::mpi) {
    l.processes = 2 * pairs;
    l.workers = 1;
  } else if (l.intra) {
    l.processes = 1;
    l.workers = 2 * pairs;
  } else {
    l.processes = 2;
    l.workers = pairs;
  }
  return l;
}

void check_pair_world(const PairLayout& l, int world_size, const char* const (&ends)[2],
                      const char* subcommand) {
  if (world_size == l.processes) return;
  const int ranks = 2 * l.pairs;
  std::string why;
  if (l.impl == Impl::mpi)
    why = fmt::format("--impl mpi runs each of the {} ranks of --pairs {} in its own process",
                      ranks, l.pairs);
  else if (l.intra)
    why = fmt::format("--impl {} --placement intra puts all {} {} of --pairs {} in one process",
                      impl_name(l.impl), ranks, l.impl == Impl::ep ? "endpoints" : "threads",
                      l.pairs);
  else
    why = fmt::format(
        "--impl {} --placement inter puts the {} {} in process 0 and the {} {} in "
        "process 1",
        impl_name(l.impl), l.pairs, ends[0], l.pairs, ends[1]);
  throw UsageError(
      fmt::format("{}, so it needs mpirun -np {}, but this job has {} process{} (see "
                  "'ep-bench {} --help')",
                  why, l.processes, world_size, world_size == 1 ? "" : "es", subcommand));
}

std::vector<ep::Comm> create_pair_endpoints(const PairLayout& l, int process) {
  std::vector<ep::Comm> comms(static_cast<std::size_t>(l.workers), ep::COMM_NULL);
  tools::check(ep::Comm_create_endpoints(MPI_COMM_WORLD, l.workers, MPI_INFO_NULL, comms.data()),
               "ep::Comm_create_endpoints");
  for (int w = 0; w < l.workers; ++w) {
    int rank = -1;
    tools::check(ep::Comm_rank(comms[static_cast<std::size_t>(w)], &rank), "ep::Comm_rank");
    if (rank != l.rank_of(process, w))
      tools::abort_job(fmt::format("endpoint {} of process {} has rank {}, expected {}", w, process,
                                   rank, l.rank_of(process, w)));
  }
  return comms;
}

}  // namespace ep::bench
