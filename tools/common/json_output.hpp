// Writing JSON that holds text from outside the tools: paths and arguments
// from the command line, environment variables, host and communicator
// names. Such text need not be UTF-8 (a file name is any bytes but '/' and
// NUL), and nlohmann's dump() throws type_error.316 on the first byte that
// is not, which lost a whole run's results (the exception reached the
// benchmark's threads and aborted the job). Every document the tools write
// goes through dump_json, which writes U+FFFD for such bytes instead: the
// document stays JSON, and the rest of the text stays readable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ep::tools {

/// `value` as JSON text, indented by `indent` spaces (-1: one line), every
/// byte of its strings that is not UTF-8 written as U+FFFD. Does not throw
/// for any value (except std::bad_alloc).
template <typename Json>
std::string dump_json(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ep::tools
