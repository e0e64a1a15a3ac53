// A seeded storm of messages between all ranks: random destinations, tags,
// sizes and send modes (Send, Ssend, Isend, Issend), received through a mix of
// specific and wildcard receives. Every rank derives every rank's send plan
// from the seed, so each receiver knows exactly what it must get, and checks
// the MPI ordering rule: messages from one source match in the order sent.
//
// Phase 1 (posted path): all receives are posted before anyone sends, in four
// layers whose outcome MPI fixes regardless of timing:
//   (S, T) specific  - take the first messages of their (source, tag) class;
//   (ANY_SOURCE, 7)  - exactly as many as there are tag-7 messages;
//   (S, ANY_TAG)     - take S's next messages the specific ones left;
//   (ANY, ANY)       - take the rest; from each source in send order.
// Phase 2 (unexpected path): everything is sent non-blocking first, then
// received one blocking receive at a time with random patterns; each received
// message must be the oldest outstanding one of its source that the pattern
// matches.
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

enum class Mode { Send, Ssend, Isend, Issend };
enum class Kind { Specific, AnySourceTag7, SourceAnyTag, AnyAny };
constexpr int kWildTag = 7;

struct Message {
  int source = 0;
  int dest = 0;
  int seq = 0;  ///< index among the messages source sends to dest
  int tag = 0;
  std::size_t bytes = 0;
  Mode mode = Mode::Send;
};

std::uint64_t key_of(const Message& m, int phase) {
  return message_key(static_cast<std::uint64_t>(m.source), static_cast<std::uint64_t>(m.dest),
                     static_cast<std::uint64_t>(m.seq), static_cast<std::uint64_t>(phase));
}

// Mostly small messages, some past any eager limit.
std::size_t random_size(std::mt19937_64& rng) {
  constexpr std::size_t kSizes[] = {0, 1, 8, 100, 1000, 4096, 20000, 70000, 300000};
  constexpr int kWeights[] = {3, 3, 3, 3, 3, 2, 2, 1, 1};
  std::discrete_distribution<int> pick(std::begin(kWeights), std::end(kWeights));
  return kSizes[pick(rng)];
}

// What `source` sends in `phase`: a pure function of the seed and the source.
std::vector<Message> plan_of(int source, int size, int phase, int count, int seed) {
  std::mt19937_64 rng(message_key(static_cast<std::uint64_t>(seed),
                                  static_cast<std::uint64_t>(source),
                                  static_cast<std::uint64_t>(phase), 0xA11));
  std::vector<int> next_seq(static_cast<std::size_t>(size), 0);
  std::vector<Message> plan;
  for (int i = 0; i < count; ++i) {
    Message m;
    m.source = source;
    m.dest = static_cast<int>(rng() % static_cast<std::uint64_t>(size));
    m.seq = next_seq[static_cast<std::size_t>(m.dest)]++;
    const int tag = static_cast<int>(rng() % 5);  // 0..3, and 4 stands for the wildcard tag
    m.tag = tag == 4 ? kWildTag : tag;
    m.bytes = random_size(rng);
    m.mode = static_cast<Mode>(rng() % 4);
    plan.push_back(m);
  }
  return plan;
}

// The messages addressed to `rank`, per source, in send order.
std::vector<std::vector<Message>> incoming(int rank, int size, int phase, int count, int seed) {
  std::vector<std::vector<Message>> by_source(static_cast<std::size_t>(size));
  for (int source = 0; source < size; ++source) {
    for (const Message& m : plan_of(source, size, phase, count, seed)) {
      if (m.dest == rank) by_source[static_cast<std::size_t>(source)].push_back(m);
    }
  }
  return by_source;
}

// Starts every send of `plan`; blocking ones complete here, the others are
// appended to `pending`.
void send_all(Context& t, const std::vector<Message>& plan, int phase,
              std::vector<std::vector<std::byte>>& buffers, std::vector<api::Request>& pending) {
  for (const Message& m : plan) {
    buffers.emplace_back(m.bytes);
    fill_payload(buffers.back(), key_of(m, phase));
    const void* buf = buffers.back().data();
    const int n = static_cast<int>(m.bytes);
    api::Request request = api::REQUEST_NULL;
    switch (m.mode) {
      case Mode::Send:
        t.check_rc(api::Send(buf, n, MPI_BYTE, m.dest, m.tag, t.comm()), "Send");
        break;
      case Mode::Ssend:
        t.check_rc(api::Ssend(buf, n, MPI_BYTE, m.dest, m.tag, t.comm()), "Ssend");
        break;
      case Mode::Isend:
        t.check_rc(api::Isend(buf, n, MPI_BYTE, m.dest, m.tag, t.comm(), &request), "Isend");
        break;
      case Mode::Issend:
        t.check_rc(api::Issend(buf, n, MPI_BYTE, m.dest, m.tag, t.comm(), &request), "Issend");
        break;
    }
    if (request != api::REQUEST_NULL) pending.push_back(request);
  }
}

// Checks that the status and buffer of a receive hold message `m`.
bool matches(Context& t, const Message& m, const api::Status& st, const GuardedBuffer& buffer,
             int phase) {
  bool ok = t.expect_eq(st.MPI_SOURCE, m.source, "status source");
  ok &= t.expect_eq(st.MPI_TAG, m.tag, fmt::format("tag of message {} from {}", m.seq, m.source));
  ok &= t.expect_eq(count_of(st), static_cast<int>(m.bytes),
                    fmt::format("size of message {} from {}", m.seq, m.source));
  ok &= t.check(
      payload_mismatch(buffer.span().first(std::min(m.bytes, buffer.size())), key_of(m, phase)) < 0,
      fmt::format("payload of message {} from {}", m.seq, m.source));
  ok &= t.check(buffer.guards_intact(), "receive overran its buffer");
  return ok;
}

struct PostedReceive {
  Kind kind;
  int source;  // or MPI_ANY_SOURCE
  int tag;     // or MPI_ANY_TAG
};

// Chooses a receive kind for every incoming message and returns the receives
// in posting order: layer by layer, and within a layer in send order.
std::vector<PostedReceive> choose_receives(const std::vector<std::vector<Message>>& from,
                                           std::mt19937_64& rng) {
  std::array<std::vector<PostedReceive>, 4> layers;
  for (const auto& messages : from) {
    for (const Message& m : messages) {
      Kind kind = Kind::AnySourceTag7;
      if (m.tag != kWildTag) {
        constexpr std::array kOthers{Kind::Specific, Kind::SourceAnyTag, Kind::AnyAny};
        kind = kOthers[rng() % kOthers.size()];
      }
      const bool own_source = kind == Kind::Specific || kind == Kind::SourceAnyTag;
      const int tag = kind == Kind::Specific        ? m.tag
                      : kind == Kind::AnySourceTag7 ? kWildTag
                                                    : MPI_ANY_TAG;
      layers[static_cast<std::size_t>(kind)].push_back(
          {kind, own_source ? m.source : MPI_ANY_SOURCE, tag});
    }
  }
  std::vector<PostedReceive> receives;
  for (const auto& layer : layers) receives.insert(receives.end(), layer.begin(), layer.end());
  return receives;
}

// Which messages of one source each kind of receive must take, in order.
struct Expected {
  std::map<int, std::deque<Message>> specific;  // by tag
  std::deque<Message> tag7, source_any, any_any;
};

// Replays the layer rules for one source: its tag-7 messages go to the tag-7
// layer; of the rest, the first of each tag go to the specific receives, the
// next ones to the any-tag receives of this source, the remainder to any-any.
Expected expected_for(int source, const std::vector<Message>& messages,
                      const std::vector<PostedReceive>& receives) {
  std::map<int, int> specific_left;  // by tag
  int source_any_left = 0;
  for (const PostedReceive& r : receives) {
    if (r.kind == Kind::Specific && r.source == source) ++specific_left[r.tag];
    if (r.kind == Kind::SourceAnyTag && r.source == source) ++source_any_left;
  }
  Expected e;
  for (const Message& m : messages) {
    if (m.tag == kWildTag) {
      e.tag7.push_back(m);
    } else if (specific_left[m.tag] > 0) {
      --specific_left[m.tag];
      e.specific[m.tag].push_back(m);
    } else if (source_any_left > 0) {
      --source_any_left;
      e.source_any.push_back(m);
    } else {
      e.any_any.push_back(m);
    }
  }
  return e;
}

std::deque<Message>& queue_for(Expected& e, const PostedReceive& r) {
  switch (r.kind) {
    case Kind::Specific:
      return e.specific[r.tag];
    case Kind::AnySourceTag7:
      return e.tag7;
    case Kind::SourceAnyTag:
      return e.source_any;
    case Kind::AnyAny:
      break;
  }
  return e.any_any;
}

void posted_phase(Context& t, int count, int seed) {
  constexpr int kPhase = 1;
  const auto from = incoming(t.rank(), t.size(), kPhase, count, seed);
  std::mt19937_64 rng(message_key(static_cast<std::uint64_t>(seed),
                                  static_cast<std::uint64_t>(t.rank()), kPhase, 0xEC));
  const std::vector<PostedReceive> receives = choose_receives(from, rng);
  std::size_t largest = 0;
  for (const auto& messages : from) {
    for (const Message& m : messages) largest = std::max(largest, m.bytes);
  }

  std::vector<GuardedBuffer> buffers;
  std::vector<api::Request> requests(receives.size(), api::REQUEST_NULL);
  for (std::size_t i = 0; i < receives.size(); ++i) {
    buffers.emplace_back(largest);
    t.check_rc(api::Irecv(buffers[i].data(), static_cast<int>(largest), MPI_BYTE,
                          receives[i].source, receives[i].tag, t.comm(), &requests[i]),
               "Irecv");
  }
  t.barrier();  // every receive of every rank is posted before any send

  std::vector<std::vector<std::byte>> send_buffers;
  std::vector<api::Request> sends;
  send_all(t, plan_of(t.rank(), t.size(), kPhase, count, seed), kPhase, send_buffers, sends);
  std::vector<api::Status> statuses(receives.size());
  t.check_rc(api::Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data()),
             "Waitall receives");
  t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), api::STATUSES_IGNORE),
             "Waitall sends");

  // Walk the receives in posting order: each must hold the next message its
  // kind is due from the source it reports.
  for (int source = 0; source < t.size(); ++source) {
    Expected expected = expected_for(source, from[static_cast<std::size_t>(source)], receives);
    std::array<std::string, 4> taken;
    for (std::size_t i = 0; i < receives.size(); ++i) {
      if (statuses[i].MPI_SOURCE != source) continue;
      std::deque<Message>& due = queue_for(expected, receives[i]);
      if (!t.check(!due.empty(),
                   fmt::format("receive {} got a message from {} it should not have", i, source))) {
        continue;
      }
      matches(t, due.front(), statuses[i], buffers[i], kPhase);
      taken[static_cast<std::size_t>(receives[i].kind)] += fmt::format(" {}", due.front().seq);
      due.pop_front();
    }
    t.out("posted from {}: specific [{}] anysource-tag7 [{}] source-anytag [{}] any-any [{}]",
          source, taken[0], taken[1], taken[2], taken[3]);
  }
}

// Receive patterns of phase 2.
enum class Pattern { AnyAny, SourceAny, AnySourceTag, Specific };

void unexpected_phase(Context& t, int count, int seed) {
  constexpr int kPhase = 2;
  const auto from = incoming(t.rank(), t.size(), kPhase, count, seed);
  std::vector<std::deque<Message>> outstanding;
  for (const auto& messages : from) outstanding.emplace_back(messages.begin(), messages.end());
  std::size_t largest = 0;
  std::size_t total = 0;
  for (const auto& messages : from) {
    total += messages.size();
    for (const Message& m : messages) largest = std::max(largest, m.bytes);
  }

  // Non-blocking sends only: this rank receives with blocking calls next.
  std::vector<Message> plan = plan_of(t.rank(), t.size(), kPhase, count, seed);
  for (Message& m : plan)
    m.mode = m.mode == Mode::Ssend || m.mode == Mode::Issend ? Mode::Issend : Mode::Isend;
  std::vector<std::vector<std::byte>> send_buffers;
  std::vector<api::Request> sends;
  send_all(t, plan, kPhase, send_buffers, sends);

  std::mt19937_64 rng(message_key(static_cast<std::uint64_t>(seed),
                                  static_cast<std::uint64_t>(t.rank()), kPhase, 0xEC));
  std::vector<int> received(from.size(), 0);
  GuardedBuffer buffer(largest);
  for (std::size_t n = 0; n < total; ++n) {
    // Pick a pattern that some outstanding message matches.
    std::vector<int> live;
    for (int s = 0; s < t.size(); ++s) {
      if (!outstanding[static_cast<std::size_t>(s)].empty()) live.push_back(s);
    }
    const int pick_source = live[rng() % live.size()];
    const auto& candidates = outstanding[static_cast<std::size_t>(pick_source)];
    const int pick_tag = candidates[rng() % candidates.size()].tag;
    const auto pattern = static_cast<Pattern>(rng() % 4);
    const bool any_source = pattern == Pattern::AnyAny || pattern == Pattern::AnySourceTag;
    const bool any_tag = pattern == Pattern::AnyAny || pattern == Pattern::SourceAny;
    api::Status st{};
    t.check_rc(api::Recv(buffer.data(), static_cast<int>(largest), MPI_BYTE,
                         any_source ? MPI_ANY_SOURCE : pick_source,
                         any_tag ? MPI_ANY_TAG : pick_tag, t.comm(), &st),
               "Recv");
    // Non-overtaking: the oldest outstanding message of that source that the
    // pattern matches.
    if (!t.check(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < t.size(), "status source out of range")) {
      continue;
    }
    if (!any_source) t.expect_eq(st.MPI_SOURCE, pick_source, "source of a specific receive");
    auto& queue = outstanding[static_cast<std::size_t>(st.MPI_SOURCE)];
    const auto due = std::find_if(queue.begin(), queue.end(),
                                  [&](const Message& m) { return any_tag || m.tag == pick_tag; });
    if (!t.check(due != queue.end(), fmt::format("nothing was due from {}", st.MPI_SOURCE)))
      continue;
    if (matches(t, *due, st, buffer, kPhase)) ++received[static_cast<std::size_t>(st.MPI_SOURCE)];
    queue.erase(due);
  }
  t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), api::STATUSES_IGNORE),
             "Waitall sends");
  for (int s = 0; s < t.size(); ++s) {
    t.out("unexpected from {}: {} of {} messages as due", s, received[static_cast<std::size_t>(s)],
          from[static_cast<std::size_t>(s)].size());
  }
}

}  // namespace

void eptest::run(Context& t) {
  const int count = t.params().get_int("messages", 40);
  const int seed = t.params().get_int("seed", 20261121);
  posted_phase(t, count, seed);
  // Phase 1's any-any receives would take phase 2's messages: finish first.
  t.barrier();
  unexpected_phase(t, count, seed);
}
