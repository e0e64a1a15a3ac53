// Freeing a datatype while operations that use it are pending is legal: MPI
// defers the free until they complete. Every rank sends to its right
// neighbour and receives from its left one through derived datatypes (a
// strided vector of ints) that it frees right after starting the operations:
// Isend/Irecv, small and past any eager limit, persistent requests started
// twice after the free, and Imrecv of a probed message.
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

// Every other int of the buffer: `count` elements of one int, stride 2.
MPI_Datatype strided(Context& t) {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_vector(1, 1, 2, MPI_INT, &type), "MPI_Type_vector");
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_create_resized(type, 0, 2 * sizeof(int), &resized),
             "MPI_Type_create_resized");
  t.check_rc(MPI_Type_free(&type), "MPI_Type_free");
  t.check_rc(MPI_Type_commit(&resized), "MPI_Type_commit");
  return resized;
}

int value(int sender, int round, int i) { return sender * 1000003 + round * 7919 + i; }

std::vector<int> outgoing(int rank, int round, int count) {
  std::vector<int> out(2 * static_cast<std::size_t>(count), -1);
  for (int i = 0; i < count; ++i) out[2 * static_cast<std::size_t>(i)] = value(rank, round, i);
  return out;
}

// The received buffer: sent values at even positions, gaps untouched (-7).
bool received(const std::vector<int>& in, int left, int round, int count) {
  for (int i = 0; i < count; ++i) {
    if (in[2 * static_cast<std::size_t>(i)] != value(left, round, i)) return false;
    if (in[2 * static_cast<std::size_t>(i) + 1] != -7) return false;
  }
  return true;
}

void report(Context& t, const char* what, int count, int round, const std::vector<int>& in,
            int left) {
  const bool ok = received(in, left, round, count);
  t.check(ok, fmt::format("{} of {} elements: payload from the left neighbour", what, count));
  t.out("{} of {} elements, type freed while pending: payload {}", what, count, ok ? "ok" : "BAD");
}

}  // namespace

void eptest::run(Context& t) {
  const int left = (t.rank() - 1 + t.size()) % t.size();
  const int right = (t.rank() + 1) % t.size();
  int round = 0;
  for (const int count : {8, 60000}) {
    // Isend and Irecv.
    ++round;
    std::vector<int> out = outgoing(t.rank(), round, count);
    std::vector<int> in(2 * static_cast<std::size_t>(count), -7);
    MPI_Datatype send_type = strided(t);
    MPI_Datatype recv_type = strided(t);
    api::Request requests[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
    t.check_rc(api::Irecv(in.data(), count, recv_type, left, round, t.comm(), &requests[0]),
               "Irecv");
    t.check_rc(api::Isend(out.data(), count, send_type, right, round, t.comm(), &requests[1]),
               "Isend");
    t.check_rc(MPI_Type_free(&recv_type), "MPI_Type_free");
    t.check_rc(MPI_Type_free(&send_type), "MPI_Type_free");
    t.check_rc(api::Waitall(2, requests, api::STATUSES_IGNORE), "Waitall");
    report(t, "Isend/Irecv", count, round, in, left);
    t.barrier();

    // Persistent requests, started twice after the free.
    send_type = strided(t);
    recv_type = strided(t);
    api::Request persistent[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
    ++round;
    out = outgoing(t.rank(), round, count);
    t.check_rc(api::Recv_init(in.data(), count, recv_type, left, round, t.comm(), &persistent[0]),
               "Recv_init");
    t.check_rc(api::Send_init(out.data(), count, send_type, right, round, t.comm(), &persistent[1]),
               "Send_init");
    t.check_rc(MPI_Type_free(&recv_type), "MPI_Type_free");
    t.check_rc(MPI_Type_free(&send_type), "MPI_Type_free");
    for (int start = 0; start < 2; ++start) {
      std::fill(in.begin(), in.end(), -7);
      t.check_rc(api::Startall(2, persistent), "Startall");
      t.check_rc(api::Waitall(2, persistent, api::STATUSES_IGNORE), "Waitall");
      report(t,
             start == 0 ? "Send_init/Recv_init, first start" : "Send_init/Recv_init, second start",
             count, round, in, left);
      t.barrier();
    }
    t.check_rc(api::Request_free(&persistent[0]), "Request_free");
    t.check_rc(api::Request_free(&persistent[1]), "Request_free");

    // Imrecv of a probed message.
    ++round;
    out = outgoing(t.rank(), round, count);
    std::fill(in.begin(), in.end(), -7);
    send_type = strided(t);
    t.check_rc(api::Isend(out.data(), count, send_type, right, round, t.comm(), &requests[1]),
               "Isend");
    t.check_rc(MPI_Type_free(&send_type), "MPI_Type_free");
    api::Message message = api::MESSAGE_NULL;
    t.check_rc(api::Mprobe(left, round, t.comm(), &message, api::STATUS_IGNORE), "Mprobe");
    recv_type = strided(t);
    t.check_rc(api::Imrecv(in.data(), count, recv_type, &message, &requests[0]), "Imrecv");
    t.check_rc(MPI_Type_free(&recv_type), "MPI_Type_free");
    t.check_rc(api::Waitall(2, requests, api::STATUSES_IGNORE), "Waitall");
    report(t, "Mprobe/Imrecv", count, round, in, left);
    t.barrier();
  }
}
