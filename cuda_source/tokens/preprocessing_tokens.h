// The preprocessing tokens of a C++/CUDA file as the compiler's own first phases see them, for a
// check that must not be fooled (the candidate source policy): backslash-newlines are spliced
// first (so `fo\<newline>pen` is `fopen`), raw and prefixed string literals are read whole,
// digraphs are spelled as what they stand for (`%:` is `#`, `%:%:` is `##`), and the operand of
// `#include` is one header-name token. code_tokens.h is the lighter tokenizer for edits; this one
// reports a `problem` where the text cannot be read the way every compiler would (a trigraph, an
// unterminated comment or raw string) and goes on reading. A quote that never closes is one
// punctuation token and what follows it is read as code: where the compiler reads that text it
// is an error, and where it skips it (#if 0) reading more than it does is only stricter.
#pragma once

#include <string>
#include <vector>

namespace kb::cuda_source {

struct PpToken {
  enum Kind { identifier, number, string_literal, char_literal, header_name, punct } kind = punct;
  std::string text;  // as spliced; digraphs spelled as their plain punctuator; literals whole
  int line = 0;      // 1-based, in the original text
  // The `#` that starts a directive, and every token of a directive's (logical) line.
  bool directive_start = false;
  bool in_directive = false;
};

struct PpTokens {
  struct Problem {
    std::string what;  // "a trigraph", "an unterminated /* comment"
    int line = 0;
  };
  std::vector<PpToken> tokens;
  std::vector<Problem> problems;  // none when the whole text was read as every compiler reads it
};

PpTokens preprocessing_tokens(const std::string& text);

// The characters a string literal token stands for, roughly: prefixes, quotes and a raw string's
// delimiter removed, simple, octal and \x escapes decoded (enough to see "\x2fproc" as "/proc").
std::string string_literal_value(const std::string& token_text);

}  // namespace kb::cuda_source
