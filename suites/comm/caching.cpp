// Names and cached attributes (MPI 4.0 sections 7.7 and 7.8), each rank on
// its own: every endpoint is an MPI process, so its names and attributes are
// its own, and the program prints what an MPI process sees. Keyvals are
// made by every rank, as each MPI process makes its own.
//
// Covered: set, get and replace (the delete callback runs on the old
// value), copy on Comm_dup by MPI_COMM_DUP_FN, by a callback that declines
// and by MPI_COMM_NULL_COPY_FN, delete callbacks on Comm_delete_attr and on
// Comm_free, a keyval freed while attributes still use it (its callbacks
// still run), callback errors failing Comm_dup, Comm_delete_attr and
// Comm_set_attr, names set, read back, truncated and cleared, and an
// inter-communicator's.
#include <algorithm>
#include <cstring>
#include <string>

#include "comm_test.hpp"

namespace {

using namespace eptest;

// What a keyval's callbacks saw; its extra_state.
struct Counts {
  int copies = 0;
  int deletes = 0;
  int fail = 0;  // callbacks return MPI_ERR_OTHER while set
  void* last_deleted = nullptr;
  api::Comm expected_old = api::COMM_NULL;
  int bad_oldcomm = 0;
};

int count_delete(api::Comm, int, void* value, void* extra) {
  auto* c = static_cast<Counts*>(extra);
  if (c->fail) return MPI_ERR_OTHER;
  ++c->deletes;
  c->last_deleted = value;
  return MPI_SUCCESS;
}

int decline_copy(api::Comm old, int, void* extra, void*, void*, int* flag) {
  auto* c = static_cast<Counts*>(extra);
  ++c->copies;
  if (old != c->expected_old) ++c->bad_oldcomm;
  *flag = 0;
  return MPI_SUCCESS;
}

int failing_copy(api::Comm, int, void* extra, void* in, void* out, int* flag) {
  auto* c = static_cast<Counts*>(extra);
  ++c->copies;
  if (c->fail) return MPI_ERR_OTHER;
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

// "flag 1, the value set" or what was found instead.
std::string attribute(Context& t, api::Comm comm, int keyval, const void* expected) {
  void* value = nullptr;
  int flag = -1;
  t.check_rc(api::Comm_get_attr(comm, keyval, &value, &flag), "Comm_get_attr");
  if (!flag) return "flag 0";
  return value == expected ? "flag 1, the value set" : "flag 1, ANOTHER VALUE";
}

std::string name_of(Context& t, api::Comm comm) {
  char name[MPI_MAX_OBJECT_NAME];
  std::memset(name, '?', sizeof name);
  int length = -1;
  t.check_rc(api::Comm_get_name(comm, name, &length), "Comm_get_name");
  t.expect_eq(length, static_cast<int>(strnlen(name, sizeof name)), "Comm_get_name length");
  return std::string(name, static_cast<std::size_t>(std::max(length, 0)));
}

void names(Context& t, api::Comm comm) {
  // A user communicator has no name until given one (Open MPI 4.1.4 and
  // MPICH 4.0.2 agree).
  t.out("default name: '{}'", name_of(t, comm));
  const std::string mine = fmt::format("ring-{}", t.rank());
  t.check_rc(api::Comm_set_name(comm, mine.c_str()), "Comm_set_name");
  t.out("name: '{}'", name_of(t, comm));
  const std::string long_name(MPI_MAX_OBJECT_NAME + 10, static_cast<char>('a' + t.rank() % 26));
  t.check_rc(api::Comm_set_name(comm, long_name.c_str()), "Comm_set_name");
  const std::string got = name_of(t, comm);
  t.out("long name: {} characters (MPI_MAX_OBJECT_NAME - {}), {}", got.size(),
        MPI_MAX_OBJECT_NAME - static_cast<int>(got.size()),
        long_name.compare(0, got.size(), got) == 0 ? "its prefix" : "NOT ITS PREFIX");
  t.check_rc(api::Comm_set_name(comm, ""), "Comm_set_name");
  t.out("cleared name: '{}'", name_of(t, comm));
  t.check_rc(api::Comm_set_name(comm, mine.c_str()), "Comm_set_name");
}

// An inter-communicator's attributes and name are copied and named alike:
// the evens and the odds, leaders world ranks 0 and 1.
void inter(Context& t) {
  if (t.size() < 2) return;
  api::Comm half = api::COMM_NULL, inter = api::COMM_NULL, copy = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), t.rank() % 2, t.rank(), &half), "Comm_split");
  t.check_rc(api::Intercomm_create(half, 0, t.comm(), t.rank() % 2 == 0 ? 1 : 0, 78, &inter),
             "Intercomm_create");
  Counts counts;
  int keyval = MPI_KEYVAL_INVALID;
  t.check_rc(api::Comm_create_keyval(api::COMM_DUP_FN, count_delete, &keyval, &counts),
             "Comm_create_keyval");
  int value = 5;
  t.check_rc(api::Comm_set_attr(inter, keyval, &value), "Comm_set_attr");
  t.check_rc(api::Comm_set_name(inter, t.rank() % 2 == 0 ? "evens" : "odds"), "Comm_set_name");
  t.check_rc(api::Comm_dup(inter, &copy), "Comm_dup");
  t.out("inter: '{}', its dup '{}' with {}", name_of(t, inter), name_of(t, copy),
        attribute(t, copy, keyval, &value));
  t.check_rc(api::Comm_free_keyval(&keyval), "Comm_free_keyval");
  t.check_rc(api::Comm_free(&copy), "Comm_free");
  t.check_rc(api::Comm_free(&inter), "Comm_free");
  t.out("inter: deletes {}", counts.deletes);
  t.check_rc(api::Comm_free(&half), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  inter(t);
  api::Comm first = api::COMM_NULL;
  t.check_rc(api::Comm_dup(t.comm(), &first), "Comm_dup");
  names(t, first);

  Counts dup_counts, decline_counts, fail_counts;
  int kv_dup = MPI_KEYVAL_INVALID, kv_decline = MPI_KEYVAL_INVALID;
  int kv_null = MPI_KEYVAL_INVALID, kv_fail = MPI_KEYVAL_INVALID;
  t.check_rc(api::Comm_create_keyval(api::COMM_DUP_FN, count_delete, &kv_dup, &dup_counts),
             "Comm_create_keyval");
  t.check_rc(api::Comm_create_keyval(decline_copy, count_delete, &kv_decline, &decline_counts),
             "Comm_create_keyval");
  t.check_rc(
      api::Comm_create_keyval(api::COMM_NULL_COPY_FN, api::COMM_NULL_DELETE_FN, &kv_null, nullptr),
      "Comm_create_keyval");
  t.check_rc(api::Comm_create_keyval(failing_copy, count_delete, &kv_fail, &fail_counts),
             "Comm_create_keyval");

  int a = 1, a2 = 2, b = 3, c = 4;
  t.check_rc(api::Comm_set_attr(first, kv_dup, &a), "Comm_set_attr");
  t.check_rc(api::Comm_set_attr(first, kv_decline, &b), "Comm_set_attr");
  t.check_rc(api::Comm_set_attr(first, kv_null, &c), "Comm_set_attr");
  t.out("set: dup {}, decline {}, null {}", attribute(t, first, kv_dup, &a),
        attribute(t, first, kv_decline, &b), attribute(t, first, kv_null, &c));
  t.out("on the parent: {}", attribute(t, t.comm(), kv_dup, &a));
  t.check_rc(api::Comm_set_attr(first, kv_dup, &a2), "Comm_set_attr");
  t.out("replaced: {}; deletes {}, of the old value: {}", attribute(t, first, kv_dup, &a2),
        dup_counts.deletes, dup_counts.last_deleted == &a);

  // Each rank copies its own attributes to its new handle.
  api::Comm second = api::COMM_NULL;
  decline_counts.expected_old = first;
  t.check_rc(api::Comm_dup(first, &second), "Comm_dup");
  t.out("after dup: dup {}, decline {}, null {}; decline callback ran {} time(s), oldcomm {}",
        attribute(t, second, kv_dup, &a2), attribute(t, second, kv_decline, &b),
        attribute(t, second, kv_null, &c), decline_counts.copies,
        decline_counts.bad_oldcomm == 0 ? "right" : "WRONG");
  t.out("the dup's name: '{}'", name_of(t, second));
  t.out("the original's name: '{}'", name_of(t, first));
  t.check_rc(api::Comm_delete_attr(second, kv_dup), "Comm_delete_attr");
  t.out("delete_attr: {}; deletes {}", attribute(t, second, kv_dup, &a2), dup_counts.deletes);

  // Freed keyvals stay while attributes use them: Comm_free still runs their
  // delete callbacks (LIFO order is not promised: only the counts print).
  t.check_rc(api::Comm_free_keyval(&kv_dup), "Comm_free_keyval");
  t.check_rc(api::Comm_free_keyval(&kv_decline), "Comm_free_keyval");
  t.out("freed keyvals are MPI_KEYVAL_INVALID: {}",
        kv_dup == MPI_KEYVAL_INVALID && kv_decline == MPI_KEYVAL_INVALID);
  t.check_rc(api::Comm_free(&first), "Comm_free");
  t.out("free: deletes dup {}, decline {}", dup_counts.deletes, decline_counts.deletes);

  // Callback errors fail the call with the callback's class.
  t.check_rc(api::Comm_set_errhandler(second, MPI_ERRORS_RETURN), "Comm_set_errhandler");
  t.check_rc(api::Comm_set_attr(second, kv_fail, &a), "Comm_set_attr");
  fail_counts.fail = 1;
  api::Comm third = api::COMM_NULL;
  t.expect_class(api::Comm_dup(second, &third), MPI_ERR_OTHER, "Comm_dup, copy callback fails");
  if (kEndpoints) t.check(third == api::COMM_NULL, "a failed Comm_dup returned a handle");
  t.expect_class(api::Comm_delete_attr(second, kv_fail), MPI_ERR_OTHER,
                 "Comm_delete_attr, delete callback fails");
  t.expect_class(api::Comm_set_attr(second, kv_fail, &b), MPI_ERR_OTHER,
                 "Comm_set_attr, delete callback of the old value fails");
  t.out("callback errors: copy callback ran {} time(s)", fail_counts.copies);
  // The standard names no class for this; Open MPI 4.1.4 gives MPI_ERR_OTHER.
  if (kEndpoints) {
    t.expect_class(api::Comm_set_attr(second, MPI_TAG_UB, &a), MPI_ERR_KEYVAL,
                   "Comm_set_attr of a predefined key");
  }
  fail_counts.fail = 0;
  t.check_rc(api::Comm_free(&second), "Comm_free");
  t.out("free after errors: deletes {}", fail_counts.deletes);
  t.check_rc(api::Comm_free_keyval(&kv_null), "Comm_free_keyval");
  t.check_rc(api::Comm_free_keyval(&kv_fail), "Comm_free_keyval");
}
