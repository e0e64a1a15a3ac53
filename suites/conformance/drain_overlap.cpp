// Receives posted in MPI while neighbours drain the inbox they share.
//
// Even ranks (posters) each receive a stream from one odd rank, by source
// and tag, one message at a time; odd ranks (drainers) probe with wildcards
// all the time, and send their stream a window at a time, the next window
// when the poster acknowledges the last. On endpoints the ranks of a process
// share one inbox channel (docs/design.md, "Between processes"): each
// wildcard probe of a drainer takes every message waiting on it off MPI,
// the posters' too, and queues them at their endpoints, while a poster whose
// queue is empty posts its next receive in MPI without the lane's lock. The
// window keeps posters' queues short, so they post in MPI often while drains
// take their messages: a post that went to MPI while a drain held the
// poster's next message, taken off MPI but not queued yet, would match the
// message after it (object/endpoint.hpp, Lane, says what prevents it). Each
// poster checks that its messages arrive in the order sent. Small messages
// travel whole, every 7th is a 3000-byte one (a notice and its data on the
// bulk channel), every 11th synchronous.
//
// The default layouts put each poster's sender in another process (sender
// of p: the odd rank size-1-p); an odd size leaves the last rank draining
// with no stream of its own.
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr int kTag = 4;
constexpr int kAckTag = 5;
constexpr int kDoneTag = 6;
constexpr int kWindow = 8;
constexpr std::size_t kLarge = 3000;

std::size_t size_of(int seq) {
  return seq % 7 == 6 ? kLarge : 8 + static_cast<std::size_t>(seq % 5);
}

std::uint64_t key_of(int source, int seq) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(seq), 41, 3);
}

// Ranks that take part in a pair: all but the last of an odd size.
int paired(int size) { return size - size % 2; }
// The other rank of the pair of `rank`, poster (even) or sender (odd).
int partner(int rank, int size) { return paired(size) - 1 - rank; }

}  // namespace

void eptest::run(Context& t) {
  const int size = t.size();
  const int rank = t.rank();
  if (size < 2) {
    t.out("one rank: nothing to exchange");
    return;
  }
  const int count = t.params().get_int("messages", 5000);
  const int posters = paired(size) / 2;

  if (rank % 2 == 0 && rank < paired(size)) {
    const int source = partner(rank, size);
    GuardedBuffer buffer(kLarge);
    int out_of_order = 0;
    for (int seq = 0; seq < count; ++seq) {
      api::Status st{};
      t.check_rc(
          api::Recv(buffer.data(), static_cast<int>(kLarge), MPI_BYTE, source, kTag, t.comm(), &st),
          "Recv");
      const std::size_t bytes = size_of(seq);
      const bool in_order = count_of(st) == static_cast<int>(bytes) &&
                            payload_mismatch(buffer.span().first(bytes), key_of(source, seq)) < 0;
      if (!in_order && out_of_order++ < 5) {
        t.fail(fmt::format("message {} from {}: not that message ({})", seq, source, describe(st)));
      }
      if (seq % kWindow == kWindow - 1 && seq + 1 < count) {
        t.check_rc(api::Send(nullptr, 0, MPI_BYTE, source, kAckTag, t.comm()), "Send ack");
      }
    }
    t.check(buffer.guards_intact(), "a receive overran its buffer");
    for (int drainer = 1; drainer < size; drainer += 2) {
      t.check_rc(api::Send(nullptr, 0, MPI_BYTE, drainer, kDoneTag, t.comm()), "Send done");
    }
    if (size % 2 == 1 && size - 1 != rank) {
      t.check_rc(api::Send(nullptr, 0, MPI_BYTE, size - 1, kDoneTag, t.comm()), "Send done");
    }
    t.out("{} receives {} messages from {}, {} out of order", rank, count, source, out_of_order);
    return;
  }

  // A drainer: wildcard probes until every poster is done, and its stream
  // (if it has a poster) a window at a time.
  const bool sends = rank < paired(size);
  const int dest = sends ? partner(rank, size) : -1;
  std::vector<std::vector<std::byte>> buffers(kWindow, std::vector<std::byte>(kLarge));
  std::vector<api::Request> window(kWindow, api::REQUEST_NULL);
  int sent = 0;
  const auto send_window = [&] {
    t.check_rc(api::Waitall(kWindow, window.data(), api::STATUSES_IGNORE), "Waitall window");
    for (int i = 0; i < kWindow && sent < count; ++i, ++sent) {
      auto& buffer = buffers[static_cast<std::size_t>(i)];
      const auto bytes = size_of(sent);
      fill_payload(std::span(buffer).first(bytes), key_of(rank, sent));
      const int n = static_cast<int>(bytes);
      api::Request* request = &window[static_cast<std::size_t>(i)];
      t.check_rc(sent % 11 == 10
                     ? api::Issend(buffer.data(), n, MPI_BYTE, dest, kTag, t.comm(), request)
                     : api::Isend(buffer.data(), n, MPI_BYTE, dest, kTag, t.comm(), request),
                 "Isend");
    }
  };
  if (sends) send_window();
  int done = 0;
  for (long polls = 1; done < posters; ++polls) {
    int flag = 0;
    api::Status st{};
    t.check_rc(api::Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm(), &flag, &st), "Iprobe");
    if (flag) {
      const bool ack = sends && st.MPI_TAG == kAckTag && st.MPI_SOURCE == dest;
      t.check(ack || st.MPI_TAG == kDoneTag, fmt::format("a drainer probed {}", describe(st)));
      t.check_rc(
          api::Recv(nullptr, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, t.comm(), api::STATUS_IGNORE),
          "Recv ack or done");
      if (ack) {
        send_window();
      } else {
        ++done;
      }
    }
    // The ranks share two cores here: a yield now and then.
    if (polls % 16 == 0) relax();
  }
  t.check_rc(api::Waitall(kWindow, window.data(), api::STATUSES_IGNORE), "Waitall window");
  t.out("{} sends {} messages to {}, probes until {} posters are done", rank, sends ? count : 0,
        dest, posters);
}
