#include "cuda_source/code_tokens.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace kb::cuda_source {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// One past the end of the line that starts a directive at `i`, continuation lines included;
// a comment on it does not end it early, which is harmless here (it is skipped whole).
size_t directive_end(const std::string& s, size_t i, size_t end) {
  while (i < end && s[i] != '\n') {
    if (s[i] == '\\' && i + 1 < end && s[i + 1] == '\n') ++i;
    ++i;
  }
  return i;
}

}  // namespace

std::vector<CodeToken> tokenize_code(const std::string& s, size_t begin, size_t end, bool with_directives) {
  std::vector<CodeToken> out;
  end = std::min(end, s.size());
  bool line_start = true;  // only spaces since the last newline: a '#' here starts a directive
  size_t i = begin;
  while (i < end) {
    char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < end && s[i + 1] == '/') {
      while (i < end && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < end && s[i + 1] == '*') {
      size_t close = s.find("*/", i + 2);
      i = close == std::string::npos || close + 2 > end ? end : close + 2;
      continue;
    }
    if (c == '#' && line_start && !with_directives) {
      i = directive_end(s, i, end);
      continue;
    }
    line_start = false;
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < end && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      i = std::min(end, j + 1);
      continue;
    }
    size_t j = i;
    CodeToken::Kind kind = CodeToken::punct;
    if (ident_start(c)) {
      kind = CodeToken::identifier;
      while (j < end && ident_char(s[j])) ++j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < end && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      kind = CodeToken::number;
      while (j < end && (ident_char(s[j]) || s[j] == '.' || s[j] == '\'' ||
                         ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
    } else if (s.compare(i, 3, "<<<") == 0 || s.compare(i, 3, ">>>") == 0) {
      j = i + 3;
    } else if (s.compare(i, 2, "::") == 0 || s.compare(i, 2, "->") == 0) {
      j = i + 2;
    } else {
      j = i + 1;
    }
    j = std::min(j, end);
    out.push_back(CodeToken{kind, i, j, s.substr(i, j - i)});
    i = j;
  }
  return out;
}

std::vector<CodeToken> tokenize_code(const std::string& text, bool with_directives) {
  return tokenize_code(text, 0, text.size(), with_directives);
}

std::optional<int64_t> integer_literal(const CodeToken& token) {
  if (token.kind != CodeToken::number) return std::nullopt;
  const std::string& t = token.text;
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0 || digits > 18) return std::nullopt;
  if (digits > 1 && t[0] == '0') return std::nullopt;  // octal
  for (size_t k = digits; k < t.size(); ++k)
    if (!std::strchr("uUlL", t[k])) return std::nullopt;
  return std::stoll(t.substr(0, digits));
}

int line_of(const std::string& text, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

}  // namespace kb::cuda_source
