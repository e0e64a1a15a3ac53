// Truncation: a message longer than the receive buffer gives MPI_ERR_TRUNCATE
// (under MPI_ERRORS_RETURN), a status whose count is the message's real
// length, no byte written past the buffer, and no harm to the next receive.
// Every rank sends a fixed script of messages to its right neighbour (to
// itself when alone) and receives the script from its left one, through each
// receive flavour: Recv, Irecv+Wait, Waitall (MPI_ERR_IN_STATUS), Mrecv,
// a derived count, eager and rendezvous sizes.
#include <vector>

#include "helpers.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;

enum class How { Recv, IrecvWait, WaitallPair, MprobeMrecv, Ints };

struct Step {
  int tag;
  std::size_t sent;      // bytes the sender sends
  std::size_t capacity;  // bytes the receiver has room for
  How how;
  // Plain Open MPI 4.1.4 cannot be the reference for some steps: it writes
  // past the buffer when it truncates anything but a small message (measured:
  // from ~1 KB to oneself, from 4 KB between processes; large ones crash), and
  // its MPI_Waitall can spin forever on a truncated request. Such steps run
  // on endpoints only and print nothing.
  bool reference = true;
};

// The script, in send order; the receiver takes the steps in the same order.
// WaitallPair takes its step and the next one.
constexpr Step kScript[] = {
    {1, 100, 64, How::Recv},                         // eager, truncated
    {2, 40, 64, How::Recv},                          // fits
    {3, (1u << 20) + 8, 1000, How::Recv, false},     // rendezvous, truncated
    {4, (1u << 20) + 8, (1u << 20) + 8, How::Recv},  // rendezvous, fits exactly
    {5, 200, 100, How::IrecvWait},                   // truncated
    {6, 400, 399, How::WaitallPair, false},          // truncated by one byte ...
    {7, 8, 8, How::Recv, false},                     // ... next to one that fits
    {8, 50, 10, How::MprobeMrecv},                   // truncated
    {9, 16, 12, How::Ints},                          // 4 ints into room for 3
    {10, 300000, 299999, How::IrecvWait, false},     // rendezvous, truncated
    {11, 100000, 10, How::MprobeMrecv, false},       // rendezvous, truncated
    {12, 5000, 4000, How::Recv, false},              // medium, truncated
    {13, 3000, 2999, How::WaitallPair, false},       // medium, truncated by one byte ...
    {14, 8, 8, How::Recv, false},                    // ... next to one that fits
    {15, 24, 24, How::Recv},                         // and the next receive still works
};

// Whether the plain-MPI program can be the reference for a step: not where
// the MPI below is known to report truncation differently from libep
// (reference_mpi.hpp), which leaves it the steps that fit.
bool has_reference(const Step& step) {
  const bool truncated = step.sent > step.capacity;
  return step.reference && !(truncated && reference::kTruncatedStatusDiffers);
}

bool runs(const Step& step) { return kEndpoints || has_reference(step); }

std::uint64_t key_of(int source, const Step& step) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(step.tag),
                     step.sent, 0x7A);
}

class Receiver {
 public:
  explicit Receiver(Context& t) : t_(t), left_((t.rank() - 1 + t.size()) % t.size()) {}

  void recv(const Step& step) {
    GuardedBuffer buffer(step.capacity);
    api::Status st{};
    const int rc = api::Recv(buffer.data(), static_cast<int>(step.capacity), MPI_BYTE, left_,
                             step.tag, t_.comm(), &st);
    report("Recv", step, rc, st, buffer);
  }

  void irecv_wait(const Step& step) {
    GuardedBuffer buffer(step.capacity);
    api::Request request = api::REQUEST_NULL;
    api::Status st{};
    t_.check_rc(api::Irecv(buffer.data(), static_cast<int>(step.capacity), MPI_BYTE, left_,
                           step.tag, t_.comm(), &request),
                "Irecv");
    const int rc = api::Wait(&request, &st);
    t_.check(request == api::REQUEST_NULL, "Wait left the request set");
    report("Irecv+Wait", step, rc, st, buffer);
  }

  // Two receives completed together: the truncated one with wildcards.
  void waitall(const Step& truncated, const Step& fits) {
    GuardedBuffer first(truncated.capacity);
    GuardedBuffer second(fits.capacity);
    api::Request requests[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
    api::Status statuses[2] = {};
    t_.check_rc(api::Irecv(first.data(), static_cast<int>(truncated.capacity), MPI_BYTE,
                           MPI_ANY_SOURCE, MPI_ANY_TAG, t_.comm(), &requests[0]),
                "Irecv");
    t_.check_rc(api::Irecv(second.data(), static_cast<int>(fits.capacity), MPI_BYTE, left_,
                           fits.tag, t_.comm(), &requests[1]),
                "Irecv");
    const int rc = api::Waitall(2, requests, statuses);
    t_.expect_class(rc, MPI_ERR_IN_STATUS, "Waitall");
    t_.expect_class(statuses[0].MPI_ERROR, MPI_ERR_TRUNCATE, "status[0].MPI_ERROR");
    t_.expect_class(statuses[1].MPI_ERROR, MPI_SUCCESS, "status[1].MPI_ERROR");
    report("Waitall[0]", truncated, statuses[0].MPI_ERROR, statuses[0], first);
    report("Waitall[1]", fits, statuses[1].MPI_ERROR, statuses[1], second);
  }

  void mprobe_mrecv(const Step& step) {
    GuardedBuffer buffer(step.capacity);
    api::Message message = api::MESSAGE_NULL;
    api::Status probed{};
    api::Status st{};
    t_.check_rc(api::Mprobe(left_, step.tag, t_.comm(), &message, &probed), "Mprobe");
    t_.expect_eq(count_of(probed), static_cast<int>(step.sent), "probed count");
    const int rc =
        api::Mrecv(buffer.data(), static_cast<int>(step.capacity), MPI_BYTE, &message, &st);
    t_.check(message == api::MESSAGE_NULL, "Mrecv left the message set");
    report("Mprobe+Mrecv", step, rc, st, buffer);
  }

  // Four ints into room for three: the count is in ints, the real length.
  void ints(const Step& step) {
    GuardedBuffer buffer(step.capacity);
    api::Status st{};
    const int rc = api::Recv(buffer.data(), static_cast<int>(step.capacity / sizeof(int)), MPI_INT,
                             left_, step.tag, t_.comm(), &st);
    t_.expect_eq(count_of(st, MPI_INT), static_cast<int>(step.sent / sizeof(int)), "count in ints");
    report("Recv ints", step, rc, st, buffer);
  }

 private:
  // A truncated receive must say so and report the real length; one that fits
  // must succeed with the whole payload. Neither may write past the buffer.
  void report(const char* how, const Step& step, int rc, const api::Status& st,
              GuardedBuffer& buffer) {
    const bool truncated = step.sent > step.capacity;
    t_.expect_class(rc, truncated ? MPI_ERR_TRUNCATE : MPI_SUCCESS, how);
    t_.expect_eq(count_of(st), static_cast<int>(step.sent), fmt::format("{} status count", how));
    t_.expect_eq(st.MPI_SOURCE, left_, fmt::format("{} status source", how));
    t_.expect_eq(st.MPI_TAG, step.tag, fmt::format("{} status tag", how));
    t_.check(buffer.guards_intact(), fmt::format("{} wrote past its buffer", how));
    bool payload_ok = true;
    if (!truncated) {
      payload_ok = payload_mismatch(buffer.span().first(step.sent), key_of(left_, step)) < 0;
      t_.check(payload_ok, fmt::format("{} payload", how));
    }
    if (!has_reference(step)) return;
    t_.out("{} tag {} ({} into {}): {}, {}, guards {}, payload {}", how, step.tag,
           size_name(step.sent), size_name(step.capacity),
           error_class_name(rc == MPI_SUCCESS ? MPI_SUCCESS : error_class_of(rc)), describe(st),
           buffer.guards_intact() ? "intact" : "OVERWRITTEN",
           truncated    ? "not checked"
           : payload_ok ? "ok"
                        : "BAD");
  }

  Context& t_;
  int left_;
};

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  const int right = (t.rank() + 1) % t.size();

  // The whole script goes out non-blocking first: rendezvous sends in a ring
  // would otherwise wait on each other. A truncated receive is the receiver's
  // error; the sends must all succeed.
  std::vector<std::vector<std::byte>> payloads;
  std::vector<api::Request> sends;
  for (const Step& step : kScript) {
    if (!runs(step)) continue;
    payloads.emplace_back(step.sent);
    fill_payload(payloads.back(), key_of(t.rank(), step));
    sends.emplace_back(api::REQUEST_NULL);
    t.check_rc(api::Isend(payloads.back().data(), static_cast<int>(step.sent), MPI_BYTE, right,
                          step.tag, t.comm(), &sends.back()),
               "Isend");
  }

  Receiver receiver(t);
  for (std::size_t i = 0; i < std::size(kScript); ++i) {
    const Step& step = kScript[i];
    if (!runs(step)) continue;
    switch (step.how) {
      case How::Recv:
        receiver.recv(step);
        break;
      case How::IrecvWait:
        receiver.irecv_wait(step);
        break;
      case How::WaitallPair:
        receiver.waitall(step, kScript[++i]);
        break;
      case How::MprobeMrecv:
        receiver.mprobe_mrecv(step);
        break;
      case How::Ints:
        receiver.ints(step);
        break;
    }
  }

  std::vector<api::Status> statuses(sends.size());
  t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), statuses.data()),
             "Waitall sends");
}
