// The completion families: Waitany, Waitsome, Testany, Testsome, Testall and
// Test, over receives from every rank; what they return once every request
// is null; a test that must say "not yet"; and Cancel of a receive that is
// still pending (cancelled) and of one already matched (not cancelled).
#include <algorithm>
#include <array>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

enum class Family { Waitany, Waitsome, Testany, Testsome, Testall };

const char* name_of(Family f) {
  switch (f) {
    case Family::Waitany:
      return "Waitany";
    case Family::Waitsome:
      return "Waitsome";
    case Family::Testany:
      return "Testany";
    case Family::Testsome:
      return "Testsome";
    case Family::Testall:
      return "Testall";
  }
  return "?";
}

std::size_t bytes_of(int source, int dest) {
  return static_cast<std::size_t>((source * 131 + dest * 17) % 5 == 0 ? 150000 : 8 * (source + 1));
}

std::uint64_t key_of(int source, int dest, int tag) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(dest),
                     static_cast<std::uint64_t>(tag), 0xC0);
}

bool is_empty(const api::Status& st) {
  return st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count_of(st) == 0;
}

// One receive from every rank, completed through `family`; request i is the
// receive from rank i. Each must complete exactly once, with its status.
void complete_all(Context& t, Family family, int tag) {
  const auto n = static_cast<std::size_t>(t.size());
  std::vector<std::vector<std::byte>> out;
  std::vector<api::Request> sends(n, api::REQUEST_NULL);
  for (int dest = 0; dest < t.size(); ++dest) {
    out.emplace_back(bytes_of(t.rank(), dest));
    fill_payload(out.back(), key_of(t.rank(), dest, tag));
    t.check_rc(api::Isend(out.back().data(), static_cast<int>(out.back().size()), MPI_BYTE, dest,
                          tag, t.comm(), &sends[static_cast<std::size_t>(dest)]),
               "Isend");
  }
  std::vector<GuardedBuffer> in;
  std::vector<api::Request> recvs(n, api::REQUEST_NULL);
  for (int source = 0; source < t.size(); ++source) {
    in.emplace_back(bytes_of(source, t.rank()));
    t.check_rc(api::Irecv(in.back().data(), static_cast<int>(in.back().size()), MPI_BYTE, source,
                          tag, t.comm(), &recvs[static_cast<std::size_t>(source)]),
               "Irecv");
  }

  std::vector<int> completions(n, 0);
  auto completed = [&](int index, const api::Status& st) {
    if (!t.check(index >= 0 && index < t.size(),
                 fmt::format("{}: index {}", name_of(family), index))) {
      return;
    }
    ++completions[static_cast<std::size_t>(index)];
    t.check(recvs[static_cast<std::size_t>(index)] == api::REQUEST_NULL,
            fmt::format("{}: completed request not set to null", name_of(family)));
    const GuardedBuffer& buffer = in[static_cast<std::size_t>(index)];
    t.check(st.MPI_SOURCE == index && st.MPI_TAG == tag &&
                count_of(st) == static_cast<int>(buffer.size()) &&
                payload_mismatch(buffer.span(), key_of(index, t.rank(), tag)) < 0,
            fmt::format("{}: request {} completed with {}", name_of(family), index, describe(st)));
  };

  std::vector<int> indices(n);
  std::vector<api::Status> statuses(n);
  int calls = 0;
  for (std::size_t done = 0; done < n; ++calls) {
    int index = MPI_UNDEFINED;
    int count = 0;
    int flag = 0;
    api::Status st{};
    switch (family) {
      case Family::Waitany:
        t.check_rc(api::Waitany(t.size(), recvs.data(), &index, &st), "Waitany");
        completed(index, st);
        ++done;
        break;
      case Family::Testany:
        t.check_rc(api::Testany(t.size(), recvs.data(), &index, &flag, &st), "Testany");
        if (flag) {
          completed(index, st);
          ++done;
        }
        break;
      case Family::Waitsome:
      case Family::Testsome:
        t.check_rc(
            family == Family::Waitsome
                ? api::Waitsome(t.size(), recvs.data(), &count, indices.data(), statuses.data())
                : api::Testsome(t.size(), recvs.data(), &count, indices.data(), statuses.data()),
            name_of(family));
        if (!t.check(count >= 0 && static_cast<std::size_t>(count) <= n - done, "outcount")) break;
        if (family == Family::Waitsome) t.check(count > 0, "Waitsome completed nothing");
        for (int k = 0; k < count; ++k)
          completed(indices[static_cast<std::size_t>(k)], statuses[static_cast<std::size_t>(k)]);
        done += static_cast<std::size_t>(count);
        break;
      case Family::Testall:
        t.check_rc(api::Testall(t.size(), recvs.data(), &flag, statuses.data()), "Testall");
        if (flag) {
          for (int k = 0; k < t.size(); ++k) completed(k, statuses[static_cast<std::size_t>(k)]);
          done = n;
        }
        break;
    }
    if (done < n && family != Family::Waitany && family != Family::Waitsome) relax();
  }
  const bool once =
      std::all_of(completions.begin(), completions.end(), [](int c) { return c == 1; });
  t.check(once, fmt::format("{}: some request did not complete exactly once", name_of(family)));

  // All null now: the "any" forms say MPI_UNDEFINED with an empty status, the
  // "some" forms an outcount of MPI_UNDEFINED, Testall true.
  int index = 0;
  int flag = 0;
  int count = 0;
  api::Status st{};
  std::string after;
  switch (family) {
    case Family::Waitany:
      t.check_rc(api::Waitany(t.size(), recvs.data(), &index, &st), "Waitany");
      after = fmt::format("index {} empty {}", index == MPI_UNDEFINED ? "UNDEFINED" : "defined",
                          is_empty(st));
      break;
    case Family::Testany:
      t.check_rc(api::Testany(t.size(), recvs.data(), &index, &flag, &st), "Testany");
      after = fmt::format("flag {} index {} empty {}", flag,
                          index == MPI_UNDEFINED ? "UNDEFINED" : "defined", is_empty(st));
      break;
    case Family::Waitsome:
    case Family::Testsome:
      t.check_rc(
          family == Family::Waitsome
              ? api::Waitsome(t.size(), recvs.data(), &count, indices.data(), statuses.data())
              : api::Testsome(t.size(), recvs.data(), &count, indices.data(), statuses.data()),
          name_of(family));
      after = fmt::format("outcount {}",
                          count == MPI_UNDEFINED ? "UNDEFINED" : fmt::format("{}", count));
      break;
    case Family::Testall:
      t.check_rc(api::Testall(t.size(), recvs.data(), &flag, api::STATUSES_IGNORE), "Testall");
      after = fmt::format("flag {}", flag);
      break;
  }
  const bool null_ok =
      family == Family::Testall ? flag == 1
      : family == Family::Waitsome || family == Family::Testsome
          ? count == MPI_UNDEFINED
          : index == MPI_UNDEFINED && is_empty(st) && (family == Family::Waitany || flag == 1);
  t.check(null_ok, fmt::format("{} on null requests: {}", name_of(family), after));
  t.out("{}: {} requests each completed once: {}; on all-null requests: {}", name_of(family), n,
        once ? "yes" : "no", after);
  t.check_rc(api::Waitall(t.size(), sends.data(), api::STATUSES_IGNORE), "Waitall sends");
}

// A receive whose message is sent only after the receiver says so: until
// then Test and Testall must report "not complete" and leave the request.
void not_yet(Context& t) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  int data = -1;
  const int go = 1;
  int go_in = 0;  // not `go`: a buffer of a pending send must not be received into
  api::Request request = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&data, 1, MPI_INT, left, 40, t.comm(), &request), "Irecv");
  int flag = -1;
  t.check_rc(api::Test(&request, &flag, api::STATUS_IGNORE), "Test");
  const int test_flag = flag;
  flag = -1;
  t.check_rc(api::Testall(1, &request, &flag, api::STATUSES_IGNORE), "Testall");
  const int testall_flag = flag;
  t.check(test_flag == 0 && testall_flag == 0 && request != api::REQUEST_NULL,
          "Test/Testall completed a receive whose message was not sent");
  // Tell the left neighbour it may send; wait for the right one to say so.
  api::Request go_send = api::REQUEST_NULL;
  t.check_rc(api::Isend(&go, 1, MPI_INT, left, 41, t.comm(), &go_send), "Isend");
  t.check_rc(api::Recv(&go_in, 1, MPI_INT, right, 41, t.comm(), api::STATUS_IGNORE), "Recv");
  const int mine = 500 + t.rank();
  t.check_rc(api::Send(&mine, 1, MPI_INT, right, 40, t.comm()), "Send");
  api::Status st{};
  t.check_rc(api::Wait(&request, &st), "Wait");
  t.check_rc(api::Wait(&go_send, api::STATUS_IGNORE), "Wait");
  t.expect_eq(data, 500 + left, "value");
  t.out("before the send: Test flag {} Testall flag {}; after: got {} from {}", test_flag,
        testall_flag, data, describe(st));
}

void cancel(Context& t) {
  // Pending: nobody sends tag 77, so the receive can be cancelled.
  int never = -1;
  api::Request request = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 77, t.comm(), &request), "Irecv");
  t.check_rc(api::Cancel(&request), "Cancel");
  api::Status st{};
  t.check_rc(api::Wait(&request, &st), "Wait cancelled");
  int cancelled = -1;
  t.check_rc(api::Test_cancelled(&st, &cancelled), "Test_cancelled");
  t.check(cancelled == 1 && request == api::REQUEST_NULL && never == -1,
          "a pending receive was not cancelled");
  t.out("cancel pending receive: cancelled {}", cancelled);

  // Matched: the left neighbour sends tag 78 then tag 79; once 79 is here, 78
  // has matched our receive (messages from one source do not overtake), so
  // Cancel must fail to cancel it and the data must be there.
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  int value = -1;
  t.check_rc(api::Irecv(&value, 1, MPI_INT, left, 78, t.comm(), &request), "Irecv");
  const int out[2] = {800 + t.rank(), 900 + t.rank()};
  api::Request sends[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
  t.check_rc(api::Isend(&out[0], 1, MPI_INT, right, 78, t.comm(), &sends[0]), "Isend");
  t.check_rc(api::Isend(&out[1], 1, MPI_INT, right, 79, t.comm(), &sends[1]), "Isend");
  int later = -1;
  t.check_rc(api::Recv(&later, 1, MPI_INT, left, 79, t.comm(), api::STATUS_IGNORE), "Recv");
  t.check_rc(api::Cancel(&request), "Cancel");
  st = {};
  t.check_rc(api::Wait(&request, &st), "Wait");
  cancelled = -1;
  t.check_rc(api::Test_cancelled(&st, &cancelled), "Test_cancelled");
  t.check(cancelled == 0 && value == 800 + left, "a matched receive was cancelled");
  t.out("cancel matched receive: cancelled {} value {} {}", cancelled, value, describe(st));
  t.check_rc(api::Waitall(2, sends, api::STATUSES_IGNORE), "Waitall");
}

// Four receives from one source with one tag, two of them cancelled (the
// first and the third) before anything is sent: the two messages then go to
// the second and the fourth, in order. (libep queues such receives behind
// the first when it posts them in MPI, and tests only the first.)
void cancel_among_same_envelope(Context& t) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  std::array<int, 4> got{-1, -1, -1, -1};
  std::array<api::Request, 4> receives{};
  for (std::size_t i = 0; i < receives.size(); ++i) {
    t.check_rc(api::Irecv(&got[i], 1, MPI_INT, left, 81, t.comm(), &receives[i]), "Irecv");
  }
  std::array<int, 4> cancelled{-1, -1, -1, -1};
  for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
    t.check_rc(api::Cancel(&receives[i]), "Cancel");
    api::Status st{};
    t.check_rc(api::Wait(&receives[i], &st), "Wait cancelled");
    t.check_rc(api::Test_cancelled(&st, &cancelled[i]), "Test_cancelled");
  }
  // Tell the left neighbour it may send; wait for the right one to say so.
  const int go = 1;
  int go_in = 0;
  api::Request go_send = api::REQUEST_NULL;
  t.check_rc(api::Isend(&go, 1, MPI_INT, left, 82, t.comm(), &go_send), "Isend");
  t.check_rc(api::Recv(&go_in, 1, MPI_INT, right, 82, t.comm(), api::STATUS_IGNORE), "Recv");
  const std::array<int, 2> out{1000 + t.rank(), 2000 + t.rank()};
  for (const int& value : out)
    t.check_rc(api::Send(&value, 1, MPI_INT, right, 81, t.comm()), "Send");
  // The later receive is waited for first.
  std::array<api::Status, 2> st{};
  api::Request pending[2] = {receives[3], receives[1]};
  t.check_rc(api::Waitall(2, pending, st.data()), "Waitall");
  t.check_rc(api::Wait(&go_send, api::STATUS_IGNORE), "Wait");
  t.check(cancelled[0] == 1 && cancelled[2] == 1 && got[0] == -1 && got[2] == -1,
          "a cancelled receive was not cancelled, or received");
  t.expect_eq(got[1], 1000 + left, "first message");
  t.expect_eq(got[3], 2000 + left, "second message");
  t.out("cancel among receives of one envelope: cancelled {} {}; got {} ({}) then {} ({})",
        cancelled[0], cancelled[2], got[1], describe(st[1]), got[3], describe(st[0]));
}

}  // namespace

void eptest::run(Context& t) {
  int tag = 10;
  for (Family f :
       {Family::Waitany, Family::Waitsome, Family::Testany, Family::Testsome, Family::Testall}) {
    complete_all(t, f, tag++);
  }
  not_yet(t);
  cancel(t);
  cancel_among_same_envelope(t);
}
