#include "comm_test.hpp"

#include <algorithm>
#include <tuple>

namespace eptest::comm {

std::string compare_name(int result) {
  switch (result) {
    case MPI_IDENT:
      return "MPI_IDENT";
    case MPI_CONGRUENT:
      return "MPI_CONGRUENT";
    case MPI_SIMILAR:
      return "MPI_SIMILAR";
    case MPI_UNEQUAL:
      return "MPI_UNEQUAL";
    default:
      return fmt::format("compare result {}", result);
  }
}

std::vector<int> exchange_ids(Context& t, api::Comm comm, int my_id, int tag) {
  int rank = -1;
  int size = 0;
  int inter = 0;
  t.check_rc(api::Comm_rank(comm, &rank), "Comm_rank");
  t.check_rc(api::Comm_test_inter(comm, &inter), "Comm_test_inter");
  if (inter) {
    t.check_rc(api::Comm_remote_size(comm, &size), "Comm_remote_size");
  } else {
    t.check_rc(api::Comm_size(comm, &size), "Comm_size");
  }
  // Payload: {sender's id, sender's rank}, so a receiver can tell whether
  // MPI_SOURCE names the sender.
  const int out[2] = {my_id, rank};
  std::vector<api::Request> sends;
  for (int peer = 0; peer < size; ++peer) {
    if (!inter && peer == rank) continue;
    sends.push_back(api::REQUEST_NULL);
    t.check_rc(api::Isend(out, 2, MPI_INT, peer, tag, comm, &sends.back()), "Isend");
  }
  std::vector<int> ids(static_cast<std::size_t>(size), -1);
  if (!inter) ids[static_cast<std::size_t>(rank)] = my_id;
  const int expected = inter ? size : size - 1;
  for (int i = 0; i < expected; ++i) {
    int in[2] = {-1, -1};
    api::Status st{};
    if (!t.check_rc(api::Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st), "Recv")) break;
    const int source = st.MPI_SOURCE;
    if (!t.check(source >= 0 && source < size && ids[static_cast<std::size_t>(source)] == -1,
                 fmt::format("exchange: unexpected MPI_SOURCE {} (size {})", source, size)))
      continue;
    t.expect_eq(in[1], source, "exchange: the sender's rank in the payload vs MPI_SOURCE");
    ids[static_cast<std::size_t>(source)] = in[0];
  }
  if (!sends.empty())
    t.check_rc(api::Waitall(static_cast<int>(sends.size()), sends.data(), api::STATUSES_IGNORE),
               "Waitall");
  return ids;
}

void ring_check(Context& t, api::Comm comm, int my_id, int tag, const std::string& what) {
  int rank = -1;
  int size = 0;
  t.check_rc(api::Comm_rank(comm, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(comm, &size), "Comm_size");
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  int in = -1;
  api::Status st{};
  t.check_rc(
      api::Sendrecv(&my_id, 1, MPI_INT, next, tag, &in, 1, MPI_INT, previous, tag, comm, &st),
      "Sendrecv");
  t.expect_eq(st.MPI_SOURCE, previous, what + ": ring MPI_SOURCE");
  t.out("{}: ring from rank {} got id {}", what, previous, in);
}

std::string list(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", v[i]);
  return s + "]";
}

std::vector<int> split_members(const std::vector<int>& colors, const std::vector<int>& keys,
                               int color) {
  std::vector<std::tuple<int, int>> entries;
  for (std::size_t r = 0; r < colors.size(); ++r)
    if (colors[r] == color) entries.emplace_back(keys[r], static_cast<int>(r));
  std::sort(entries.begin(), entries.end());
  std::vector<int> members;
  for (const auto& [key, rank] : entries) members.push_back(rank);
  return members;
}

}  // namespace eptest::comm
