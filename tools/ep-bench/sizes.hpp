// Message sizes on the command line: "8", "1K", "64KiB", "4M", and lists and
// ranges of them ("1,8,1K,64K,1M", "1:4M:x2", "0:1K:+256").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ep::bench {

/// Counts are ints in MPI: a message is at most 1 GiB here, leaving room.
inline constexpr std::int64_t max_message_bytes = std::int64_t{1} << 30;

/// One size; suffixes K, M, G (optionally KiB/KB, any case) are binary, as in
/// OSU. Throws std::invalid_argument with a message that quotes the input.
std::int64_t parse_size(std::string_view text);

/// A comma-separated list of sizes and ranges lo:hi[:xF|:+S] (default x2),
/// returned sorted without duplicates. Throws std::invalid_argument.
std::vector<std::int64_t> parse_size_list(std::string_view text);

/// The shortest exact spelling of a size: 8 -> "8", 65536 -> "64K", 1536 -> "1536".
std::string format_size(std::int64_t bytes);

}  // namespace ep::bench
