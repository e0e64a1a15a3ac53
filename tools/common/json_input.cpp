#include "json_input.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ep::tools {

namespace {

// An input iterator over the text that remembers the last character the
// parser read: nlohmann's SAX events carry no position, and the errors
// found in them (depth, duplicate keys) should still say on which line.
class TrackedChar {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedChar(const char* at, const char** last_read) : at_(at), last_read_(last_read) {}
  reference operator*() const {
    *last_read_ = at_;
    return *at_;
  }
  TrackedChar& operator++() {
    ++at_;
    return *this;
  }
  TrackedChar operator++(int) {
    TrackedChar before = *this;
    ++at_;
    return before;
  }
  bool operator==(const TrackedChar& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** last_read_;
};

// nlohmann's out_of_range.406: a number no double can hold.
constexpr int out_of_range_id = 406;

std::string out_of_range_reason(const std::string& number) {
  return fmt::format("the number {} is out of range (a double reaches about 1.8e308)", number);
}

// Builds the document from SAX events with an explicit stack of the open
// containers, checking depth, keys and numbers as they come. Only the last
// member of each open container is open, so the pointers on the stack stay
// valid while siblings are appended to containers further out.
template <typename Json>
class Builder : public nlohmann::json_sax<Json> {
 public:
  using number_integer_t = typename Json::number_integer_t;
  using number_unsigned_t = typename Json::number_unsigned_t;
  using number_float_t = typename Json::number_float_t;
  using string_t = typename Json::string_t;
  using binary_t = typename Json::binary_t;

  Builder(std::string_view text, const std::string& file, std::size_t max_depth)
      : text_(text), file_(file), max_depth_(max_depth), last_read_(text.data()) {}

  const char** last_read() { return &last_read_; }

  Json take() { return std::move(root_); }

  /// The error that stopped parsing (our own, or the parser's).
  std::optional<JsonInputError> error;

  bool null() override { return place(Json(nullptr)) != nullptr; }
  bool boolean(bool val) override { return place(Json(val)) != nullptr; }
  bool number_integer(number_integer_t val) override { return place(Json(val)) != nullptr; }
  bool number_unsigned(number_unsigned_t val) override { return place(Json(val)) != nullptr; }
  bool number_float(number_float_t val, const string_t& s) override {
    // nlohmann refuses overflows itself (parse_error below); this is the
    // guard should a version let one through as infinity.
    if (!std::isfinite(val))
      return fail(JsonInputError::Kind::out_of_range, out_of_range_reason(s));
    return place(Json(val)) != nullptr;
  }
  bool string(string_t& val) override { return place(Json(std::move(val))) != nullptr; }
  bool binary(binary_t& val) override {
    return place(Json(typename Json::binary_t(std::move(val)))) != nullptr;
  }

  bool start_object(std::size_t /*elements*/) override {
    return open(Json(nlohmann::json::value_t::object));
  }
  bool key(string_t& val) override {
    Open& top = stack_.back();
    if (!top.keys.insert(val).second)
      return fail(JsonInputError::Kind::duplicate_key, fmt::format("key \"{}\" given twice", val));
    key_ = std::move(val);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t /*elements*/) override {
    return open(Json(nlohmann::json::value_t::array));
  }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t /*position*/, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    if (ex.id == out_of_range_id)
      return fail(JsonInputError::Kind::out_of_range, out_of_range_reason(last_token));
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ...":
    // the bracket names nlohmann's catalogue, which says nothing to a user.
    std::string what = ex.what();
    if (const auto end = what.find("] "); what.starts_with("[json.") && end != std::string::npos)
      what.erase(0, end + 2);
    if (!error) error.emplace(JsonInputError::Kind::syntax, file_, line(), what);
    return false;
  }

 private:
  struct Open {
    Json* value;
    std::unordered_set<string_t> keys;  // an object's keys so far
  };

  std::size_t line() const {
    const std::string_view read =
        text_.substr(0, static_cast<std::size_t>(last_read_ - text_.data()));
    return 1 + static_cast<std::size_t>(std::ranges::count(read, '\n'));
  }

  bool fail(JsonInputError::Kind kind, const std::string& reason) {
    if (!error) error.emplace(kind, file_, line(), reason);
    return false;
  }

  // Puts `value` where the parser is: the root, the next element of the open
  // array, or the member of the open object under the last key.
  Json* place(Json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& top = *stack_.back().value;
    if (top.is_array()) {
      auto& array = top.template get_ref<typename Json::array_t&>();
      array.push_back(std::move(value));
      return &array.back();
    }
    auto& object = top.template get_ref<typename Json::object_t&>();
    if constexpr (requires { typename Json::object_t::Container; }) {
      // ordered_map's own insertion searches the vector for the key: the
      // key set has already ruled it out, so append without the search.
      auto& members = static_cast<typename Json::object_t::Container&>(object);
      members.emplace_back(std::move(key_), std::move(value));
      return &members.back().second;
    } else {
      return &object.emplace_hint(object.end(), std::move(key_), std::move(value))->second;
    }
  }

  bool open(Json container) {
    if (stack_.size() >= max_depth_)
      return fail(JsonInputError::Kind::too_deep,
                  fmt::format("nesting deeper than {} levels", max_depth_));
    Json* value = place(std::move(container));
    stack_.push_back({value, {}});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t max_depth_;
  const char* last_read_;
  Json root_;
  std::vector<Open> stack_;
  string_t key_;
};

template <typename Json>
Json parse_with_limits(std::string_view text, const std::string& file, std::size_t max_depth) {
  Builder<Json> builder(text, file, max_depth);
  const TrackedChar first(text.data(), builder.last_read());
  const TrackedChar last(text.data() + text.size(), builder.last_read());
  const bool ok = Json::sax_parse(first, last, &builder);
  if (builder.error) throw *builder.error;
  if (!ok)  // the parser stops only through one of the events above
    throw JsonInputError(JsonInputError::Kind::syntax, file, 0, "cannot be parsed");
  return builder.take();
}

std::string system_reason(int error) { return std::generic_category().message(error); }

std::string what_it_is(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string too_large(std::uintmax_t bytes, std::uintmax_t max_bytes) {
  return fmt::format("{} bytes or more, larger than the {} bytes a JSON input may have", bytes,
                     max_bytes);
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() { ::close(fd_); }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

InputFileError::InputFileError(const std::string& file, const std::string& reason)
    : std::runtime_error(fmt::format("{}: {}", file, reason)), reason_(reason) {}

std::string read_input_file(const std::string& file, std::uintmax_t max_bytes) {
  // Non-blocking: opening a named pipe must not wait for a writer; what is
  // opened is then judged by fstat, so nothing changes between look and read.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw InputFileError(file, "cannot open: " + system_reason(errno));
  const Descriptor in(fd);
  struct stat status {};
  if (::fstat(fd, &status) != 0) throw InputFileError(file, "cannot read: " + system_reason(errno));
  if (!S_ISREG(status.st_mode))
    throw InputFileError(file,
                         fmt::format("is {}, not a regular file", what_it_is(status.st_mode)));
  const auto size = static_cast<std::uintmax_t>(status.st_size);
  if (size > max_bytes) throw InputFileError(file, "is " + too_large(size, max_bytes));
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  // Read to the end, not to st_size: files of /proc say 0 and hold more.
  std::vector<char> buffer(std::size_t{1} << 16);
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputFileError(file, "cannot read: " + system_reason(errno));
    }
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > max_bytes)
      throw InputFileError(file, "grew to " + too_large(text.size() + got, max_bytes));
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
  return text;
}

JsonInputError::JsonInputError(Kind kind, const std::string& file, std::size_t line,
                               const std::string& reason)
    : std::runtime_error(kind == Kind::syntax ? fmt::format("{}: {}", file, reason)
                                              : fmt::format("{}: line {}: {}", file, line, reason)),
      kind_(kind),
      line_(line),
      reason_(reason) {}

nlohmann::ordered_json parse_json_ordered(std::string_view text, const std::string& file,
                                          std::size_t max_depth) {
  return parse_with_limits<nlohmann::ordered_json>(text, file, max_depth);
}

nlohmann::json parse_json(std::string_view text, const std::string& file, std::size_t max_depth) {
  return parse_with_limits<nlohmann::json>(text, file, max_depth);
}

}  // namespace ep::tools
