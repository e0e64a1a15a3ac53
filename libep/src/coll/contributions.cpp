#include "coll/contributions.hpp"

#include "coll/checks.hpp"
#include "coll/mpi_step.hpp"

namespace ep::detail {

std::size_t Contributions::bytes(int ranks, int count, const TypeLayout& layout) {
  const std::int64_t elements = std::int64_t{ranks} * count;
  return layout.footprint(static_cast<int>(elements)).bytes;
}

Contributions::Contributions(const Meeting& m, int count, MPI_Datatype type,
                             const TypeLayout& layout, int to_process)
    : count_(count), to_process_(to_process), order_(m.shared().map) {
  const int elements = m.shared().map.size() * count;
  // Every endpoint has seen the leader's arguments (Meeting), so the
  // leader's scratch_acquire is visible.
  m.wait_posted(0);
  std::byte* memory = const_cast<Meeting&>(m).team().scratch(kScratch);
  all_ = {typed_base(memory, elements, layout), elements, type, layout};
}

int Contributions::gather(Meeting& m, const void* input, int stage) {
  const CommShared& shared = m.shared();
  const int me = order_.slot_of(shared.map.rank_of(shared.mpi_rank, m.local()));
  const int copy_rc = copy_typed({input, count_, all_.type, all_.layout},
                                 all_.slice(std::int64_t{me} * count_, count_));
  m.barrier();  // 1
  if (!m.leader()) {
    int rc = m.wait(0, stage);
    keep_first_error(&rc, copy_rc);
    return rc;
  }
  int rc = MPI_SUCCESS;
  if (m.multi_process()) {  // 2
    std::vector<int> counts;
    std::vector<int> displs;
    for (int p = 0; p < shared.mpi_size; ++p) {
      counts.push_back(shared.map.count_on(p) * count_);
      displs.push_back(order_.first(p) * count_);
    }
    const int mine = counts[static_cast<std::size_t>(shared.mpi_rank)];
    void* at = all_.at(displs[static_cast<std::size_t>(shared.mpi_rank)]);
    MPI_Request request = MPI_REQUEST_NULL;
    if (to_process_ < 0) {
      rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, all_.type, all_.buf, counts.data(), displs.data(),
                           all_.type, shared.mpi_comm, &request);
    } else if (to_process_ == shared.mpi_rank) {
      rc = MPI_Igatherv(MPI_IN_PLACE, 0, all_.type, all_.buf, counts.data(), displs.data(),
                        all_.type, to_process_, shared.mpi_comm, &request);
    } else {
      rc = MPI_Igatherv(at, mine, all_.type, nullptr, nullptr, nullptr, all_.type, to_process_,
                        shared.mpi_comm, &request);
    }
    rc = complete(rc, &request);
  }
  m.signal(stage, rc);
  keep_first_error(&rc, copy_rc);
  return rc;
}

std::vector<const void*> Contributions::of_ranks(int first, int n) const {
  std::vector<const void*> in;
  in.reserve(static_cast<std::size_t>(n));
  for (int r = first; r < first + n; ++r) in.push_back(of(r));
  return in;
}

}  // namespace ep::detail
