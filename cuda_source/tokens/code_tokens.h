// The tokens of a piece of C++/CUDA text with their byte offsets, for tools that find and edit
// small things in code (a literal, a name) without parsing it: comments and string or character
// literals are skipped, and so, unless asked for, are preprocessor lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::cuda_source {

struct CodeToken {
  enum Kind { identifier, number, punct } kind = punct;
  size_t begin = 0, end = 0;  // byte offsets in the text
  std::string text;
};

// The tokens of text[begin, end). `<<<`, `>>>`, `::` and `->` are one token each; every other
// punctuation character is a token of its own. Preprocessor lines are skipped unless
// `with_directives` (then `#`, `pragma`, `unroll`, `4` are tokens like any other).
std::vector<CodeToken> tokenize_code(const std::string& text, size_t begin, size_t end, bool with_directives = false);
std::vector<CodeToken> tokenize_code(const std::string& text, bool with_directives = false);

// The value of a plain decimal integer literal token ("32", "256u", "64UL"); nothing otherwise.
std::optional<int64_t> integer_literal(const CodeToken& token);

// The 1-based line of byte offset `pos`. Thousands of offsets are asked of one large text (init and
// config check name the line of every buffer access of every kernel in a file): the line starts of
// the last texts asked about are kept, so each offset costs a binary search, not a pass over the file.
int line_of(const std::string& text, size_t pos);

}  // namespace kb::cuda_source
