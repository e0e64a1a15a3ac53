#include "ranks/tag_layout.hpp"

#include <algorithm>
#include <bit>

namespace ep::detail {

std::optional<TagLayout> TagLayout::make(int mpi_tag_ub, int max_endpoints_per_process) {
  if (mpi_tag_ub <= 0 || max_endpoints_per_process < 0) return std::nullopt;
  constexpr int kMinUserBits = 15;
  // Usable bits: every value below 2^bits is a valid MPI tag.
  const int total_bits = std::bit_width(static_cast<unsigned>(mpi_tag_ub) + 1u) - 1;
  const int locals = std::max(max_endpoints_per_process, 1);
  const int source_bits = std::bit_width(static_cast<unsigned>(locals - 1));
  const int spare_bits = total_bits - source_bits - kMinUserBits;
  if (spare_bits < 0) return std::nullopt;
  // As few channels as the spare bits allow, and no fewer than kChannels
  // (unless there are fewer endpoints).
  const int most_per_channel = spare_bits >= 30 ? locals : std::min(locals, 1 << spare_bits);
  int channels = std::min(kChannels, locals);
  channels = std::max(channels, (locals + most_per_channel - 1) / most_per_channel);
  if (channels > kMaxChannels) return std::nullopt;
  TagLayout layout;
  layout.channels_ = channels;
  layout.per_channel_ = (locals + channels - 1) / channels;
  layout.dest_bits_ = std::bit_width(static_cast<unsigned>(layout.per_channel_ - 1));
  layout.source_bits_ = source_bits;
  layout.user_bits_ = total_bits - source_bits - layout.dest_bits_;
  return layout;
}

int TagLayout::max_endpoints_per_process(int mpi_tag_ub) {
  // make() accepts every count up to its limit and none beyond: the source
  // bits and the channels it needs only grow with the count.
  if (!make(mpi_tag_ub, 1)) return 0;
  int accepted = 1;
  int refused = 1 << 30;  // beyond any tag range's limit: 30 source bits leave no 15
  while (refused - accepted > 1) {
    const int middle = accepted + (refused - accepted) / 2;
    (make(mpi_tag_ub, middle) ? accepted : refused) = middle;
  }
  return accepted;
}

}  // namespace ep::detail
