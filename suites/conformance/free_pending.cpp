// Comm_free while requests on the communicator are pending is legal: the
// operations complete normally, and the communicator goes once they have.
// Every rank duplicates the communicator, posts a receive from its left
// neighbour and a send to its right one on the duplicate, frees it, and only
// then waits: small and large messages (a large one is still under way at
// the free: its data moves only once the receive is matched), completed by
// Wait, Waitall and a Testall loop; and a message matched by Mprobe before
// the free and received by Mrecv after it.
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

enum class How { Wait, Waitall, TestLoop, Mprobe };
constexpr How kHows[] = {How::Wait, How::Waitall, How::TestLoop, How::Mprobe};
constexpr const char* kNames[] = {"Wait", "Waitall", "Testall loop",
                                  "Mprobe before the free, Mrecv after"};

std::uint64_t key_of(int source, int round) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(round), 0xF4,
                     0);
}

void complete(Context& t, How how, api::Request* requests) {
  int flag = 0;
  switch (how) {
    case How::Wait:
    case How::Mprobe:  // the receive is done: requests[0] is null
      t.check_rc(api::Wait(&requests[0], api::STATUS_IGNORE), "Wait");
      t.check_rc(api::Wait(&requests[1], api::STATUS_IGNORE), "Wait");
      break;
    case How::Waitall:
      t.check_rc(api::Waitall(2, requests, api::STATUSES_IGNORE), "Waitall");
      break;
    case How::TestLoop:
      while (!flag) t.check_rc(api::Testall(2, requests, &flag, api::STATUSES_IGNORE), "Testall");
      break;
  }
}

}  // namespace

void eptest::run(Context& t) {
  const int left = (t.rank() - 1 + t.size()) % t.size();
  const int right = (t.rank() + 1) % t.size();
  int round = 0;
  for (const std::size_t bytes : {std::size_t{16}, std::size_t{200000}}) {
    for (int h = 0; h < static_cast<int>(std::size(kHows)); ++h) {
      const How how = kHows[h];
      ++round;
      api::Comm dup = api::COMM_NULL;
      t.check_rc(api::Comm_dup(t.comm(), &dup), "Comm_dup");
      GuardedBuffer in(bytes);
      std::vector<std::byte> out(bytes);
      fill_payload(out, key_of(t.rank(), round));
      const int count = static_cast<int>(bytes);
      api::Request requests[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
      if (how != How::Mprobe) {
        t.check_rc(api::Irecv(in.data(), count, MPI_BYTE, left, round, dup, &requests[0]), "Irecv");
      }
      t.check_rc(api::Isend(out.data(), count, MPI_BYTE, right, round, dup, &requests[1]), "Isend");
      api::Message message = api::MESSAGE_NULL;
      if (how == How::Mprobe) {
        t.check_rc(api::Mprobe(left, round, dup, &message, api::STATUS_IGNORE), "Mprobe");
      }
      t.check_rc(api::Comm_free(&dup), "Comm_free");
      t.check(dup == api::COMM_NULL, "Comm_free: the handle is not COMM_NULL");
      if (how == How::Mprobe) {
        t.check_rc(api::Mrecv(in.data(), count, MPI_BYTE, &message, api::STATUS_IGNORE), "Mrecv");
      }
      complete(t, how, requests);
      const bool ok = payload_mismatch(in.span(), key_of(left, round)) < 0 && in.guards_intact();
      t.check(ok, fmt::format("{} bytes, {}: payload from the left neighbour", bytes, kNames[h]));
      t.out("{} bytes pending across Comm_free, completed by {}: payload {}", bytes, kNames[h],
            ok ? "ok" : "BAD");
      t.barrier();
    }
  }
}
