// GitHub refuses an issue, PR or comment body over 65536 characters ("body is too long (maximum
// is 65536 characters)"), and with it the whole PR. A body over the limit is shortened here, the
// least useful part first: long markdown tables keep their first and last rows and say how many
// were folded away; if that is not enough, the text is cut at a line, with open code fences and
// <details> closed, and a note says where the rest is.
#pragma once

#include <cstddef>
#include <string>

namespace kb::bot {

constexpr size_t kGitHubBodyLimit = 65536;

// Characters as GitHub counts them (Unicode code points of the UTF-8 text).
size_t github_chars(const std::string& text);

// `body` itself when it fits in `max_chars`, else a shortened body that does.
std::string fit_github_body(const std::string& body, size_t max_chars = kGitHubBodyLimit);

}  // namespace kb::bot
