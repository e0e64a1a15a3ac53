#include "helpers.hpp"

#include <algorithm>

namespace eptest {

namespace {

constexpr std::byte kGuardByte{0xA5};

// splitmix64's finaliser: cheap, and every input bit reaches every output bit,
// so payloads of neighbouring keys and offsets differ.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One 64-bit word per 8 payload bytes keeps filling 1 MiB cheap.
std::uint64_t payload_word(std::uint64_t key, std::size_t word) { return mix(key ^ mix(word)); }

std::byte payload_byte(std::uint64_t key, std::size_t index) {
  return static_cast<std::byte>(payload_word(key, index / 8) >> (8 * (index % 8)));
}

}  // namespace

std::uint64_t message_key(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  return mix(mix(mix(mix(a) ^ b) ^ c) ^ d);
}

void fill_payload(std::span<std::byte> bytes, std::uint64_t key) {
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = payload_byte(key, i);
}

std::ptrdiff_t payload_mismatch(std::span<const std::byte> bytes, std::uint64_t key) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != payload_byte(key, i)) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

GuardedBuffer::GuardedBuffer(std::size_t size, std::size_t guard)
    : size_(size), guard_(guard), storage_(size + 2 * guard, kGuardByte) {}

bool GuardedBuffer::guards_intact() const {
  auto is_guard = [](std::byte b) { return b == kGuardByte; };
  return std::all_of(storage_.begin(), storage_.begin() + static_cast<std::ptrdiff_t>(guard_),
                     is_guard) &&
         std::all_of(storage_.end() - static_cast<std::ptrdiff_t>(guard_), storage_.end(),
                     is_guard);
}

int count_of(const api::Status& status, MPI_Datatype datatype) {
  int count = -1;
  if (api::Get_count(&status, datatype, &count) != MPI_SUCCESS) return -2;
  return count;
}

std::string describe(const api::Status& status) {
  return fmt::format("source={} tag={} bytes={}", status.MPI_SOURCE, status.MPI_TAG,
                     count_of(status));
}

std::string size_name(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{}MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{}KiB", bytes >> 10);
  return fmt::format("{}B", bytes);
}

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace eptest
