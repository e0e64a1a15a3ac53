// The special cases of point-to-point: MPI_PROC_NULL as source and
// destination of every kind of call, zero-count messages (with null buffers
// too), and messages to oneself, including synchronous and large ones.
#include <algorithm>
#include <array>
#include <vector>

#include "helpers.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;

// A receive or probe on MPI_PROC_NULL completes at once with this status and
// leaves the buffer alone. Where the reference MPI is known to get the status
// wrong (reference_mpi.hpp), the reference skips the check and the endpoint
// program checks without printing.
void expect_proc_null_status(Context& t, const api::Status& st, const char* call,
                             bool reference_wrong = false) {
  if (reference_wrong && !kEndpoints) return;
  t.expect_eq(st.MPI_SOURCE, MPI_PROC_NULL, fmt::format("{}: status source", call));
  t.expect_eq(st.MPI_TAG, MPI_ANY_TAG, fmt::format("{}: status tag", call));
  t.expect_eq(count_of(st), 0, fmt::format("{}: status count", call));
  if (reference_wrong) return;
  t.out("{} on PROC_NULL: source={} tag={} bytes={}", call,
        st.MPI_SOURCE == MPI_PROC_NULL ? "PROC_NULL" : fmt::format("{}", st.MPI_SOURCE),
        st.MPI_TAG == MPI_ANY_TAG ? "ANY_TAG" : fmt::format("{}", st.MPI_TAG), count_of(st));
}

void proc_null(Context& t) {
  std::array<int, 4> data{1, 2, 3, 4};
  GuardedBuffer buffer(sizeof(int) * 4);
  const std::vector<std::byte> before(buffer.data(), buffer.data() + buffer.size());
  auto untouched = [&] { return std::equal(before.begin(), before.end(), buffer.data()); };

  // Sends to PROC_NULL succeed at once, in every mode.
  t.check_rc(api::Send(data.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm()), "Send");
  t.check_rc(api::Ssend(data.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm()), "Ssend");
  t.check_rc(api::Rsend(data.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm()), "Rsend");
  api::Request request = api::REQUEST_NULL;
  api::Status st{};
  t.check_rc(api::Isend(data.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm(), &request), "Isend");
  t.check_rc(api::Wait(&request, &st), "Wait Isend");
  t.check_rc(api::Issend(data.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm(), &request), "Issend");
  int flag = 0;
  t.check_rc(api::Test(&request, &flag, &st), "Test Issend");
  t.out("Issend to PROC_NULL: complete at first Test: {}", flag ? "yes" : "no");
  if (!t.check(flag == 1, "Issend to PROC_NULL did not complete at once")) {
    api::Wait(&request, api::STATUS_IGNORE);
  }

  st = {};
  t.check_rc(api::Recv(buffer.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm(), &st), "Recv");
  expect_proc_null_status(t, st, "Recv");
  st = {};
  t.check_rc(api::Irecv(buffer.data(), 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, t.comm(), &request),
             "Irecv");
  t.check_rc(api::Wait(&request, &st), "Wait");
  expect_proc_null_status(t, st, "Irecv+Wait", reference::kProcNullIrecvStatusWrong);
  st = {};
  t.check_rc(api::Probe(MPI_PROC_NULL, 3, t.comm(), &st), "Probe");
  expect_proc_null_status(t, st, "Probe");
  st = {};
  flag = 0;
  t.check_rc(api::Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, t.comm(), &flag, &st), "Iprobe");
  t.expect_eq(flag, 1, "Iprobe flag");
  expect_proc_null_status(t, st, "Iprobe");

  // Matched probes hand out the no-process message; receiving it is a no-op.
  api::Message message = api::MESSAGE_NULL;
  st = {};
  t.check_rc(api::Mprobe(MPI_PROC_NULL, 1, t.comm(), &message, &st), "Mprobe");
  t.check(message == api::MESSAGE_NO_PROC, "Mprobe on PROC_NULL: not MESSAGE_NO_PROC");
  expect_proc_null_status(t, st, "Mprobe");
  st = {};
  t.check_rc(api::Mrecv(buffer.data(), 4, MPI_INT, &message, &st), "Mrecv");
  t.check(message == api::MESSAGE_NULL, "Mrecv left the message set");
  expect_proc_null_status(t, st, "Mrecv");
  flag = 0;
  t.check_rc(api::Improbe(MPI_PROC_NULL, MPI_ANY_TAG, t.comm(), &flag, &message, &st), "Improbe");
  t.check(flag == 1 && message == api::MESSAGE_NO_PROC, "Improbe on PROC_NULL");
  t.check_rc(api::Imrecv(buffer.data(), 4, MPI_INT, &message, &request), "Imrecv");
  st = {};
  t.check_rc(api::Wait(&request, &st), "Wait Imrecv");
  expect_proc_null_status(t, st, "Imrecv+Wait");

  st = {};
  t.check_rc(api::Sendrecv(data.data(), 4, MPI_INT, MPI_PROC_NULL, 1, buffer.data(), 4, MPI_INT,
                           MPI_PROC_NULL, 1, t.comm(), &st),
             "Sendrecv");
  expect_proc_null_status(t, st, "Sendrecv");

  t.check_rc(api::Recv_init(buffer.data(), 4, MPI_INT, MPI_PROC_NULL, 1, t.comm(), &request),
             "Recv_init");
  t.check_rc(api::Start(&request), "Start");
  st = {};
  t.check_rc(api::Wait(&request, &st), "Wait persistent");
  expect_proc_null_status(t, st, "Recv_init+Start+Wait", reference::kProcNullPersistentStatusWrong);
  t.check_rc(api::Request_free(&request), "Request_free");

  t.check(untouched() && buffer.guards_intact(), "a PROC_NULL receive wrote to its buffer");

  // The classic open chain: rank 0 receives from nobody, the last rank sends
  // to nobody, everyone else passes its rank along.
  const int right = t.rank() + 1 < t.size() ? t.rank() + 1 : MPI_PROC_NULL;
  const int left = t.rank() > 0 ? t.rank() - 1 : MPI_PROC_NULL;
  int mine = 100 + t.rank();
  int got = -1;
  st = {};
  t.check_rc(api::Sendrecv(&mine, 1, MPI_INT, right, 2, &got, 1, MPI_INT, left, 2, t.comm(), &st),
             "Sendrecv chain");
  t.expect_eq(got, left == MPI_PROC_NULL ? -1 : 100 + left, "chain value");
  t.out("chain: got {} from {}", got, describe(st));
}

// Zero-count messages between every pair, with null buffers and with real
// ones, received by specific and wildcard receives.
void zero_count(Context& t) {
  std::vector<api::Request> sends(2 * static_cast<std::size_t>(t.size()), api::REQUEST_NULL);
  for (int dest = 0; dest < t.size(); ++dest) {
    const auto d = static_cast<std::size_t>(dest);
    t.check_rc(api::Isend(nullptr, 0, MPI_INT, dest, 20, t.comm(), &sends[2 * d]), "Isend null");
    t.check_rc(api::Isend(nullptr, 0, MPI_DOUBLE, dest, 21, t.comm(), &sends[2 * d + 1]),
               "Isend null");
  }
  for (int source = 0; source < t.size(); ++source) {
    api::Status st{};
    t.check_rc(api::Recv(nullptr, 0, MPI_INT, source, 20, t.comm(), &st), "Recv null");
    t.out("zero from {}: {} count={}", source, describe(st), count_of(st, MPI_INT));
  }
  // Room for ten doubles, nothing arrives: count 0 and the buffer untouched.
  int zero_counts = 0;
  for (int n = 0; n < t.size(); ++n) {
    GuardedBuffer buffer(10 * sizeof(double));
    std::fill_n(buffer.data(), buffer.size(), std::byte{0x5C});
    api::Status st{};
    t.check_rc(api::Recv(buffer.data(), 10, MPI_DOUBLE, MPI_ANY_SOURCE, 21, t.comm(), &st),
               "Recv any");
    const bool untouched = std::all_of(buffer.data(), buffer.data() + buffer.size(),
                                       [](std::byte b) { return b == std::byte{0x5C}; });
    t.check(untouched, "a zero-count message wrote to the buffer");
    if (t.expect_eq(count_of(st, MPI_DOUBLE), 0, "count of a zero-count message")) ++zero_counts;
  }
  t.out("zero into room for ten, from any source: {} of {} with count 0", zero_counts, t.size());
  t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), api::STATUSES_IGNORE),
             "Waitall");
}

// Messages to oneself, small and large, in every mode that cannot deadlock a
// single thread.
void self(Context& t) {
  for (std::size_t bytes : {std::size_t{16}, std::size_t{3} << 20}) {
    std::vector<std::byte> out(bytes);
    fill_payload(out, message_key(static_cast<std::uint64_t>(t.rank()), bytes, 0x5E1F, 0));
    GuardedBuffer in(bytes);
    api::Request request = api::REQUEST_NULL;
    api::Status st{};
    auto check_in = [&](const char* how) {
      const bool ok = payload_mismatch(in.span(), message_key(static_cast<std::uint64_t>(t.rank()),
                                                              bytes, 0x5E1F, 0)) < 0 &&
                      in.guards_intact();
      t.check(ok, fmt::format("self {} {}: payload", how, bytes));
      t.expect_eq(st.MPI_SOURCE, t.rank(), "self source");
      t.expect_eq(count_of(st), static_cast<int>(bytes), "self count");
      t.out("self {} {}: {} payload {}", how, size_name(bytes), describe(st), ok ? "ok" : "BAD");
      std::fill_n(in.data(), bytes, std::byte{0});
    };
    const int n = static_cast<int>(bytes);

    // Isend then Recv: the receive finds the message waiting.
    t.check_rc(api::Isend(out.data(), n, MPI_BYTE, t.rank(), 30, t.comm(), &request), "Isend");
    t.check_rc(api::Recv(in.data(), n, MPI_BYTE, t.rank(), 30, t.comm(), &st), "Recv");
    t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
    check_in("isend+recv");

    // Irecv then Ssend: the synchronous send finds the receive posted.
    t.check_rc(api::Irecv(in.data(), n, MPI_BYTE, MPI_ANY_SOURCE, 31, t.comm(), &request), "Irecv");
    t.check_rc(api::Ssend(out.data(), n, MPI_BYTE, t.rank(), 31, t.comm()), "Ssend");
    t.check_rc(api::Wait(&request, &st), "Wait");
    check_in("irecv+ssend");

    // Issend then Recv then Wait: the send completes only after the receive.
    t.check_rc(api::Issend(out.data(), n, MPI_BYTE, t.rank(), 32, t.comm(), &request), "Issend");
    t.check_rc(api::Recv(in.data(), n, MPI_BYTE, t.rank(), MPI_ANY_TAG, t.comm(), &st), "Recv");
    t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
    check_in("issend+recv");

    t.check_rc(api::Sendrecv(out.data(), n, MPI_BYTE, t.rank(), 33, in.data(), n, MPI_BYTE,
                             t.rank(), 33, t.comm(), &st),
               "Sendrecv");
    check_in("sendrecv");

    // Irecv then Rsend: ready mode is legal because the receive is posted.
    t.check_rc(api::Irecv(in.data(), n, MPI_BYTE, t.rank(), 34, t.comm(), &request), "Irecv");
    t.check_rc(api::Rsend(out.data(), n, MPI_BYTE, t.rank(), 34, t.comm()), "Rsend");
    t.check_rc(api::Wait(&request, &st), "Wait");
    check_in("irecv+rsend");
  }
}

}  // namespace

void eptest::run(Context& t) {
  proc_null(t);
  zero_count(t);
  self(t);
}
