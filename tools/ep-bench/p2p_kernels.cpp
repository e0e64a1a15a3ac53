#include "p2p_kernels.hpp"

namespace ep::bench {

namespace {
// A cheap byte mix: consecutive bytes and neighbouring seeds all differ.
std::byte payload_byte(std::uint32_t seed, std::size_t index) {
  const std::uint32_t x = (static_cast<std::uint32_t>(index) + seed) * 2654435761u;
  return static_cast<std::byte>(x >> 24);
}
}  // namespace

std::uint32_t payload_seed(int pair, int message, Role from) {
  const auto direction = from == Role::sender ? 0u : 1u;
  return static_cast<std::uint32_t>(pair) * 1000003u + static_cast<std::uint32_t>(message) * 7919u +
         direction * 104729u + 1u;
}

void fill_payload(std::span<std::byte> buffer, std::uint32_t seed) {
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = payload_byte(seed, i);
}

void clear_payload(std::span<std::byte> buffer, std::uint32_t seed) {
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = ~payload_byte(seed, i);
}

bool payload_matches(std::span<const std::byte> buffer, std::uint32_t seed) {
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (buffer[i] != payload_byte(seed, i)) return false;
  }
  return true;
}

}  // namespace ep::bench
