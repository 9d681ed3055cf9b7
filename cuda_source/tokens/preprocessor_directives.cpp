#include "cuda_source/tokens/preprocessor_directives.h"

#include <cctype>
#include <charconv>

namespace kb::cuda_source {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool blank_char(char c) { return c == ' ' || c == '\t'; }

}  // namespace

Conditional Directive::conditional() const {
  if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") return Conditional::open;
  if (keyword == "elif" || keyword == "else" || keyword == "elifdef" || keyword == "elifndef")
    return Conditional::middle;
  if (keyword == "endif") return Conditional::close;
  return Conditional::none;
}

Directive read_directive(const std::string& s, const SourceChunk& chunk) {
  Directive d;
  d.begin = chunk.begin;
  d.end = chunk.end;
  d.line = chunk.line;
  size_t i = chunk.begin + 1;  // past the '#'
  const size_t end = chunk.end;
  auto skip_blanks = [&] {
    while (i < end && blank_char(s[i])) ++i;
  };
  auto read_identifier = [&] {
    size_t from = i;
    while (i < end && identifier_char(s[i])) ++i;
    return s.substr(from, i - from);
  };
  skip_blanks();
  d.keyword = read_identifier();
  d.value_begin = d.value_end = i;
  // "#define(" or "#define/*x*/N" name nothing: the name must be set off by a space or tab.
  if (d.keyword.empty() || i >= end || !blank_char(s[i])) return d;
  skip_blanks();
  d.name = read_identifier();
  if (d.name.empty()) return d;
  d.function_like = i < end && s[i] == '(';
  skip_blanks();
  // The value ends before a comment. A "//" inside a string literal ends it too: macros the
  // splicer and the tuner edit hold numbers, and reading strings here is not worth a tokenizer.
  d.value_begin = d.value_end = i;
  for (size_t k = i; k < end; ++k) {
    if (s.compare(k, 2, "//") == 0 || s.compare(k, 2, "/*") == 0) break;
    if (!std::isspace(static_cast<unsigned char>(s[k]))) d.value_end = k + 1;
  }
  return d;
}

std::string quoted_include(const std::string& text, const Directive& directive) {
  if (directive.keyword != "include") return "";
  const std::string whole = text.substr(directive.begin, directive.end - directive.begin);
  size_t at = whole.find("include") + 7;
  while (at < whole.size() && (whole[at] == ' ' || whole[at] == '\t')) ++at;
  if (at >= whole.size() || whole[at] != '"') return "";
  const size_t close = whole.find('"', at + 1);
  return close == std::string::npos ? "" : whole.substr(at + 1, close - at - 1);
}

std::vector<Directive> read_directives(const std::string& text) {
  std::vector<Directive> out;
  for (const auto& chunk : directive_chunks(text)) out.push_back(read_directive(text, chunk));
  return out;
}

std::vector<Directive> top_level_defines(const std::string& text) {
  std::vector<Directive> out;
  for (const auto& chunk : top_level_chunks(text)) {
    if (chunk.kind != SourceChunk::directive) continue;
    Directive d = read_directive(text, chunk);
    if (d.is_object_like_define()) out.push_back(d);
  }
  return out;
}

std::optional<int64_t> integer_value(std::string_view v) {
  auto trim = [](std::string_view t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    return t;
  };
  v = trim(v);
  if (v.size() >= 2 && v.front() == '(' && v.back() == ')') v = trim(v.substr(1, v.size() - 2));
  // Integer suffixes (u, l, ul, ull...) do not change the value a sweep starts from.
  while (!v.empty() && (v.back() == 'u' || v.back() == 'U' || v.back() == 'l' || v.back() == 'L')) v.remove_suffix(1);
  size_t digits = v.empty() || v.front() != '-' ? 0 : 1;
  if (digits == v.size()) return std::nullopt;
  for (size_t k = digits; k < v.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(v[k]))) return std::nullopt;
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;  // out of range
  return out;
}

}  // namespace kb::cuda_source
