// A synchronous send completes only once a receive has matched it, even
// when the receiver has already seen the message: here the receiver probes
// for it (which takes it off MPI into libep's queue, on endpoints) and posts
// a wildcard receive for another tag, then lets the sender look at its
// Issend for a while before receiving. Pairs of neighbours, a small and a
// large message; with an odd size the last rank sends to itself.
#include <chrono>
#include <thread>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr int kData = 1;
constexpr int kGo = 3;
constexpr int kReport = 4;
constexpr int kOther = 9;
constexpr std::size_t kSizes[] = {8, 100000};

std::uint64_t key_of(int source, std::size_t bytes) {
  return message_key(static_cast<std::uint64_t>(source), bytes, 0x55E, 0);
}

// Tests `request` for a while; whether it ever completed.
bool completes_meanwhile(Context& t, api::Request* request) {
  for (int i = 0; i < 40; ++i) {
    int flag = 0;
    t.check_rc(api::Test(request, &flag, api::STATUS_IGNORE), "Test");
    if (flag) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return false;
}

void send_side(Context& t, int partner, std::size_t bytes) {
  std::vector<std::byte> data(bytes);
  fill_payload(data, key_of(t.rank(), bytes));
  api::Request request = api::REQUEST_NULL;
  t.check_rc(api::Issend(data.data(), static_cast<int>(bytes), MPI_BYTE, partner, kData, t.comm(),
                         &request),
             "Issend");
  if (partner != t.rank()) {
    int go = 0;
    t.check_rc(api::Recv(&go, 1, MPI_INT, partner, kGo, t.comm(), api::STATUS_IGNORE), "Recv go");
  }
  const int early = completes_meanwhile(t, &request) ? 1 : 0;
  if (partner != t.rank()) {
    t.check_rc(api::Send(&early, 1, MPI_INT, partner, kReport, t.comm()), "Send report");
  } else {
    t.out("Issend of {} bytes to oneself complete before its receive: {}", bytes,
          early ? "yes" : "no");
    t.check(!early, "an Issend completed before any receive matched it");
    std::vector<std::byte> in(bytes);
    t.check_rc(api::Recv(in.data(), static_cast<int>(bytes), MPI_BYTE, t.rank(), kData, t.comm(),
                         api::STATUS_IGNORE),
               "Recv");
  }
  if (request != api::REQUEST_NULL) t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
  const int other = 0;
  t.check_rc(api::Send(&other, 1, MPI_INT, partner, kOther, t.comm()), "Send other");
}

void receive_side(Context& t, int partner, std::size_t bytes) {
  int other = -1;
  api::Request wildcard = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&other, 1, MPI_INT, MPI_ANY_SOURCE, kOther, t.comm(), &wildcard), "Irecv");
  api::Status st{};
  int flag = 0;
  while (!flag) t.check_rc(api::Iprobe(partner, kData, t.comm(), &flag, &st), "Iprobe");
  t.expect_eq(count_of(st), static_cast<int>(bytes), "probed size");
  const int go = 1;
  t.check_rc(api::Send(&go, 1, MPI_INT, partner, kGo, t.comm()), "Send go");
  int early = -1;
  t.check_rc(api::Recv(&early, 1, MPI_INT, partner, kReport, t.comm(), api::STATUS_IGNORE),
             "Recv report");
  t.out("Issend of {} bytes from {} complete before its receive: {}", bytes, partner,
        early ? "yes" : "no");
  t.check(early == 0, "an Issend completed before any receive matched it");
  GuardedBuffer buffer(bytes);
  t.check_rc(
      api::Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, partner, kData, t.comm(), &st),
      "Recv");
  t.check(payload_mismatch(buffer.span().first(bytes), key_of(partner, bytes)) < 0,
          "payload of the synchronous message");
  t.check_rc(api::Wait(&wildcard, api::STATUS_IGNORE), "Wait wildcard");
}

}  // namespace

void eptest::run(Context& t) {
  const bool alone = t.size() % 2 == 1 && t.rank() == t.size() - 1;
  const int partner = alone ? t.rank() : (t.rank() % 2 == 0 ? t.rank() + 1 : t.rank() - 1);
  for (const std::size_t bytes : kSizes) {
    if (alone) {
      int other = -1;
      api::Request wildcard = api::REQUEST_NULL;
      t.check_rc(api::Irecv(&other, 1, MPI_INT, MPI_ANY_SOURCE, kOther, t.comm(), &wildcard),
                 "Irecv");
      send_side(t, partner, bytes);
      t.check_rc(api::Wait(&wildcard, api::STATUS_IGNORE), "Wait wildcard");
    } else if (t.rank() % 2 == 0) {
      send_side(t, partner, bytes);
    } else {
      receive_side(t, partner, bytes);
    }
    t.barrier();
  }
}
