// Small text helpers several modules need, written once: a unity build (the sanitizer builds)
// joins files whose private copies of these would clash.
#pragma once

#include <string>

namespace kb {

// ASCII lower case ("Rebench" -> "rebench"); other bytes unchanged.
std::string lower(std::string text);

// The text of one cell of a Markdown table: pipes escaped, line breaks made spaces.
std::string markdown_cell(const std::string& text);

}  // namespace kb
