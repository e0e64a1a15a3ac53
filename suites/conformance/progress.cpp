// Waiting on some requests moves the others on, as in MPI: every rank posts
// a receive from its left neighbour, sends a message past any eager limit to
// its right one, and waits for the send alone (Wait, Waitall, a Test loop,
// Waitany, Waitsome) before it waits for the receive. The send completes only
// once the right neighbour's receive takes the data, while that neighbour is
// itself waiting on its own send.
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr std::size_t kBytes = 100000;

enum class How { Wait, Waitall, TestLoop, Waitany, Waitsome };
constexpr How kHows[] = {How::Wait, How::Waitall, How::TestLoop, How::Waitany, How::Waitsome};
constexpr const char* kNames[] = {"Wait", "Waitall", "Test loop", "Waitany", "Waitsome"};

std::uint64_t key_of(int source, int round) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(round), 0x9A0,
                     0);
}

void wait_send(Context& t, How how, api::Request* send) {
  int index = -1;
  int outcount = 0;
  int flag = 0;
  switch (how) {
    case How::Wait:
      t.check_rc(api::Wait(send, api::STATUS_IGNORE), "Wait");
      break;
    case How::Waitall:
      t.check_rc(api::Waitall(1, send, api::STATUSES_IGNORE), "Waitall");
      break;
    case How::TestLoop:
      while (!flag) t.check_rc(api::Test(send, &flag, api::STATUS_IGNORE), "Test");
      break;
    case How::Waitany:
      t.check_rc(api::Waitany(1, send, &index, api::STATUS_IGNORE), "Waitany");
      break;
    case How::Waitsome:
      t.check_rc(api::Waitsome(1, send, &outcount, &index, api::STATUSES_IGNORE), "Waitsome");
      break;
  }
}

}  // namespace

void eptest::run(Context& t) {
  const int left = (t.rank() - 1 + t.size()) % t.size();
  const int right = (t.rank() + 1) % t.size();
  for (int round = 0; round < static_cast<int>(std::size(kHows)); ++round) {
    GuardedBuffer in(kBytes);
    api::Request recv = api::REQUEST_NULL;
    t.check_rc(
        api::Irecv(in.data(), static_cast<int>(kBytes), MPI_BYTE, left, round, t.comm(), &recv),
        "Irecv");
    std::vector<std::byte> out(kBytes);
    fill_payload(out, key_of(t.rank(), round));
    api::Request send = api::REQUEST_NULL;
    t.check_rc(
        api::Isend(out.data(), static_cast<int>(kBytes), MPI_BYTE, right, round, t.comm(), &send),
        "Isend");
    wait_send(t, kHows[round], &send);
    api::Status st{};
    t.check_rc(api::Wait(&recv, &st), "Wait receive");
    const bool ok = payload_mismatch(in.span(), key_of(left, round)) < 0 && in.guards_intact();
    t.check(ok, fmt::format("{}: payload from the left neighbour", kNames[round]));
    t.out("send waited with {}: received {} bytes from the left, payload {}", kNames[round],
          count_of(st), ok ? "ok" : "BAD");
    t.barrier();
  }
}
