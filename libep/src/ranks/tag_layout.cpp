#include "ranks/tag_layout.hpp"

#include <bit>

namespace ep::detail {

std::optional<TagLayout> TagLayout::make(int mpi_tag_ub, int max_endpoints_per_process) {
  if (mpi_tag_ub <= 0 || max_endpoints_per_process < 0) return std::nullopt;
  // Usable bits: every value below 2^bits is a valid MPI tag.
  const int total_bits = std::bit_width(static_cast<unsigned>(mpi_tag_ub) + 1u) - 1;
  const unsigned locals =
      static_cast<unsigned>(max_endpoints_per_process > 1 ? max_endpoints_per_process : 1);
  const int source_bits = std::bit_width(locals - 1u);
  const int user_bits = total_bits - source_bits;
  if (user_bits < 15) return std::nullopt;
  TagLayout layout;
  layout.source_bits_ = source_bits;
  layout.user_bits_ = user_bits;
  return layout;
}

}  // namespace ep::detail
