// The accumulate family without MPI, for Win_create windows of one process.
//
// There every origin is an endpoint of this process, so one process-local
// lock per window makes each operation atomic against all others, as MPI
// requires of accumulates (element-wise; whole operations here, which is
// stronger). The arithmetic is MPI's own: MPI_Reduce_local on the packed
// elements, with the predefined type the target datatype is built from.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "object/error.hpp"
#include "rma/window.hpp"

namespace ep::detail {

namespace {

// The predefined datatype `type` is made of (accumulates allow one only).
int basic_type(MPI_Datatype type, MPI_Datatype* basic) {
  int integers = 0;
  int addresses = 0;
  int types = 0;
  int combiner = 0;
  int rc = MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (rc != MPI_SUCCESS) return rc;
  if (combiner == MPI_COMBINER_NAMED) {
    *basic = type;
    return MPI_SUCCESS;
  }
  std::vector<int> ints(static_cast<std::size_t>(integers) + 1);
  std::vector<MPI_Aint> aints(static_cast<std::size_t>(addresses) + 1);
  std::vector<MPI_Datatype> inner(static_cast<std::size_t>(types) + 1);
  rc = MPI_Type_get_contents(type, integers, addresses, types, ints.data(), aints.data(),
                             inner.data());
  if (rc != MPI_SUCCESS) return rc;
  if (types < 1) return MPI_ERR_TYPE;
  rc = basic_type(inner[0], basic);
  // Derived types that MPI_Type_get_contents returned are new handles.
  for (int i = 0; i < types; ++i) {
    int n = 0, a = 0, d = 0, c = 0;
    MPI_Datatype& t = inner[static_cast<std::size_t>(i)];
    if (MPI_Type_get_envelope(t, &n, &a, &d, &c) == MPI_SUCCESS && c != MPI_COMBINER_NAMED) {
      keep_first_error(&rc, MPI_Type_free(&t));
    }
  }
  return rc;
}

}  // namespace

int local_atomic(WinShared& s, const LocalAtomic& x) {
  TypeLayout target_layout;
  int rc = query_layout(x.target_type, &target_layout);
  if (rc != MPI_SUCCESS) return rc;
  const Typed target{x.target, x.target_count, x.target_type, target_layout};
  const std::lock_guard<std::mutex> hold(s.atomics);
  if (x.result) {
    TypeLayout result_layout;
    rc = query_layout(x.result_type, &result_layout);
    if (rc == MPI_SUCCESS) {
      rc = copy_typed(ConstTyped(target),
                      Typed{x.result, x.result_count, x.result_type, result_layout});
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  if (x.compare) {  // one element of a predefined type
    const auto bytes = static_cast<std::size_t>(target_layout.size);
    if (std::memcmp(x.target, x.compare, bytes) == 0) std::memcpy(x.target, x.origin, bytes);
    return MPI_SUCCESS;
  }
  if (x.op == MPI_NO_OP) return MPI_SUCCESS;
  TypeLayout origin_layout;
  rc = query_layout(x.origin_type, &origin_layout);
  if (rc != MPI_SUCCESS) return rc;
  const ConstTyped origin{x.origin, x.origin_count, x.origin_type, origin_layout};
  if (x.op == MPI_REPLACE) return copy_typed(origin, target);
  const std::int64_t bytes = std::min(origin.bytes(), target.bytes());
  if (bytes <= 0) return MPI_SUCCESS;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  rc = basic_type(x.target_type, &basic);
  int basic_size = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Type_size(basic, &basic_size);
  if (rc != MPI_SUCCESS) return rc;
  if (basic_size <= 0) return MPI_ERR_TYPE;
  auto in = std::make_unique<std::byte[]>(static_cast<std::size_t>(origin.bytes()));
  auto inout = std::make_unique<std::byte[]>(static_cast<std::size_t>(target.bytes()));
  rc = pack(origin, in.get());
  if (rc == MPI_SUCCESS) rc = pack(ConstTyped(target), inout.get());
  if (rc == MPI_SUCCESS) {
    rc = MPI_Reduce_local(in.get(), inout.get(), static_cast<int>(bytes / basic_size), basic, x.op);
  }
  if (rc == MPI_SUCCESS) rc = unpack(inout.get(), target.bytes(), target);
  return rc;
}

}  // namespace ep::detail
