#include "base/held_op.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <utility>
#include <vector>

namespace ep::detail {

namespace {

// The user-defined ops held now, process-wide. Few at a time (the ops of
// the pending reductions), so a vector under a mutex; only reductions with
// a user-defined op come here.
struct Registry {
  struct Entry {
    MPI_Op op;
    int holds;
    bool freed;  // the user called MPI_Op_free: the last holder frees it
  };
  std::mutex lock;
  std::vector<Entry> held;

  Entry* find(MPI_Op op) {
    const auto it =
        std::find_if(held.begin(), held.end(), [op](const Entry& e) { return e.op == op; });
    return it == held.end() ? nullptr : &*it;
  }
};

// Never destroyed: a hold may end in a static object's destructor, after
// this file's statics would have been.
Registry& registry() {
  static Registry* const r = new Registry;
  return *r;
}

// Whether the program's MPI_Op_free (the first in the global symbol lookup,
// which is what every caller of it binds to) is this file's. Not when a
// shared libep comes after the MPI library among the program's libraries,
// or when a profiling tool defines MPI_Op_free itself. Without the dynamic
// symbol (a program linked fully statically) there is nothing to compare:
// a static link binds to this file's definition.
bool intercepting() {
  void* const found = dlsym(RTLD_DEFAULT, "MPI_Op_free");
  Dl_info theirs{};
  Dl_info ours{};
  if (!found || !dladdr(found, &theirs) || !dladdr(reinterpret_cast<void*>(&registry), &ours)) {
    return true;
  }
  return theirs.dli_fbase == ours.dli_fbase;
}

void hold(MPI_Op op) {
  // Said once per process, and only to programs that reduce with a
  // user-defined op: those that may free one too early.
  static const bool intercepted = [] {
    if (intercepting()) return true;
    std::fputs(
        "libep: warning: MPI_Op_free is not libep's (the MPI library is linked before a shared "
        "libep, or a tool defines MPI_Op_free): an op freed while a non-blocking reduction uses "
        "it would be used after its free (docs/design.md, \"Non-blocking collectives\")\n",
        stderr);
    return false;
  }();
  static_cast<void>(intercepted);
  Registry& r = registry();
  const std::lock_guard<std::mutex> guard(r.lock);
  if (Registry::Entry* e = r.find(op)) {
    ++e->holds;
  } else {
    r.held.push_back({op, 1, false});
  }
}

void unhold(MPI_Op op) {
  Registry& r = registry();
  bool free_now = false;
  {
    const std::lock_guard<std::mutex> guard(r.lock);
    Registry::Entry* e = r.find(op);
    if (!e || --e->holds > 0) return;
    free_now = e->freed;
    *e = r.held.back();
    r.held.pop_back();
  }
  if (!free_now) return;
  // After MPI_Finalize (a request of a communicator nobody freed, released
  // at exit) MPI has freed every op itself.
  int finalized = 0;
  if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;
  // The user's MPI_Op_free already returned success; a failure here has
  // nobody left to report to.
  PMPI_Op_free(&op);
}

// MPI_Op_free of a held op: marks it (true), or false when libep does not
// hold it. Sets *error for a second free of a held op, which MPI would
// refuse as an invalid handle.
bool defer_free(MPI_Op op, bool* error) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> guard(r.lock);
  Registry::Entry* e = r.find(op);
  if (!e) return false;
  *error = e->freed;
  e->freed = true;
  return true;
}

}  // namespace

bool is_predefined_op(MPI_Op op) {
  static const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                               MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                               MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
  return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

HeldOp::HeldOp(MPI_Op op) : op_(op), held_(op != MPI_OP_NULL && !is_predefined_op(op)) {
  if (held_) hold(op_);
}

HeldOp::HeldOp(const HeldOp& other) : op_(other.op_), held_(other.held_) {
  if (held_) hold(op_);
}

HeldOp& HeldOp::operator=(const HeldOp& other) {
  if (this != &other) *this = HeldOp(other);
  return *this;
}

HeldOp::HeldOp(HeldOp&& other) noexcept
    : op_(std::exchange(other.op_, MPI_OP_NULL)), held_(std::exchange(other.held_, false)) {}

HeldOp& HeldOp::operator=(HeldOp&& other) noexcept {
  if (this != &other) {
    release();
    op_ = std::exchange(other.op_, MPI_OP_NULL);
    held_ = std::exchange(other.held_, false);
  }
  return *this;
}

void HeldOp::release() {
  if (held_) unhold(op_);
  held_ = false;
}

}  // namespace ep::detail

// libep's MPI_Op_free (base/held_op.hpp): MPI's, except that an op a
// pending libep operation holds is freed when the last one lets go.
// Exported from a shared libep too, whatever visibility it is built with.
extern "C" [[gnu::visibility("default")]] int MPI_Op_free(MPI_Op* op) {
  bool error = false;
  if (op && *op != MPI_OP_NULL && ep::detail::defer_free(*op, &error)) {
    if (error) {
      // A second free of the same op: MPI's answer to a freed handle. The
      // handler's own return says nothing more.
      PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OP);
      return MPI_ERR_OP;
    }
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
  }
  return PMPI_Op_free(op);
}
