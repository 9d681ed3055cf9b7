#include "cuda_source/splicing/splice_text.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/errors.h"

namespace kb::cuda_source {
namespace {

bool blank(const std::string& s, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (!std::isspace(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

}  // namespace

size_t line_begin(const std::string& s, size_t pos) {
  while (pos > 0 && s[pos - 1] != '\n') --pos;
  return pos;
}

Range with_leading_comment(const std::string& s, Range r) {
  size_t b = line_begin(s, r.begin);
  if (!blank(s, b, r.begin)) return r;
  while (b > 0) {
    size_t prev = line_begin(s, b - 1);
    size_t first = prev;
    while (first < b && (s[first] == ' ' || s[first] == '\t')) ++first;
    size_t last = b - 1;  // the '\n'
    while (last > first && std::isspace(static_cast<unsigned char>(s[last - 1]))) --last;
    if (s.compare(first, 2, "//") == 0) {
      b = prev;
    } else if (last >= first + 2 && s.compare(last - 2, 2, "*/") == 0) {
      size_t open = s.rfind("/*", last - 2);
      if (open == std::string::npos || !blank(s, line_begin(s, open), open)) break;
      b = line_begin(s, open);
    } else {
      break;
    }
  }
  r.begin = b == line_begin(s, r.begin) ? r.begin : b;
  return r;
}

Range with_trailing_comment(const std::string& s, Range r) {
  size_t i = r.end;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (s.compare(i, 2, "//") != 0) return r;
  size_t eol = s.find('\n', i);
  r.end = eol == std::string::npos ? s.size() : eol;
  if (r.end > i && s[r.end - 1] == '\r') --r.end;
  return r;
}

Range whole_lines(const std::string& s, Range r) {
  r.begin = line_begin(s, r.begin);
  size_t eol = s.find('\n', r.end);
  r.end = eol == std::string::npos ? s.size() : eol + 1;
  size_t next = s.find('\n', r.end);
  if (next != std::string::npos && blank(s, r.end, next)) r.end = next + 1;
  return r;
}

std::string normalized(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      out += c;
      space = false;
    }
  }
  return out;
}

std::string compact_code(const std::string& s) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty() && word(out.back()) && word(c)) out += ' ';
    out += c;
    space = false;
  }
  return out;
}

std::string apply_edits(const std::string& path, const std::string& text, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.range.begin != b.range.begin) return a.range.begin < b.range.begin;
    return a.range.end == a.range.begin && b.range.end != b.range.begin;  // an insertion first
  });
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].range.overlaps(edits[i - 1].range))
      throw Error(path + ": the definitions to replace overlap; cannot splice the winner");
  std::string out = text;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it)
    out.replace(it->range.begin, it->range.end - it->range.begin, it->text);
  return out;
}

}  // namespace kb::cuda_source
