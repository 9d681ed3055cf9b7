#include "common/unified_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kb {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

enum class Op : char { keep = ' ', del = '-', add = '+' };

struct Edit {
  Op op;
  size_t a, b;  // line index in before (keep/del) and after (keep/add)
};

// Longest common subsequence on the part between the common prefix and suffix. Beyond a size
// where the table would not fit comfortably, the middle is shown as replaced wholesale: a
// correct diff, just not a minimal one.
std::vector<Edit> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<Edit> edits;
  for (size_t i = 0; i < prefix; ++i) edits.push_back({Op::keep, i, i});
  size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  if (n * m <= 16'000'000) {
    std::vector<uint32_t> table((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return table[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
        edits.push_back({Op::keep, prefix + i++, prefix + j++});
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        edits.push_back({Op::del, prefix + i++, prefix + j});  // deletions first, as diff prints them
      } else {
        edits.push_back({Op::add, prefix + i, prefix + j++});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) edits.push_back({Op::del, prefix + i, prefix});
    for (size_t j = 0; j < m; ++j) edits.push_back({Op::add, prefix + n, prefix + j});
  }
  for (size_t k = 0; k < suffix; ++k) edits.push_back({Op::keep, prefix + n + k, prefix + m + k});
  return edits;
}

std::string range(size_t start, size_t count) {
  // diff -u numbers lines from 1; an empty range names the line before it.
  size_t first = count == 0 ? start : start + 1;
  return count == 1 ? std::to_string(first) : std::to_string(first) + "," + std::to_string(count);
}

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after, const std::string& name,
                         int context) {
  if (before == after) return "";
  auto a = split_lines(before), b = split_lines(after);
  auto edits = edit_script(a, b);
  std::string out = "--- a/" + name + "\n+++ b/" + name + "\n";
  size_t ctx = static_cast<size_t>(std::max(0, context));
  size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == Op::keep) ++k;
    if (k == edits.size()) break;
    // A hunk: from `ctx` lines before the first change to `ctx` lines after the last change
    // that is not separated from the next by more than 2*ctx unchanged lines.
    size_t start = k >= ctx ? k - ctx : 0;
    size_t end = k;
    for (;;) {
      while (end < edits.size() && edits[end].op != Op::keep) ++end;
      size_t run = end;
      while (run < edits.size() && edits[run].op == Op::keep) ++run;
      if (run < edits.size() && run - end <= 2 * ctx) {
        end = run;
        continue;
      }
      end = std::min(end + ctx, edits.size());
      break;
    }
    size_t a_start = edits[start].a, b_start = edits[start].b, a_count = 0, b_count = 0;
    std::string body;
    for (size_t i = start; i < end; ++i) {
      const Edit& e = edits[i];
      if (e.op != Op::add) ++a_count;
      if (e.op != Op::del) ++b_count;
      body += static_cast<char>(e.op);
      body += (e.op == Op::add ? b[e.b] : a[e.a]) + "\n";
      bool last_of_a = e.op != Op::add && e.a + 1 == a.size() && before.back() != '\n';
      bool last_of_b = e.op == Op::add && e.b + 1 == b.size() && after.back() != '\n';
      if (last_of_a || last_of_b) body += "\\ No newline at end of file\n";
    }
    out += "@@ -" + range(a_start, a_count) + " +" + range(b_start, b_count) + " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace kb
