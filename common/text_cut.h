// A long text cut to a size a prompt or a message can hold, saying how much was cut, so that a
// reader never takes the part for the whole.
#pragma once

#include <cstddef>
#include <string>

namespace kb {

// The first `max` characters, then "\n[... N characters cut ...]"; `text` itself when it fits.
std::string keep_head(const std::string& text, size_t max);

// "[... N characters cut ...]\n", then the last `max` characters (a log's last errors are the
// ones that matter); `text` itself when it fits.
std::string keep_tail(const std::string& text, size_t max);

}  // namespace kb
