// Probe, Iprobe, Mprobe, Improbe, Mrecv and Imrecv, with specific sources and
// wildcards: a probe reports the message a receive would get (Get_count gives
// its real size) without taking it; a matched probe takes it, so that nothing
// else can; nothing is ever reported for a tag nobody sends.
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr int kNobodySends = 99;

std::uint64_t key_of(int source, int dest, int tag, std::size_t bytes) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(dest),
                     static_cast<std::uint64_t>(tag), bytes);
}

// What the right neighbour is sent in part 1, in order: (tag, bytes).
struct Item {
  int tag;
  std::size_t bytes;
};
constexpr Item kScript[] = {{1, 10}, {1, 300000}, {2, 0}, {3, 1000}, {4, 70000}, {5, 24}};

class Probing {
 public:
  explicit Probing(Context& t) : t_(t), left_((t.rank() - 1 + t.size()) % t.size()) {}

  // Reports a probe or receive status, checks it is item `item` from `source`.
  void seen(const char* what, const api::Status& st, int source, const Item& item) {
    t_.expect_eq(st.MPI_SOURCE, source, fmt::format("{}: source", what));
    t_.expect_eq(st.MPI_TAG, item.tag, fmt::format("{}: tag", what));
    t_.expect_eq(count_of(st), static_cast<int>(item.bytes), fmt::format("{}: count", what));
    t_.out("{}: {}", what, describe(st));
  }

  // Checks a received payload and reports it.
  void received(const char* what, const api::Status& st, const GuardedBuffer& buffer,
                const Item& item) {
    seen(what, st, left_, item);
    const bool ok = payload_mismatch(buffer.span().first(item.bytes),
                                     key_of(left_, t_.rank(), item.tag, item.bytes)) < 0 &&
                    buffer.guards_intact();
    t_.check(ok, fmt::format("{}: payload", what));
    t_.out("{}: payload {}", what, ok ? "ok" : "BAD");
  }

  void run_script() {
    api::Status st{};
    int flag = -1;
    api::Message message = api::MESSAGE_NULL;

    // Nobody sends this tag: nothing to report, nothing taken.
    t_.check_rc(api::Iprobe(MPI_ANY_SOURCE, kNobodySends, t_.comm(), &flag, &st), "Iprobe");
    t_.out("Iprobe for a tag nobody sends: flag {}", flag);
    t_.check_rc(api::Improbe(left_, kNobodySends, t_.comm(), &flag, &message, &st), "Improbe");
    t_.out("Improbe for a tag nobody sends: flag {}", flag);

    // Probe does not take: probing twice sees the same message.
    t_.check_rc(api::Probe(left_, 1, t_.comm(), &st), "Probe");
    seen("Probe(left, 1)", st, left_, kScript[0]);
    t_.check_rc(api::Probe(left_, 1, t_.comm(), &st), "Probe");
    seen("Probe(left, 1) again", st, left_, kScript[0]);

    // Mprobe takes: after it, a probe for the same pattern sees the next one.
    t_.check_rc(api::Mprobe(left_, 1, t_.comm(), &message, &st), "Mprobe");
    seen("Mprobe(left, 1)", st, left_, kScript[0]);
    t_.check_rc(api::Probe(left_, 1, t_.comm(), &st), "Probe");
    seen("Probe(left, 1) after Mprobe", st, left_, kScript[1]);
    GuardedBuffer first(kScript[0].bytes);
    t_.check_rc(api::Mrecv(first.data(), static_cast<int>(first.size()), MPI_BYTE, &message, &st),
                "Mrecv");
    t_.check(message == api::MESSAGE_NULL, "Mrecv left the message set");
    received("Mrecv", st, first, kScript[0]);

    // Iprobe until it sees the large one; size the buffer from Get_count.
    do {
      t_.check_rc(api::Iprobe(left_, MPI_ANY_TAG, t_.comm(), &flag, &st), "Iprobe");
      if (!flag) relax();
    } while (!flag);
    seen("Iprobe(left, ANY_TAG)", st, left_, kScript[1]);
    GuardedBuffer second(static_cast<std::size_t>(count_of(st)));
    t_.check_rc(api::Recv(second.data(), count_of(st), MPI_BYTE, left_, st.MPI_TAG, t_.comm(), &st),
                "Recv");
    received("Recv after Iprobe", st, second, kScript[1]);

    // Improbe with ANY_SOURCE on the zero-byte one, then Imrecv.
    do {
      t_.check_rc(api::Improbe(MPI_ANY_SOURCE, 2, t_.comm(), &flag, &message, &st), "Improbe");
      if (!flag) relax();
    } while (!flag);
    seen("Improbe(ANY_SOURCE, 2)", st, left_, kScript[2]);
    GuardedBuffer third(0);
    api::Request request = api::REQUEST_NULL;
    t_.check_rc(api::Imrecv(third.data(), 0, MPI_BYTE, &message, &request), "Imrecv");
    t_.check_rc(api::Wait(&request, &st), "Wait");
    received("Imrecv+Wait", st, third, kScript[2]);

    // Full wildcards: probe, then receive exactly what the probe reported.
    t_.check_rc(api::Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, t_.comm(), &st), "Probe");
    seen("Probe(ANY, ANY)", st, left_, kScript[3]);
    GuardedBuffer fourth(static_cast<std::size_t>(count_of(st)));
    t_.check_rc(
        api::Recv(fourth.data(), count_of(st), MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, t_.comm(), &st),
        "Recv");
    received("Recv after Probe(ANY, ANY)", st, fourth, kScript[3]);

    // Mprobe with a wildcard tag on a rendezvous-sized message, then Imrecv
    // completed by Test.
    t_.check_rc(api::Mprobe(left_, MPI_ANY_TAG, t_.comm(), &message, &st), "Mprobe");
    seen("Mprobe(left, ANY_TAG)", st, left_, kScript[4]);
    GuardedBuffer fifth(static_cast<std::size_t>(count_of(st)));
    t_.check_rc(api::Imrecv(fifth.data(), count_of(st), MPI_BYTE, &message, &request), "Imrecv");
    flag = 0;
    while (!flag) {
      t_.check_rc(api::Test(&request, &flag, &st), "Test");
      if (!flag) relax();
    }
    received("Imrecv+Test", st, fifth, kScript[4]);

    // A message taken by Mprobe is invisible to receives: a Recv for the same
    // pattern posted before its Mrecv gets the next message, not this one.
    t_.check_rc(api::Mprobe(left_, 5, t_.comm(), &message, &st), "Mprobe");
    seen("Mprobe(left, 5)", st, left_, kScript[5]);
    t_.check_rc(api::Iprobe(left_, 5, t_.comm(), &flag, &st), "Iprobe");
    t_.out("Iprobe(left, 5) after Mprobe: flag {}", flag);
    GuardedBuffer sixth(kScript[5].bytes);
    t_.check_rc(api::Mrecv(sixth.data(), static_cast<int>(sixth.size()), MPI_BYTE, &message, &st),
                "Mrecv");
    received("Mrecv(left, 5)", st, sixth, kScript[5]);
  }

 private:
  Context& t_;
  int left_;
};

// Part 2: three messages from every rank to every rank; all received through
// wildcard probes. Each source's messages must come in the order sent.
void wildcard_storm(Context& t) {
  constexpr int kPerSource = 3;
  auto bytes_of = [](int source, int k) {
    return static_cast<std::size_t>((source * 37 + k * 11000) % 40000);
  };
  std::vector<std::vector<std::byte>> payloads;
  std::vector<api::Request> sends;
  for (int k = 0; k < kPerSource; ++k) {
    for (int dest = 0; dest < t.size(); ++dest) {
      payloads.emplace_back(bytes_of(t.rank(), k));
      fill_payload(payloads.back(), key_of(t.rank(), dest, 10 + k, payloads.back().size()));
      sends.emplace_back(api::REQUEST_NULL);
      t.check_rc(api::Isend(payloads.back().data(), static_cast<int>(payloads.back().size()),
                            MPI_BYTE, dest, 10 + k, t.comm(), &sends.back()),
                 "Isend");
    }
  }
  std::vector<int> next(static_cast<std::size_t>(t.size()), 0);
  int in_order = 0;
  for (int n = 0; n < kPerSource * t.size(); ++n) {
    api::Status probed{};
    api::Status st{};
    api::Message message = api::MESSAGE_NULL;
    std::vector<std::byte> buffer;
    const int way = n % 3;
    if (way == 0) {
      t.check_rc(api::Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm(), &probed), "Probe");
      buffer.resize(static_cast<std::size_t>(count_of(probed)));
      t.check_rc(api::Recv(buffer.data(), count_of(probed), MPI_BYTE, probed.MPI_SOURCE,
                           probed.MPI_TAG, t.comm(), &st),
                 "Recv");
    } else {
      if (way == 1) {
        t.check_rc(api::Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm(), &message, &probed), "Mprobe");
      } else {
        int flag = 0;
        while (!flag) {
          t.check_rc(api::Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm(), &flag, &message, &probed),
                     "Improbe");
          if (!flag) relax();
        }
      }
      buffer.resize(static_cast<std::size_t>(count_of(probed)));
      t.check_rc(api::Mrecv(buffer.data(), count_of(probed), MPI_BYTE, &message, &st), "Mrecv");
    }
    const int source = st.MPI_SOURCE;
    if (!t.check(source >= 0 && source < t.size() && source == probed.MPI_SOURCE,
                 "receive source differs from probe source")) {
      continue;
    }
    const int k = next[static_cast<std::size_t>(source)]++;
    const bool ok = st.MPI_TAG == 10 + k && buffer.size() == bytes_of(source, k) &&
                    payload_mismatch(buffer, key_of(source, t.rank(), 10 + k, buffer.size())) < 0;
    in_order += ok;
    t.check(ok,
            fmt::format("wildcard probe: message {} from {} out of order or damaged", k, source));
  }
  t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), api::STATUSES_IGNORE),
             "Waitall");
  t.out("wildcard probes: {} of {} messages in order and intact", in_order, kPerSource * t.size());
}

}  // namespace

void eptest::run(Context& t) {
  const int right = (t.rank() + 1) % t.size();
  std::vector<std::vector<std::byte>> payloads;
  std::vector<api::Request> sends;
  for (const Item& item : kScript) {
    payloads.emplace_back(item.bytes);
    fill_payload(payloads.back(), key_of(t.rank(), right, item.tag, item.bytes));
    sends.emplace_back(api::REQUEST_NULL);
    t.check_rc(api::Isend(payloads.back().data(), static_cast<int>(item.bytes), MPI_BYTE, right,
                          item.tag, t.comm(), &sends.back()),
               "Isend");
  }
  Probing(t).run_script();
  t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), api::STATUSES_IGNORE),
             "Waitall");
  // Part 1's wildcard probes must not see part 2's messages.
  t.barrier();
  wildcard_storm(t);
}
