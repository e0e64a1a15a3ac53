// MPI_TAG_UB: the attribute exists, is at least 32767 as MPI requires, is the
// same on every rank, and the bound itself is a usable tag, with specific and
// wildcard receives and probes. Not differential: the bound is what libep
// leaves of the MPI's tag range, so it differs from plain MPI's.
#include "helpers.hpp"

void eptest::run(Context& t) {
  int* value = nullptr;
  int flag = 0;
  t.check_rc(api::Comm_get_attr(t.comm(), MPI_TAG_UB, &value, &flag), "Comm_get_attr");
  if (!t.check(flag == 1 && value != nullptr, "MPI_TAG_UB is not set")) return;
  const int ub = *value;
  t.check(ub >= 32767, fmt::format("MPI_TAG_UB is {}, below MPI's minimum 32767", ub));
  t.out("tag ub >= 32767: {}", ub >= 32767 ? "yes" : "no");

  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  // Every rank must report the same bound: compare with the left neighbour's.
  int left_ub = -1;
  t.check_rc(api::Sendrecv(&ub, 1, MPI_INT, right, 1, &left_ub, 1, MPI_INT, left, 1, t.comm(),
                           api::STATUS_IGNORE),
             "Sendrecv");
  t.expect_eq(left_ub, ub, "left neighbour's MPI_TAG_UB");

  // Three messages with tag == ub: received by tag, by ANY_TAG after a probe
  // by tag, and by an any-source any-tag receive.
  int out[3] = {10 * t.rank() + 1, 10 * t.rank() + 2, 10 * t.rank() + 3};
  api::Request sends[3];
  for (int i = 0; i < 3; ++i) {
    t.check_rc(api::Isend(&out[i], 1, MPI_INT, right, ub, t.comm(), &sends[i]), "Isend tag ub");
  }
  int in = -1;
  api::Status st{};
  t.check_rc(api::Recv(&in, 1, MPI_INT, left, ub, t.comm(), &st), "Recv tag ub");
  t.check(in == 10 * left + 1 && st.MPI_TAG == ub, "Recv(left, ub)");
  t.check_rc(api::Probe(left, ub, t.comm(), &st), "Probe tag ub");
  t.expect_eq(st.MPI_TAG, ub, "probed tag");
  t.check_rc(api::Recv(&in, 1, MPI_INT, left, MPI_ANY_TAG, t.comm(), &st), "Recv ANY_TAG");
  t.check(in == 10 * left + 2 && st.MPI_TAG == ub, "Recv(left, ANY_TAG) of a tag-ub message");
  t.check_rc(api::Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm(), &st), "Recv ANY");
  t.check(in == 10 * left + 3 && st.MPI_TAG == ub && st.MPI_SOURCE == left,
          "Recv(ANY, ANY) of a tag-ub message");
  t.check_rc(api::Waitall(3, sends, api::STATUSES_IGNORE), "Waitall");
  t.out("tag ub messages: last status tag is ub: {}", st.MPI_TAG == ub ? "yes" : "no");
}
