#include "cuda_source/tokens/code_tokens.h"

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

namespace {

// The newline offsets of a text, and enough of the text to tell it from another string that later
// lives at the same address with the same size: its bytes at 64 evenly spaced offsets.
struct LineStarts {
  const char* data = nullptr;
  size_t size = 0;
  std::string samples;
  std::vector<size_t> newlines;
};

std::string samples_of(const std::string& text) {
  std::string s;
  if (text.empty()) return s;
  for (size_t k = 0; k < 64; ++k) s += text[k * (text.size() - 1) / 63];
  return s;
}

const LineStarts& line_starts(const std::string& text) {
  thread_local std::vector<LineStarts> recent;  // the last few texts, most recent last
  const std::string samples = samples_of(text);
  for (auto it = recent.begin(); it != recent.end(); ++it)
    if (it->data == text.data() && it->size == text.size() && it->samples == samples) {
      std::rotate(it, it + 1, recent.end());
      return recent.back();
    }
  if (recent.size() >= 4) recent.erase(recent.begin());
  LineStarts made{text.data(), text.size(), samples, {}};
  for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) made.newlines.push_back(at);
  recent.push_back(std::move(made));
  return recent.back();
}

}  // namespace

int line_of(const std::string& text, size_t pos) {
  // Small texts (one function's body in a test) are counted directly.
  if (text.size() < 4096) {
    int line = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i)
      if (text[i] == '\n') ++line;
    return line;
  }
  const std::vector<size_t>& newlines = line_starts(text).newlines;
  // Newlines strictly before `pos` (at most the text's end).
  const size_t limit = std::min(pos, text.size());
  return 1 + static_cast<int>(std::lower_bound(newlines.begin(), newlines.end(), limit) - newlines.begin());
}

}  // namespace kb::cuda_source
