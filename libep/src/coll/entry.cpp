#include "coll/entry.hpp"

namespace ep::detail {

int check_recvcounts(Endpoint* e, const int* counts, const char* function) {
  if (counts == nullptr) return raise(e, MPI_ERR_ARG, function, "recvcounts is a null pointer");
  const int ranks = e->shared->group_size(e->group);  // its own group on an inter-communicator
  for (int r = 0; r < ranks; ++r) {
    if (counts[r] < 0)
      return raise(e, MPI_ERR_COUNT, function, "recvcounts[{}] is negative ({})", r, counts[r]);
  }
  return MPI_SUCCESS;
}

}  // namespace ep::detail
