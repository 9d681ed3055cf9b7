// Small text helpers several modules need, written once: a unity build (the sanitizer builds)
// joins files whose private copies of these would clash. Prefixes and suffixes need no helper:
// std::string and std::string_view have starts_with and ends_with (C++20).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

// ASCII lower case ("Rebench" -> "rebench"); other bytes unchanged.
std::string lower(std::string_view text);

// `text` without the ASCII white space (space, \t, \n, \v, \f, \r) at either end.
std::string trim(std::string_view text);

// The pieces of `text` between the `separator`s, empty ones included: "a,,b" -> {"a", "", "b"},
// "" -> {""}. Joining them with the separator gives `text` back.
std::vector<std::string> split(std::string_view text, char separator);

// The parts with `separator` between each two: {"a", "b"}, ", " -> "a, b"; {} -> "".
std::string join(const std::vector<std::string>& parts, std::string_view separator);

// A count and its noun, plural unless it is one: 1, "allocation" -> "1 allocation"; 3 -> "3
// allocations"; -1 -> "-1 allocation" (a ledger's change can be negative). English nouns that take
// an "s" only.
std::string plural_count(int64_t n, std::string_view word);

// The text of one cell of a Markdown table: pipes escaped, line breaks made spaces.
std::string markdown_cell(const std::string& text);

}  // namespace kb
