#include "base/held_type.hpp"

namespace ep::detail {

HeldType& HeldType::operator=(HeldType&& other) noexcept {
  if (this != &other) {
    release();
    copy_ = std::exchange(other.copy_, MPI_DATATYPE_NULL);
  }
  return *this;
}

int HeldType::hold(MPI_Datatype* type) {
  release();
  if (is_predefined(*type)) return MPI_SUCCESS;
  MPI_Datatype copy = MPI_DATATYPE_NULL;
  const int rc = MPI_Type_dup(*type, &copy);
  if (rc != MPI_SUCCESS) return rc;
  copy_ = copy;
  *type = copy;
  return MPI_SUCCESS;
}

void HeldType::release() {
  // A failure has nobody to report to: the operation that held the
  // datatype is over.
  if (holding()) MPI_Type_free(&copy_);
  copy_ = MPI_DATATYPE_NULL;
}

int HeldTypes::hold(Typed* t) {
  if (is_predefined(t->type)) return MPI_SUCCESS;
  for (const auto& [user, held] : copies_) {
    if (user == t->type) {
      t->type = held.duplicate();
      return MPI_SUCCESS;
    }
  }
  MPI_Datatype type = t->type;
  HeldType held;
  const int rc = held.hold(&type);
  if (rc != MPI_SUCCESS) return rc;
  copies_.emplace_back(t->type, std::move(held));
  t->type = type;
  return MPI_SUCCESS;
}

}  // namespace ep::detail
