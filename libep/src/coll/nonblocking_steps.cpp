#include "coll/nonblocking_steps.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#include "coll/gathered.hpp"

namespace ep::detail {

int BarrierStep::start(const CommShared& shared, std::vector<std::vector<std::byte>>& /*mine*/,
                       std::vector<std::byte>* /*result*/, std::vector<MPI_Request>* requests) {
  if (shared.mpi_size == 1) return MPI_SUCCESS;  // the process's endpoints are all there
  return MPI_Ibarrier(step_carrier(shared), &requests->emplace_back(MPI_REQUEST_NULL));
}

int BcastStep::start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
                     std::vector<std::byte>* result, std::vector<MPI_Request>* requests) {
  const std::size_t length = header_bytes(1) + static_cast<std::size_t>(bytes_);
  if (length > static_cast<std::size_t>(INT_MAX)) return MPI_ERR_COUNT;
  if (shared.mpi_rank == root_process_)
    *result = std::move(mine[static_cast<std::size_t>(root_local_)]);
  // A root that failed its own checks sent less: the others still get the
  // length they expect.
  result->resize(length);
  if (shared.mpi_size == 1) return MPI_SUCCESS;
  return MPI_Ibcast(result->data(), static_cast<int>(length), MPI_BYTE, root_process_,
                    step_carrier(shared), &requests->emplace_back(MPI_REQUEST_NULL));
}

int ReduceStep::hold() {
  Typed t{nullptr, count_, type_, layout_};
  const int rc = held_.hold(&t);
  type_ = t.type;
  return rc;
}

int ReduceStep::start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
                      std::vector<std::byte>* result, std::vector<MPI_Request>* requests) {
  const std::size_t header = header_bytes(1);
  const std::size_t bytes =
      static_cast<std::size_t>(count_) * static_cast<std::size_t>(layout_.size);
  // Endpoints that failed their own checks sent less: zeros stand in.
  for (auto& m : mine) m.resize(header + bytes);
  *result = std::vector<std::byte>(mine.back().begin() + static_cast<std::ptrdiff_t>(header),
                                   mine.back().end());
  result->resize(std::max<std::size_t>(bytes, 1));
  void* acc = typed_base(result->data(), count_, layout_);
  int rc = MPI_SUCCESS;
  // acc = x[l] op acc from the last down keeps local rank order.
  for (std::size_t l = mine.size() - 1; l-- > 0 && rc == MPI_SUCCESS;) {
    rc = MPI_Reduce_local(typed_base(mine[l].data() + header, count_, layout_), acc, count_, type_,
                          op_.get());
  }
  if (shared.mpi_size == 1) return rc;
  // The MPI step runs even when combining failed, so that no process waits
  // for this one in vain.
  MPI_Request* request = &requests->emplace_back(MPI_REQUEST_NULL);
  const bool root = shared.mpi_rank == root_process_;
  const int step_rc =
      root_process_ < 0
          ? MPI_Iallreduce(MPI_IN_PLACE, acc, count_, type_, op_.get(), step_carrier(shared),
                           request)
          : MPI_Ireduce(root ? MPI_IN_PLACE : acc, root ? acc : nullptr, count_, type_, op_.get(),
                        root_process_, step_carrier(shared), request);
  return rc != MPI_SUCCESS ? rc : step_rc;
}

}  // namespace ep::detail
