// Building blocks shared by the conformance tests: payloads that identify
// their message, buffers with guard bytes, status descriptions, and polite
// polling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

namespace eptest {

/// A key naming one message; its payload bytes are a function of the key, so
/// a receiver can tell whether it got the message it should have.
std::uint64_t message_key(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d);
/// Fills `bytes` with the payload of message `key`.
void fill_payload(std::span<std::byte> bytes, std::uint64_t key);
/// The index of the first byte that is not the payload of `key`, or -1.
std::ptrdiff_t payload_mismatch(std::span<const std::byte> bytes, std::uint64_t key);

/// A receive buffer with guard bytes on both sides, to see overruns.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t size, std::size_t guard = 64);
  std::byte* data() { return storage_.data() + guard_; }
  const std::byte* data() const { return storage_.data() + guard_; }
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data(), size_}; }
  std::span<const std::byte> span() const { return {data(), size_}; }
  /// True while no byte outside [data(), data()+size()) has changed.
  bool guards_intact() const;

 private:
  std::size_t size_;
  std::size_t guard_;
  std::vector<std::byte> storage_;
};

/// "source=S tag=T bytes=N" for a status filled by a receive or a probe.
std::string describe(const api::Status& status);
/// The count of `status` in `datatype` units (MPI_UNDEFINED if partial).
int count_of(const api::Status& status, MPI_Datatype datatype = MPI_BYTE);

/// Yields the core between polls: more ranks than cores is normal here, and a
/// poll loop that never yields can starve the rank it waits for.
inline void relax() { std::this_thread::yield(); }

/// Human-readable byte counts for output lines ("64KiB").
std::string size_name(std::size_t bytes);

/// A small deterministic generator (splitmix64): every rank that seeds it
/// alike draws the same numbers, so all ranks know every rank's draws
/// without communicating.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in [0, n).
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t state_;
};

}  // namespace eptest
