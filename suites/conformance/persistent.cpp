// Persistent requests: Send_init, Ssend_init, Rsend_init and Recv_init set up
// once and started many times (Start, Startall), with new contents each time;
// an inactive persistent request completes at once with an empty status and
// stays allocated until Request_free.
#include <vector>

#include "helpers.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;

std::uint64_t key_of(int source, int iteration, int tag) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(iteration),
                     static_cast<std::uint64_t>(tag), 0x9E);
}

bool is_empty(const api::Status& st) {
  return st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count_of(st) == 0;
}

// A ring (to the right, from the left) and a self loop, four persistent
// requests restarted together `iterations` times with Startall.
void ring_and_self(Context& t, std::size_t bytes, int iterations) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  const int n = static_cast<int>(bytes);
  std::vector<std::byte> to_right(bytes), to_self(bytes);
  GuardedBuffer from_left(bytes), from_self(bytes);
  api::Request requests[4] = {api::REQUEST_NULL, api::REQUEST_NULL, api::REQUEST_NULL,
                              api::REQUEST_NULL};
  t.check_rc(
      api::Recv_init(from_left.data(), n, MPI_BYTE, left, MPI_ANY_TAG, t.comm(), &requests[0]),
      "Recv_init");
  t.check_rc(
      api::Recv_init(from_self.data(), n, MPI_BYTE, MPI_ANY_SOURCE, 2, t.comm(), &requests[1]),
      "Recv_init");
  t.check_rc(api::Send_init(to_right.data(), n, MPI_BYTE, right, 1, t.comm(), &requests[2]),
             "Send_init");
  t.check_rc(api::Send_init(to_self.data(), n, MPI_BYTE, t.rank(), 2, t.comm(), &requests[3]),
             "Send_init");

  int good = 0;
  for (int i = 0; i < iterations; ++i) {
    // The buffers are the requests' own: refill them before each start.
    fill_payload(to_right, key_of(t.rank(), i, 1));
    fill_payload(to_self, key_of(t.rank(), i, 2));
    t.check_rc(api::Startall(4, requests), "Startall");
    api::Status statuses[4] = {};
    t.check_rc(api::Waitall(4, requests, statuses), "Waitall");
    bool ok = statuses[0].MPI_SOURCE == left && statuses[1].MPI_SOURCE == t.rank() &&
              count_of(statuses[0]) == n && count_of(statuses[1]) == n;
    ok = ok && payload_mismatch(from_left.span(), key_of(left, i, 1)) < 0;
    ok = ok && payload_mismatch(from_self.span(), key_of(t.rank(), i, 2)) < 0;
    ok = ok && from_left.guards_intact() && from_self.guards_intact();
    good += t.check(ok, fmt::format("ring {} iteration {}", bytes, i));
  }
  bool alive = true;
  for (api::Request& r : requests) alive = alive && r != api::REQUEST_NULL;
  t.check(alive, "Waitall freed a persistent request");
  t.out("ring+self {} x{}: {} good, requests kept after Waitall: {}", size_name(bytes), iterations,
        good, alive ? "yes" : "no");

  // Inactive persistent requests complete at once with an empty status.
  api::Status st{};
  st.MPI_SOURCE = 12345;
  t.check_rc(api::Wait(&requests[0], &st), "Wait inactive");
  const bool wait_empty = is_empty(st);
  t.check(wait_empty && requests[0] != api::REQUEST_NULL, "Wait on an inactive request");
  int flag = 0;
  st.MPI_SOURCE = 12345;
  t.check_rc(api::Test(&requests[2], &flag, &st), "Test inactive");
  t.check(flag == 1 && is_empty(st) && requests[2] != api::REQUEST_NULL,
          "Test on an inactive request");
  t.out("inactive: Wait empty={} Test flag={} empty={}", wait_empty ? "yes" : "no", flag,
        is_empty(st) ? "yes" : "no");

  for (api::Request& r : requests) {
    t.check_rc(api::Request_free(&r), "Request_free");
    t.check(r == api::REQUEST_NULL, "Request_free left the request set");
  }
}

// Synchronous and ready persistent sends, started one by one: the receives
// are always started (and, for ready mode, known to be started) first.
void modes_one_by_one(Context& t, int iterations) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  int out = 0;
  int in = -1;
  int go_in = 0;  // distinct: the two "go" requests are active at once
  int go_out = 0;
  // One receive per mode: an any-tag one could take a "go" message when the
  // left and right neighbours are the same rank.
  api::Request recv_s = api::REQUEST_NULL;
  api::Request recv_r = api::REQUEST_NULL;
  api::Request ssend = api::REQUEST_NULL;
  api::Request rsend = api::REQUEST_NULL;
  api::Request go_recv = api::REQUEST_NULL;
  api::Request go_send = api::REQUEST_NULL;
  t.check_rc(api::Recv_init(&in, 1, MPI_INT, left, 3, t.comm(), &recv_s), "Recv_init");
  t.check_rc(api::Recv_init(&in, 1, MPI_INT, left, 4, t.comm(), &recv_r), "Recv_init");
  t.check_rc(api::Ssend_init(&out, 1, MPI_INT, right, 3, t.comm(), &ssend), "Ssend_init");
  t.check_rc(api::Rsend_init(&out, 1, MPI_INT, right, 4, t.comm(), &rsend), "Rsend_init");
  // "My receive is started": from the right neighbour before it may Rsend to me.
  t.check_rc(api::Recv_init(&go_in, 1, MPI_INT, right, 5, t.comm(), &go_recv), "Recv_init");
  t.check_rc(api::Send_init(&go_out, 1, MPI_INT, left, 5, t.comm(), &go_send), "Send_init");

  int good = 0;
  for (int i = 0; i < iterations; ++i) {
    const bool ready = i % 2 == 1;
    out = 1000 * t.rank() + i;
    api::Status st{};
    api::Request& recv = ready ? recv_r : recv_s;
    t.check_rc(api::Start(&recv), "Start recv");
    if (ready) {
      t.check_rc(api::Start(&go_recv), "Start go");
      t.check_rc(api::Start(&go_send), "Start go");
      t.check_rc(api::Wait(&go_recv, api::STATUS_IGNORE), "Wait go");
      t.check_rc(api::Start(&rsend), "Start rsend");
      t.check_rc(api::Wait(&rsend, api::STATUS_IGNORE), "Wait rsend");
      t.check_rc(api::Wait(&go_send, api::STATUS_IGNORE), "Wait go");
    } else {
      t.check_rc(api::Start(&ssend), "Start ssend");
      t.check_rc(api::Wait(&ssend, api::STATUS_IGNORE), "Wait ssend");
    }
    t.check_rc(api::Wait(&recv, &st), "Wait recv");
    good += t.check(in == 1000 * left + i && st.MPI_TAG == (ready ? 4 : 3) && st.MPI_SOURCE == left,
                    fmt::format("{} iteration {}: got {} tag {}", ready ? "rsend" : "ssend", i, in,
                                st.MPI_TAG));
  }
  t.out("ssend/rsend persistent x{}: {} good", iterations, good);
  for (api::Request* r : {&recv_s, &recv_r, &ssend, &rsend, &go_recv, &go_send}) {
    t.check_rc(api::Request_free(r), "Request_free");
  }
}

// Persistent requests to and from MPI_PROC_NULL, mixed with null handles in
// one Startall/Waitall. Not on a reference MPI known to get the receive's
// status wrong (reference_mpi.hpp); the endpoint program then checks it
// without printing.
void proc_null(Context& t) {
  const bool reference_wrong = reference::kProcNullPersistentStatusWrong;
  if (reference_wrong && !kEndpoints) return;
  int out = 7;
  int in = -1;
  api::Request requests[3] = {api::REQUEST_NULL, api::REQUEST_NULL, api::REQUEST_NULL};
  t.check_rc(api::Send_init(&out, 1, MPI_INT, MPI_PROC_NULL, 6, t.comm(), &requests[0]),
             "Send_init");
  t.check_rc(api::Recv_init(&in, 1, MPI_INT, MPI_PROC_NULL, 6, t.comm(), &requests[1]),
             "Recv_init");
  int good = 0;
  for (int i = 0; i < 5; ++i) {
    t.check_rc(api::Startall(2, requests), "Startall");
    api::Status st[3] = {};
    t.check_rc(api::Waitall(3, requests, st), "Waitall");
    good += t.check(in == -1 && st[1].MPI_SOURCE == MPI_PROC_NULL && count_of(st[1]) == 0,
                    "persistent PROC_NULL receive");
  }
  if (!reference_wrong) t.out("persistent PROC_NULL x5: {} good", good);
  t.check_rc(api::Request_free(&requests[0]), "Request_free");
  t.check_rc(api::Request_free(&requests[1]), "Request_free");
}

}  // namespace

void eptest::run(Context& t) {
  ring_and_self(t, 64, 100);
  ring_and_self(t, 256 * 1024, 20);
  modes_one_by_one(t, 20);
  proc_null(t);
}
