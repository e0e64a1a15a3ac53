// Caching (MPI 4.0 section 7.7) and naming (section 7.8) on endpoints.
//
// Keyvals are process-wide: a table of the keyvals libep handed out, under
// one lock, each counting its uses (the user's handle until
// Comm_free_keyval, and one per attribute set with it) so that a freed
// keyval lives until its last attribute is deleted. Attributes are the
// endpoint's own (Endpoint::attributes) and are only touched by the thread
// driving it, so they need no lock. Callbacks run with no lock held: they
// may call libep, Comm_create_keyval included.
#include "comm/attributes.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "comm/inspect.hpp"
#include "ep/comm.hpp"
#include "object/error.hpp"

namespace ep {

using detail::Endpoint;
using detail::raise;

namespace detail {

namespace {

struct Keyval {
  Comm_copy_attr_function* copy = nullptr;
  Comm_delete_attr_function* del = nullptr;
  void* extra_state = nullptr;
  int uses = 1;
  bool freed = false;
};

// libep's keyvals start here: far above Open MPI's keyvals (small indices)
// and below 2^30, where MPICH's handles have no kind bits, so that no
// keyval of the MPI underneath, MPI_KEYVAL_INVALID or a predefined key is
// ever one of libep's. Comm_get_attr sends keys outside the table to the
// MPI communicator, as before keyvals existed.
constexpr int kFirstKeyval = 0x2E500000;

std::mutex keyvals_lock;
std::map<int, Keyval> keyvals;
// The next keyval to hand out; written under keyvals_lock.
std::atomic<int> next_keyval{kFirstKeyval};

bool in_libep_range(int keyval) { return keyval >= kFirstKeyval && keyval < next_keyval; }

// A keyval the user may still name (not freed), copied out of the table.
std::optional<Keyval> usable(int keyval) {
  std::lock_guard lock(keyvals_lock);
  auto it = keyvals.find(keyval);
  if (it == keyvals.end() || it->second.freed) return std::nullopt;
  return it->second;
}

// The callbacks of a keyval that an attribute holds (it may be freed).
Keyval held(int keyval) {
  std::lock_guard lock(keyvals_lock);
  return keyvals.at(keyval);
}

void retain(int keyval) {
  std::lock_guard lock(keyvals_lock);
  ++keyvals.at(keyval).uses;
}

void release(int keyval) {
  std::lock_guard lock(keyvals_lock);
  auto it = keyvals.find(keyval);
  if (--it->second.uses == 0) keyvals.erase(it);
}

using Attribute = std::pair<int, void*>;

Attribute* find(Endpoint* e, int keyval) {
  auto it = std::find_if(e->attributes.begin(), e->attributes.end(),
                         [&](const Attribute& a) { return a.first == keyval; });
  return it == e->attributes.end() ? nullptr : &*it;
}

void remove(Endpoint* e, int keyval) {
  auto it = std::find_if(e->attributes.begin(), e->attributes.end(),
                         [&](const Attribute& a) { return a.first == keyval; });
  if (it == e->attributes.end()) return;
  e->attributes.erase(it);
  release(keyval);
}

int run_delete(Endpoint* e, int keyval, void* value, const char* fn) {
  const Keyval k = held(keyval);
  const int rc = k.del ? k.del(handle_of(e), keyval, value, k.extra_state) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS) return rc;
  return raise(e, rc, fn, "the delete callback of keyval {:#x} returned error {}", keyval, rc);
}

// Checks a keyval the user names on `e`; 0 when it is usable.
int check_keyval(Endpoint* e, int keyval, const char* fn) {
  if (usable(keyval)) return MPI_SUCCESS;
  if (in_libep_range(keyval)) {
    return raise(e, MPI_ERR_KEYVAL, fn, "keyval {:#x} was freed", keyval);
  }
  return raise(e, MPI_ERR_KEYVAL, fn,
               "keyval {} was not made by ep::Comm_create_keyval (predefined attributes cannot be "
               "set or deleted)",
               keyval);
}

}  // namespace

int copy_attributes(Endpoint* from, Endpoint* to, const char* function) {
  // A copy, in case a callback sets attributes on the old handle.
  const std::vector<Attribute> attributes = from->attributes;
  for (const auto& [keyval, value] : attributes) {
    const Keyval k = held(keyval);
    void* copied = nullptr;
    int flag = 0;
    const int rc =
        k.copy ? k.copy(handle_of(from), keyval, k.extra_state, value, &copied, &flag) : 0;
    if (rc != MPI_SUCCESS) {
      return raise(from, rc, function, "the copy callback of keyval {:#x} returned error {}",
                   keyval, rc);
    }
    if (!flag) continue;
    retain(keyval);
    to->attributes.emplace_back(keyval, copied);
  }
  return MPI_SUCCESS;
}

int delete_attributes(Endpoint* e, const char* function) {
  while (!e->attributes.empty()) {
    const auto [keyval, value] = e->attributes.back();
    const int rc = run_delete(e, keyval, value, function);
    if (rc != MPI_SUCCESS) return rc;
    remove(e, keyval);
  }
  return MPI_SUCCESS;
}

bool get_user_attribute(Endpoint* e, int keyval, void* attribute_val, int* flag, int* rc) {
  if (!in_libep_range(keyval)) return false;
  *rc = check_keyval(e, keyval, "Comm_get_attr");
  if (*rc != MPI_SUCCESS) return true;
  const Attribute* a = find(e, keyval);
  *flag = a ? 1 : 0;
  if (a) *static_cast<void**>(attribute_val) = a->second;
  return true;
}

}  // namespace detail

int COMM_NULL_COPY_FN(Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int COMM_DUP_FN(Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int COMM_NULL_DELETE_FN(Comm, int, void*, void*) { return MPI_SUCCESS; }

int Comm_create_keyval(Comm_copy_attr_function* comm_copy_attr_fn,
                       Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                       void* extra_state) {
  if (!comm_keyval) return raise(nullptr, MPI_ERR_ARG, "Comm_create_keyval", "comm_keyval is null");
  std::lock_guard lock(detail::keyvals_lock);
  if (detail::next_keyval.load() == (1 << 30)) {
    return raise(nullptr, MPI_ERR_OTHER, "Comm_create_keyval", "out of keyvals");
  }
  const int keyval = detail::next_keyval.fetch_add(1);
  detail::keyvals[keyval] = {comm_copy_attr_fn, comm_delete_attr_fn, extra_state};
  *comm_keyval = keyval;
  return MPI_SUCCESS;
}

int Comm_free_keyval(int* comm_keyval) {
  constexpr const char* fn = "Comm_free_keyval";
  if (!comm_keyval) return raise(nullptr, MPI_ERR_ARG, fn, "comm_keyval is null");
  const int keyval = *comm_keyval;
  {
    std::lock_guard lock(detail::keyvals_lock);
    auto it = detail::keyvals.find(keyval);
    if (it != detail::keyvals.end() && !it->second.freed) {
      it->second.freed = true;
      if (--it->second.uses == 0) detail::keyvals.erase(it);
      *comm_keyval = MPI_KEYVAL_INVALID;
      return MPI_SUCCESS;
    }
  }
  return raise(nullptr, MPI_ERR_KEYVAL, fn,
               "keyval {} was not made by ep::Comm_create_keyval, or was freed", keyval);
}

int Comm_set_attr(Comm comm, int comm_keyval, void* attribute_val) {
  constexpr const char* fn = "Comm_set_attr";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (const int rc = detail::check_keyval(e, comm_keyval, fn); rc != MPI_SUCCESS) return rc;
  if (detail::Attribute* a = detail::find(e, comm_keyval)) {
    // MPI: the old value is deleted as by Comm_delete_attr; if its callback
    // fails, the old value stays.
    const int rc = detail::run_delete(e, comm_keyval, a->second, fn);
    if (rc != MPI_SUCCESS) return rc;
    // The callback may have changed the attributes: look again.
    if ((a = detail::find(e, comm_keyval))) {
      a->second = attribute_val;
      return MPI_SUCCESS;
    }
  }
  detail::retain(comm_keyval);
  e->attributes.emplace_back(comm_keyval, attribute_val);
  return MPI_SUCCESS;
}

int Comm_delete_attr(Comm comm, int comm_keyval) {
  constexpr const char* fn = "Comm_delete_attr";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (const int rc = detail::check_keyval(e, comm_keyval, fn); rc != MPI_SUCCESS) return rc;
  const detail::Attribute* a = detail::find(e, comm_keyval);
  if (!a) return MPI_SUCCESS;
  const int rc = detail::run_delete(e, comm_keyval, a->second, fn);
  if (rc != MPI_SUCCESS) return rc;
  detail::remove(e, comm_keyval);
  return MPI_SUCCESS;
}

int Comm_set_name(Comm comm, const char* comm_name) {
  constexpr const char* fn = "Comm_set_name";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!comm_name) return raise(e, MPI_ERR_ARG, fn, "comm_name is a null pointer");
  // MPI keeps MPI_MAX_OBJECT_NAME - 1 characters and the terminator.
  std::string name(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  detail::CommShared& shared = *e->shared;
  {
    std::lock_guard lock(shared.names_lock);
    shared.names[e->local] = std::move(name);
  }
  detail::dump_if_requested(shared);
  return MPI_SUCCESS;
}

int Comm_get_name(Comm comm, char* comm_name, int* resultlen) {
  constexpr const char* fn = "Comm_get_name";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!comm_name || !resultlen) return raise(e, MPI_ERR_ARG, fn, "a result pointer is null");
  detail::CommShared& shared = *e->shared;
  std::lock_guard lock(shared.names_lock);
  auto it = shared.names.find(e->local);
  const std::string empty;
  const std::string& name = it == shared.names.end() ? empty : it->second;
  std::memcpy(comm_name, name.c_str(), name.size() + 1);
  *resultlen = static_cast<int>(name.size());
  return MPI_SUCCESS;
}

}  // namespace ep
