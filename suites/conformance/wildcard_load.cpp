// Many endpoints of a process receiving at once, half of them with wildcard
// sources and half naming their source, while every rank streams messages at
// the others: `--messages` (default 200) per receiver, spread round-robin
// over every other rank, small ones carried whole, every 7th a 3000-byte
// message (a notice and its data on the bulk channel), every 11th
// synchronous.
//
// The endpoints of a process share one inbox channel per communicator
// (docs/design.md, "Between processes"), so a wildcard receiver's thread
// takes its neighbours' messages off MPI and queues them for them, while a
// neighbour that names its source posts its receives in MPI. If a receive
// could be posted in MPI between a neighbour taking a message for it off
// MPI and queueing it, the next message of that source would overtake: each
// receiver checks that every source's messages arrive in the order sent.
// The issue-11 load layouts (64 endpoints in one process, 2 x 32) run with
// 1000 messages per receiver, checking themselves (MODE ep): the plain-MPI
// twin would be 64 MPI processes on the test machine's two cores.
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr int kTag = 9;
constexpr std::size_t kLarge = 3000;

std::size_t size_of(int seq) {
  return seq % 7 == 6 ? kLarge : 8 + static_cast<std::size_t>(seq % 5);
}

std::uint64_t key_of(int source, int dest, int seq) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(dest),
                     static_cast<std::uint64_t>(seq), 77);
}

// The i-th message a rank sends goes to this rank: round-robin over the
// others, so that every receiver gets about as many from every source.
int destination(int rank, int size, int i) { return (rank + 1 + i % (size - 1)) % size; }

}  // namespace

void eptest::run(Context& t) {
  const int size = t.size();
  const int rank = t.rank();
  if (size < 2) {
    t.out("one rank: nothing to exchange");
    return;
  }
  const int per_receiver = t.params().get_int("messages", 200);
  // Every rank sends per_receiver messages in all, so every rank receives
  // as many; how many of them come from each source follows from the
  // round-robin order.
  std::vector<int> expected(static_cast<std::size_t>(size), 0);
  for (int source = 0; source < size; ++source) {
    for (int i = 0; i < per_receiver; ++i) {
      if (destination(source, size, i) == rank) ++expected[static_cast<std::size_t>(source)];
    }
  }

  std::vector<std::vector<std::byte>> send_buffers(static_cast<std::size_t>(per_receiver));
  std::vector<api::Request> sends(static_cast<std::size_t>(per_receiver), api::REQUEST_NULL);
  std::vector<int> sent_to(static_cast<std::size_t>(size), 0);
  for (int i = 0; i < per_receiver; ++i) {
    const int dest = destination(rank, size, i);
    const int seq = sent_to[static_cast<std::size_t>(dest)]++;
    auto& buffer = send_buffers[static_cast<std::size_t>(i)];
    buffer.resize(size_of(seq));
    fill_payload(buffer, key_of(rank, dest, seq));
    const int n = static_cast<int>(buffer.size());
    api::Request* request = &sends[static_cast<std::size_t>(i)];
    t.check_rc(i % 11 == 10 ? api::Issend(buffer.data(), n, MPI_BYTE, dest, kTag, t.comm(), request)
                            : api::Isend(buffer.data(), n, MPI_BYTE, dest, kTag, t.comm(), request),
               "Isend");
  }

  std::vector<int> next(static_cast<std::size_t>(size), 0);
  int out_of_order = 0;
  GuardedBuffer buffer(kLarge);
  const auto take = [&](const api::Status& st) {
    if (!t.check(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size && st.MPI_SOURCE != rank,
                 fmt::format("status source {} out of range", st.MPI_SOURCE))) {
      return;
    }
    int& seq = next[static_cast<std::size_t>(st.MPI_SOURCE)];
    const std::size_t bytes = size_of(seq);
    const bool in_order =
        count_of(st) == static_cast<int>(bytes) &&
        payload_mismatch(buffer.span().first(bytes), key_of(st.MPI_SOURCE, rank, seq)) < 0;
    if (!in_order && out_of_order++ < 5) {
      t.fail(fmt::format("message {} from {}: not that message ({} bytes, expected {})", seq,
                         st.MPI_SOURCE, count_of(st), bytes));
    }
    t.expect_eq(st.MPI_TAG, kTag, "status tag");
    ++seq;
  };
  const bool wildcard = rank % 2 == 0;
  if (wildcard) {
    for (int i = 0; i < per_receiver; ++i) {
      api::Status st{};
      t.check_rc(api::Recv(buffer.data(), static_cast<int>(kLarge), MPI_BYTE, MPI_ANY_SOURCE, kTag,
                           t.comm(), &st),
                 "Recv from MPI_ANY_SOURCE");
      take(st);
    }
  } else {
    // One message at a time from each source in turn: every receive is
    // posted while the neighbours' wildcard receives drain the inbox.
    for (int left = per_receiver; left > 0;) {
      for (int source = 0; source < size; ++source) {
        const auto s = static_cast<std::size_t>(source);
        if (next[s] >= expected[s]) continue;
        api::Status st{};
        t.check_rc(api::Recv(buffer.data(), static_cast<int>(kLarge), MPI_BYTE, source, kTag,
                             t.comm(), &st),
                   "Recv");
        t.expect_eq(st.MPI_SOURCE, source, "source of a specific receive");
        take(st);
        --left;
      }
    }
  }
  t.check(buffer.guards_intact(), "a receive overran its buffer");
  t.check_rc(api::Waitall(per_receiver, sends.data(), api::STATUSES_IGNORE), "Waitall sends");
  for (int source = 0; source < size; ++source) {
    const auto s = static_cast<std::size_t>(source);
    t.expect_eq(next[s], expected[s], fmt::format("messages from {}", source));
  }
  t.out("{} receives {} messages ({}), {} out of order", rank, per_receiver,
        wildcard ? "MPI_ANY_SOURCE" : "by source", out_of_order);
}
