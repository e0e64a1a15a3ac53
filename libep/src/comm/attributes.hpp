// Cached attributes of an endpoint, for the constructors and Comm_free.
#pragma once

#include "object/endpoint.hpp"

namespace ep::detail {

/// Runs the copy callbacks of `from`'s attributes on behalf of `function`
/// and sets on `to` those they copy. A callback's error is raised on `from`
/// and returned; `to` then keeps what was copied before it.
int copy_attributes(Endpoint* from, Endpoint* to, const char* function);

/// Deletes every attribute of `e`, last set first, running the delete
/// callbacks. A callback's error is raised on `e` and returned; that
/// attribute and those set before it stay.
int delete_attributes(Endpoint* e, const char* function);

/// Comm_get_attr for a keyval in libep's range: answers it (the attribute,
/// or *rc the error raised) and returns true; false for any other key.
bool get_user_attribute(Endpoint* e, int keyval, void* attribute_val, int* flag, int* rc);

}  // namespace ep::detail
