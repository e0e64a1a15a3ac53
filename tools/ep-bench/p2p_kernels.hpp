// The point-to-point kernels: what one worker does in a timed repetition
// (ping-pong, windowed streaming), and the payload checks that --validate runs
// after the timed repetitions of a message size.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "watchdog.hpp"

namespace ep::bench {

enum class Role { sender, receiver };

// Each direction has its own tags. With --impl mpi-threads --placement intra
// both threads of a pair are the same MPI rank on the same communicator: only
// the tag keeps a thread from receiving its own message.
inline constexpr int tag_data = 1;        ///< sender -> receiver
inline constexpr int tag_echo = 2;        ///< receiver -> sender, ping-pong
inline constexpr int tag_ack = 3;         ///< receiver -> sender, end of a window
inline constexpr int tag_check = 4;       ///< sender -> receiver, --validate
inline constexpr int tag_check_echo = 5;  ///< receiver -> sender, --validate
/// The end-of-window acknowledgement is a small message, as in osu_bw.
inline constexpr int ack_bytes = 4;

/// One worker's buffers for one message size: `slots` non-overlapping
/// message-sized slots, each starting on a cache line. The receives of a
/// window each need their own slot (MPI forbids concurrent receives into one
/// buffer); the sends of a window all read slot 0, which MPI allows and osu_bw
/// does. Allocation zero-fills, so pages are touched before any timing.
class Buffers {
 public:
  Buffers(std::int64_t bytes, int slots)
      : stride_(round_up(static_cast<std::size_t>(bytes))),
        bytes_(static_cast<int>(bytes)),
        storage_(stride_ * static_cast<std::size_t>(slots) + ack_bytes) {}

  int bytes() const { return bytes_; }
  std::byte* slot(int i) { return storage_.data() + stride_ * static_cast<std::size_t>(i); }
  std::span<std::byte> slot_span(int i) { return {slot(i), static_cast<std::size_t>(bytes_)}; }

 private:
  static std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }
  std::size_t stride_;
  int bytes_;
  std::vector<std::byte> storage_;
};

/// Blocking ping-pong: the sender sends and waits for the echo. One iteration
/// is one round trip.
template <class Link>
void ping_pong(const Link& link, Role role, Buffers& buffers, std::int64_t iterations) {
  std::byte* buf = buffers.slot(0);
  const int bytes = buffers.bytes();
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    if (role == Role::sender) {
      link.send(buf, bytes, tag_data);
      link.recv(buf, bytes, tag_echo);
    } else {
      link.recv(buf, bytes, tag_data);
      link.send(buf, bytes, tag_echo);
    }
  }
}

/// Streaming, as osu_bw: per iteration the sender posts `window` Isends and
/// the receiver `window` Irecvs; both wait for all, then the receiver
/// acknowledges so that the next window starts only after this one arrived.
template <class Link>
void stream(const Link& link, Role role, Buffers& buffers, int window, std::int64_t iterations) {
  std::vector<typename Link::Request> requests(static_cast<std::size_t>(window));
  std::array<std::byte, ack_bytes> ack{};
  const int bytes = buffers.bytes();
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    if (role == Role::sender) {
      for (int j = 0; j < window; ++j) link.isend(buffers.slot(0), bytes, tag_data, &requests[j]);
      link.waitall(requests);
      link.recv(ack.data(), ack_bytes, tag_ack);
    } else {
      for (int j = 0; j < window; ++j) link.irecv(buffers.slot(j), bytes, tag_data, &requests[j]);
      link.waitall(requests);
      link.send(ack.data(), ack_bytes, tag_ack);
    }
  }
}

// --- payload checks (--validate), never timed --------------------------------

/// A payload that differs for each pair, message and direction, so that a
/// message delivered to the wrong receive, or twice, does not pass.
std::uint32_t payload_seed(int pair, int message, Role from);
void fill_payload(std::span<std::byte> buffer, std::uint32_t seed);
/// Fills with the complement of the payload: any byte left unwritten by a
/// receive then shows up as wrong, even where the payload byte is 0.
void clear_payload(std::span<std::byte> buffer, std::uint32_t seed);
bool payload_matches(std::span<const std::byte> buffer, std::uint32_t seed);

/// One checked round trip; returns the number of wrong messages this worker received.
template <class Link>
std::int64_t check_ping_pong(const Link& link, Role role, int pair, Buffers& buffers) {
  const auto buf = buffers.slot_span(0);
  const int bytes = buffers.bytes();
  const Role other = role == Role::sender ? Role::receiver : Role::sender;
  const int tag_in = role == Role::sender ? tag_check_echo : tag_check;
  const int tag_out = role == Role::sender ? tag_check : tag_check_echo;
  const auto receive_and_check = [&] {
    clear_payload(buf, payload_seed(pair, 0, other));
    const int count = link.recv_counted(buf.data(), bytes, tag_in);
    return (count == bytes && payload_matches(buf, payload_seed(pair, 0, other))) ? 0 : 1;
  };
  std::int64_t errors = 0;
  if (role == Role::receiver) errors += receive_and_check();
  fill_payload(buf, payload_seed(pair, 0, role));
  link.send(buf.data(), bytes, tag_out);
  if (role == Role::sender) errors += receive_and_check();
  return errors;
}

/// One checked window, each message with its own payload; returns the number
/// of wrong messages this worker received.
template <class Link>
std::int64_t check_stream(const Link& link, Role role, int pair, Buffers& buffers, int window) {
  std::vector<typename Link::Request> requests(static_cast<std::size_t>(window));
  std::array<std::byte, ack_bytes> ack{};
  const int bytes = buffers.bytes();
  std::int64_t errors = 0;
  if (role == Role::sender) {
    Buffers distinct(bytes, window);  // timed windows reuse one send buffer; here each differs
    for (int j = 0; j < window; ++j) {
      fill_payload(distinct.slot_span(j), payload_seed(pair, j, role));
      link.isend(distinct.slot(j), bytes, tag_check, &requests[j]);
    }
    link.waitall(requests);
    link.recv(ack.data(), ack_bytes, tag_ack);
  } else {
    for (int j = 0; j < window; ++j) {
      clear_payload(buffers.slot_span(j), payload_seed(pair, j, Role::sender));
      link.irecv(buffers.slot(j), bytes, tag_check, &requests[j]);
    }
    link.waitall(requests);
    for (int j = 0; j < window; ++j)
      errors += payload_matches(buffers.slot_span(j), payload_seed(pair, j, Role::sender)) ? 0 : 1;
    link.send(ack.data(), ack_bytes, tag_ack);
  }
  return errors;
}

}  // namespace ep::bench
