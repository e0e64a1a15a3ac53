#include "rma_test.hpp"

#include <fmt/format.h>

#include <cstring>

namespace eptest::rma {

Window allocate(Context& t, api::Comm comm, int ints, int disp_unit) {
  Window w;
  w.ints = ints;
  const MPI_Aint bytes = ((static_cast<MPI_Aint>(ints) * sizeof(int) + 63) / 64) * 64;
  void* base = nullptr;
  if (!t.check_rc(api::Win_allocate(bytes, disp_unit, MPI_INFO_NULL, comm, &base, &w.win),
                  "Win_allocate"))
    return w;
  w.base = static_cast<int*>(base);
  t.check_rc(api::Win_set_errhandler(w.win, MPI_ERRORS_RETURN), "Win_set_errhandler");
  std::memset(w.base, 0, static_cast<std::size_t>(bytes));
  // The fence makes the zeroes visible to every rank before any access;
  // NOSUCCEED: no fence epoch follows, passive-target epochs may.
  t.check_rc(api::Win_fence(MPI_MODE_NOSUCCEED, w.win), "Win_fence after zeroing");
  return w;
}

void free_window(Context& t, api::Win& win) {
  t.check_rc(api::Win_free(&win), "Win_free");
  t.check(win == api::WIN_NULL, "Win_free left the handle set");
}

std::vector<int> read_locked(Context& t, api::Win win, int target, int disp, int count) {
  std::vector<int> out(static_cast<std::size_t>(count), -1);
  t.check_rc(api::Win_lock(MPI_LOCK_SHARED, target, 0, win), "Win_lock(shared) to read");
  t.check_rc(api::Get(out.data(), count, MPI_INT, target, disp, count, MPI_INT, win), "Get");
  t.check_rc(api::Win_unlock(target, win), "Win_unlock after reading");
  return out;
}

std::string join(const int* v, int count) {
  std::string s;
  for (int i = 0; i < count; ++i) {
    if (i) s += ' ';
    s += std::to_string(v[i]);
  }
  return s;
}

std::string join(const std::vector<int>& v) { return join(v.data(), static_cast<int>(v.size())); }

std::string class_of(int rc) {
  if (rc == MPI_SUCCESS) return "MPI_SUCCESS";
  return error_class_name(error_class_of(rc));
}

std::string flavor_name(int flavor) {
  switch (flavor) {
    case MPI_WIN_FLAVOR_CREATE:
      return "MPI_WIN_FLAVOR_CREATE";
    case MPI_WIN_FLAVOR_ALLOCATE:
      return "MPI_WIN_FLAVOR_ALLOCATE";
    case MPI_WIN_FLAVOR_DYNAMIC:
      return "MPI_WIN_FLAVOR_DYNAMIC";
    case MPI_WIN_FLAVOR_SHARED:
      return "MPI_WIN_FLAVOR_SHARED";
    default:
      return fmt::format("flavor {}", flavor);
  }
}

std::string model_name(int model) {
  switch (model) {
    case MPI_WIN_UNIFIED:
      return "MPI_WIN_UNIFIED";
    case MPI_WIN_SEPARATE:
      return "MPI_WIN_SEPARATE";
    default:
      return fmt::format("model {}", model);
  }
}

}  // namespace eptest::rma
