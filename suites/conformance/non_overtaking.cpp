// Non-overtaking: many messages between every pair of ranks (a rank and
// itself included), all with one tag, small and large sizes interleaved so
// that eager messages could overtake rendezvous ones if the library let them.
// Receivers identify each message by its payload and check that every source's
// messages arrive in the order sent, whatever mix of specific and wildcard
// receives took them.
#include <random>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr int kTag = 5;
// Alternating below and above any eager limit; zero bytes too.
constexpr std::size_t kSizes[] = {1, 100000, 0, 17, 140000, 4096, 64, 70000};
constexpr std::size_t kLargest = 140000;

std::size_t size_of(int seq) { return kSizes[static_cast<std::size_t>(seq) % std::size(kSizes)]; }

std::uint64_t key_of(int source, int dest, int seq, int round) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(dest),
                     static_cast<std::uint64_t>(seq), static_cast<std::uint64_t>(round));
}

// Per-source bookkeeping on the receiving side.
struct Arrivals {
  std::vector<int> next_seq;  // by source: the seq due next
  int out_of_order = 0;

  explicit Arrivals(int size) : next_seq(static_cast<std::size_t>(size), 0) {}

  // Checks one received message against the next one due from its source.
  void take(Context& t, const api::Status& st, const GuardedBuffer& buffer, int round) {
    if (!t.check(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < t.size(), "status source out of range")) {
      return;
    }
    int& seq = next_seq[static_cast<std::size_t>(st.MPI_SOURCE)];
    const std::size_t bytes = size_of(seq);
    const bool in_order = count_of(st) == static_cast<int>(bytes) &&
                          payload_mismatch(buffer.span().first(bytes),
                                           key_of(st.MPI_SOURCE, t.rank(), seq, round)) < 0;
    if (!t.check(in_order, fmt::format("round {}: message from {} is not its message {} ({} bytes, "
                                       "got {} bytes)",
                                       round, st.MPI_SOURCE, seq, bytes, count_of(st)))) {
      ++out_of_order;
    }
    t.expect_eq(st.MPI_TAG, kTag, "status tag");
    t.check(buffer.guards_intact(), "receive overran its buffer");
    ++seq;
  }

  void report(Context& t, int round, int expected) {
    for (int source = 0; source < t.size(); ++source) {
      t.out("round {}: from {} received {} of {}", round, source,
            next_seq[static_cast<std::size_t>(source)], expected);
    }
    t.out("round {}: {} out of order", round, out_of_order);
  }
};

// Sends `count` messages to every rank; blocking modes only when the receives
// are known to be posted.
void send_round(Context& t, int round, int count, bool blocking,
                std::vector<std::vector<std::byte>>& buffers, std::vector<api::Request>& requests) {
  for (int seq = 0; seq < count; ++seq) {
    for (int k = 0; k < t.size(); ++k) {
      const int dest = (t.rank() + k) % t.size();
      buffers.emplace_back(size_of(seq));
      fill_payload(buffers.back(), key_of(t.rank(), dest, seq, round));
      const int n = static_cast<int>(buffers.back().size());
      const std::byte* data = buffers.back().data();
      if (blocking) {
        const bool sync = (seq + k) % 2 == 1;
        t.check_rc(sync ? api::Ssend(data, n, MPI_BYTE, dest, kTag, t.comm())
                        : api::Send(data, n, MPI_BYTE, dest, kTag, t.comm()),
                   sync ? "Ssend" : "Send");
      } else {
        requests.emplace_back(api::REQUEST_NULL);
        t.check_rc(api::Isend(data, n, MPI_BYTE, dest, kTag, t.comm(), &requests.back()), "Isend");
      }
    }
  }
}

// Round 1: everything is sent first (non-blocking), then received one at a
// time with a seeded mix of (source, tag), (source, ANY_TAG), (ANY_SOURCE,
// tag) and (ANY_SOURCE, ANY_TAG).
void receive_one_by_one(Context& t, int count, int seed) {
  constexpr int kRound = 1;
  std::vector<std::vector<std::byte>> buffers;
  std::vector<api::Request> requests;
  send_round(t, kRound, count, false, buffers, requests);

  std::mt19937 rng(static_cast<unsigned>(seed + t.rank()));
  Arrivals arrivals(t.size());
  GuardedBuffer buffer(kLargest);
  for (int n = 0; n < count * t.size(); ++n) {
    // Only sources with messages left may be named.
    int source = MPI_ANY_SOURCE;
    const int choice = static_cast<int>(rng() % 4);
    if (choice >= 2) {
      do {
        source = static_cast<int>(rng() % static_cast<unsigned>(t.size()));
      } while (arrivals.next_seq[static_cast<std::size_t>(source)] >= count);
    }
    const int tag = choice % 2 == 0 ? MPI_ANY_TAG : kTag;
    api::Status st{};
    t.check_rc(
        api::Recv(buffer.data(), static_cast<int>(kLargest), MPI_BYTE, source, tag, t.comm(), &st),
        "Recv");
    if (source != MPI_ANY_SOURCE)
      t.expect_eq(st.MPI_SOURCE, source, "source of a specific receive");
    arrivals.take(t, st, buffer, kRound);
  }
  t.check_rc(api::Waitall(static_cast<int>(requests.size()), requests.data(), api::STATUSES_IGNORE),
             "Waitall sends");
  arrivals.report(t, kRound, count);
}

// Round 2: every receive is posted before any send (specific ones first, then
// ANY_SOURCE ones, so that every message finds one), and senders use blocking
// Send and Ssend. Completion order is free, but per source the receives must
// hold consecutive messages in posting order.
void preposted(Context& t, int count, int seed) {
  constexpr int kRound = 2;
  std::mt19937 rng(static_cast<unsigned>(seed * 7 + t.rank()));
  std::vector<int> sources;
  std::vector<int> wildcards;
  for (int source = 0; source < t.size(); ++source) {
    const int specific = static_cast<int>(rng() % static_cast<unsigned>(count + 1));
    sources.insert(sources.end(), static_cast<std::size_t>(specific), source);
    wildcards.insert(wildcards.end(), static_cast<std::size_t>(count - specific), MPI_ANY_SOURCE);
  }
  sources.insert(sources.end(), wildcards.begin(), wildcards.end());

  std::vector<GuardedBuffer> buffers;
  std::vector<api::Request> requests(sources.size(), api::REQUEST_NULL);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    buffers.emplace_back(kLargest);
    t.check_rc(api::Irecv(buffers.back().data(), static_cast<int>(kLargest), MPI_BYTE, sources[i],
                          kTag, t.comm(), &requests[i]),
               "Irecv");
  }
  t.barrier();

  std::vector<std::vector<std::byte>> send_buffers;
  std::vector<api::Request> unused;
  send_round(t, kRound, count, true, send_buffers, unused);
  std::vector<api::Status> statuses(sources.size());
  t.check_rc(api::Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data()),
             "Waitall");
  Arrivals arrivals(t.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] != MPI_ANY_SOURCE) t.expect_eq(statuses[i].MPI_SOURCE, sources[i], "source");
    arrivals.take(t, statuses[i], buffers[i], kRound);
  }
  arrivals.report(t, kRound, count);
}

}  // namespace

void eptest::run(Context& t) {
  const int count = t.params().get_int("messages", 12);
  const int seed = t.params().get_int("seed", 4242);
  // Each rank takes all of its round-1 messages before posting round 2's
  // receives, so the rounds cannot mix.
  receive_one_by_one(t, count, seed);
  preposted(t, count, seed);
}
