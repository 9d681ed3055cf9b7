#include "cuda_source/splicing/original_layout.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>

#include "cuda_source/splicing/definition_splice.h"
#include "cuda_source/splicing/namespace_chunks.h"
#include "cuda_source/splicing/splice_text.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {
namespace {

// Lines are aligned by a longest common subsequence over the lines both texts do not share at
// their start or end; past this many cells (two 4,000-line middles) the middle is one change.
constexpr size_t kMaxAlignmentCells = 16'000'000;

struct Line {
  size_t begin = 0, end = 0;  // the content, without its terminator
  std::string_view terminator;
};

std::vector<Line> split_lines(const std::string& s) {
  std::vector<Line> lines;
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    if (nl == std::string::npos) {
      lines.push_back({at, s.size(), {}});
      break;
    }
    const bool crlf = nl > at && s[nl - 1] == '\r';
    lines.push_back({at, crlf ? nl - 1 : nl, std::string_view(s).substr(crlf ? nl - 1 : nl, crlf ? 2 : 1)});
    at = nl + 1;
  }
  return lines;
}

std::string_view content(const std::string& s, const Line& l) {
  return std::string_view(s).substr(l.begin, l.end - l.begin);
}

// One step of the alignment: a line both have, or a run of lines that differ.
struct Step {
  bool same = false;
  size_t a_begin = 0, a_end = 0;  // original lines
  size_t b_begin = 0, b_end = 0;  // candidate lines
};

std::vector<Step> align(const std::string& a, const std::vector<Line>& al, const std::string& b,
                        const std::vector<Line>& bl) {
  size_t n = al.size(), m = bl.size();
  size_t head = 0;
  while (head < n && head < m && content(a, al[head]) == content(b, bl[head])) ++head;
  size_t tail = 0;
  while (tail < n - head && tail < m - head && content(a, al[n - 1 - tail]) == content(b, bl[m - 1 - tail])) ++tail;
  std::vector<Step> steps;
  for (size_t i = 0; i < head; ++i) steps.push_back({true, i, i + 1, i, i + 1});
  const size_t an = n - head - tail, bn = m - head - tail;
  auto changed = [&](size_t a0, size_t a1, size_t b0, size_t b1) {
    if (a0 < a1 || b0 < b1) steps.push_back({false, a0, a1, b0, b1});
  };
  if (an > 0 && bn > 0 && (an + 1) * (bn + 1) <= kMaxAlignmentCells) {
    // lcs[i][j]: the common subsequence's length of the middles from line i and j on.
    std::vector<uint16_t> lcs((an + 1) * (bn + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint16_t& { return lcs[i * (bn + 1) + j]; };
    for (size_t i = an; i-- > 0;)
      for (size_t j = bn; j-- > 0;)
        at(i, j) = content(a, al[head + i]) == content(b, bl[head + j]) ? static_cast<uint16_t>(at(i + 1, j + 1) + 1)
                                                                        : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0, run_a = 0, run_b = 0;
    while (i < an || j < bn) {
      if (i < an && j < bn && content(a, al[head + i]) == content(b, bl[head + j])) {
        changed(head + run_a, head + i, head + run_b, head + j);
        steps.push_back({true, head + i, head + i + 1, head + j, head + j + 1});
        ++i, ++j;
        run_a = i, run_b = j;
      } else if (j < bn && (i == an || at(i, j + 1) >= at(i + 1, j))) {
        ++j;
      } else {
        ++i;
      }
    }
    changed(head + run_a, head + an, head + run_b, head + bn);
  } else {
    changed(head, head + an, head, head + bn);
  }
  for (size_t i = 0; i < tail; ++i)
    steps.push_back({true, n - tail + i, n - tail + i + 1, m - tail + i, m - tail + i + 1});
  return steps;
}

// Whether each line of `text` lies outside every top-level declaration and directive: blank, or
// a comment between definitions.
std::vector<bool> between_definitions(const std::string& text, const std::vector<Line>& lines) {
  std::vector<SourceChunk> chunks = top_level_chunks(text);
  std::vector<bool> out(lines.size(), true);
  size_t c = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    while (c < chunks.size() && chunks[c].end <= lines[i].begin) ++c;
    // A chunk overlapping the line [begin, end], its terminator's position included.
    for (size_t k = c; k < chunks.size() && chunks[k].begin <= lines[i].end; ++k)
      if (chunks[k].end > lines[i].begin) out[i] = false;
  }
  return out;
}

std::string join_contents(const std::string& s, const std::vector<Line>& lines, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) out += std::string(content(s, lines[i])) + "\n";
  return out;
}

// A definition's name and parameter types, with the qualifiers a rewrite adds or drops without
// changing what calls it (`__restrict__`, top-level `const`) left out: the key that pairs a
// definition with its rewrite.
std::string signature(const ScannedLauncher& f) {
  std::string s = f.name + "(";
  for (const auto& p : f.params) {
    std::string type;
    for (const auto& t : tokenize_code(p.type)) {
      if (t.text == "__restrict__" || t.text == "__restrict" || t.text == "restrict") continue;
      type += (type.empty() ? "" : " ") + t.text;
    }
    // "const float * const" and "const float *" are the same parameter to a caller.
    if (type.size() > 6 && type.ends_with(" const") && type.find('*') != std::string::npos)
      type.resize(type.size() - 6);
    s += type + ",";
  }
  return s + ")";
}

// As reachable_from_other_files, with the file's namespace layout read once.
bool reachable(const std::string& text, const NamespaceLayout& layout, size_t begin, size_t end) {
  size_t name_end = text.find('(', begin);
  if (name_end == std::string::npos || name_end > end) return false;
  for (const auto& t : tokenize_code(text, begin, name_end)) {
    static const std::set<std::string> local{"static",    "inline",   "__forceinline__",
                                             "constexpr", "template", "consteval"};
    if (local.count(t.text)) return false;
  }
  // A piece at namespace scope (not a member inside its class), in no anonymous namespace.
  const bool namespace_scope = std::any_of(layout.chunks.begin(), layout.chunks.end(),
                                           [&](const NamespacedChunk& c) { return c.chunk.begin == begin; });
  const auto path = layout.path_at(begin);
  return namespace_scope && std::none_of(path.begin(), path.end(), [](const NamespaceName& n) { return n.empty(); });
}

}  // namespace

bool reachable_from_other_files(const std::string& text, size_t begin, size_t end) {
  return reachable(text, read_namespace_layout(text), begin, end);
}

namespace {

// Whether the line that ends just before `pos` (a line start) is blank.
bool blank_line_before(const std::string& s, size_t pos) {
  size_t end = pos;
  if (end > 0 && s[end - 1] == '\n') --end;
  size_t begin = s.rfind('\n', end == 0 ? 0 : end - 1);
  begin = begin == std::string::npos || end == 0 ? 0 : begin + 1;
  return std::all_of(s.begin() + static_cast<long>(begin), s.begin() + static_cast<long>(end),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// Whether the line starting at `pos` is blank.
bool blank_line_at(const std::string& s, size_t pos) {
  size_t end = s.find('\n', pos);
  if (end == std::string::npos) end = s.size();
  return std::all_of(s.begin() + static_cast<long>(pos), s.begin() + static_cast<long>(end),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

size_t line_end_after(const std::string& s, size_t pos) {
  size_t nl = s.find('\n', pos);
  return nl == std::string::npos ? s.size() : nl + 1;
}

// Puts back the original's reachable definitions that `laid` no longer has, with their doc
// comments, each at the top-level boundary after the last line before it that the laid-out text
// kept (`kept_end[i]`: where original line i ends in it, npos when it is not there), wrapped in
// its namespaces.
void restore_dropped(const std::string& original, const std::vector<Line>& lines, const std::vector<size_t>& kept_end,
                     const std::string& path, LaidOutText& laid, const std::string& terminator) {
  ScanResult before, after;
  scan_source(original, path, before);
  scan_source(laid.text, path, after);
  // By name: a definition the winner rewrote with other parameters (a new overload, a template)
  // is its, not a dropped one; putting the old one back beside it could make calls ambiguous.
  std::set<std::string> defined;
  for (const auto& f : after.functions) defined.insert(f.name);
  const NamespaceLayout layout = read_namespace_layout(original);
  std::vector<const ScannedLauncher*> dropped;
  for (const auto& f : before.functions)
    if (!defined.count(f.name) && reachable(original, layout, f.begin, f.end)) dropped.push_back(&f);
  if (dropped.empty()) return;
  const std::vector<SourceChunk> laid_chunks = top_level_chunks(laid.text);
  std::vector<Edit> insertions;  // empty ranges, in the original's order
  for (const ScannedLauncher* f : dropped) {
    const size_t begin = leading_comment_begin(original, f->begin);
    size_t at = laid.text.size();
    for (size_t i = lines.size(); i-- > 0;) {
      if (lines[i].end >= begin || kept_end[i] == std::string::npos) continue;
      at = kept_end[i];
      break;
    }
    // Never inside a definition of the laid-out text: after the one it falls in.
    for (const auto& c : laid_chunks)
      if (c.begin < at && at < c.end) at = line_end_after(laid.text, c.end);
    std::string open, close;
    for (const auto& ns : layout.path_at(f->begin)) {
      open += namespace_opener(ns) + terminator;
      close = namespace_closer(ns) + terminator + close;
    }
    // Apart from its neighbours by a blank line on each side, as definitions are.
    std::string block = open + original.substr(begin, f->end - begin) + terminator + close;
    if (at > 0 && laid.text[at - 1] != '\n') block = terminator + block;
    if (at > 0 && !blank_line_before(laid.text, at)) block = terminator + block;
    if (at < laid.text.size() && !blank_line_at(laid.text, at)) block += terminator;
    insertions.push_back({{at, at}, block});
    laid.restored.push_back(f->name);
  }
  // At one point, in the order given: the original's.
  laid.text = apply_edits(path, laid.text, std::move(insertions));
}

}  // namespace

LaidOutText keep_original_layout(const std::string& original, const std::string& candidate, const std::string& path) {
  const std::vector<Line> ol = split_lines(original), cl = split_lines(candidate);
  size_t crlf = 0;
  for (const auto& l : ol) crlf += l.terminator == "\r\n";
  const std::string terminator = crlf * 2 > ol.size() ? "\r\n" : "\n";
  const bool final_newline = ol.empty() || !ol.back().terminator.empty();
  const std::vector<bool> between = between_definitions(original, ol);

  LaidOutText laid;
  std::string& out = laid.text;
  std::vector<size_t> kept_end(ol.size(), std::string::npos);
  auto original_lines = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      out += content(original, ol[i]);
      out += ol[i].terminator.empty() ? std::string_view(terminator) : ol[i].terminator;
      kept_end[i] = out.size();
    }
  };
  auto candidate_lines = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) out += std::string(content(candidate, cl[i])) + terminator;
  };
  size_t whitespace_only = 0, comments_kept = 0;
  for (const Step& s : align(original, ol, candidate, cl)) {
    if (s.same) {
      original_lines(s.a_begin, s.a_end);
    } else if (s.a_begin < s.a_end && s.b_begin < s.b_end &&
               normalized(join_contents(original, ol, s.a_begin, s.a_end)) ==
                   normalized(join_contents(candidate, cl, s.b_begin, s.b_end))) {
      original_lines(s.a_begin, s.a_end);  // the same code, laid out anew: the original's layout
      whitespace_only += s.a_end - s.a_begin;
    } else if (s.b_begin == s.b_end &&
               std::all_of(between.begin() + static_cast<long>(s.a_begin), between.begin() + static_cast<long>(s.a_end),
                           [](bool b) { return b; })) {
      original_lines(s.a_begin, s.a_end);  // comments between definitions, only deleted: kept
      comments_kept += s.a_end - s.a_begin;
    } else {
      candidate_lines(s.b_begin, s.b_end);
    }
  }
  restore_dropped(original, ol, kept_end, path, laid, terminator);
  // The original's final newline, or its absence.
  if (!final_newline) {
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  } else if (!out.empty() && out.back() != '\n') {
    out += terminator;
  }
  laid.whitespace_lines_kept = whitespace_only;
  laid.comment_lines_kept = comments_kept;
  return laid;
}

std::vector<std::string> describe_definition_changes(const std::string& original, const std::string& updated,
                                                     const std::string& path) {
  ScanResult before, after;
  scan_source(original, path, before);
  scan_source(updated, path, after);
  auto text_of = [](const std::string& s, const ScannedLauncher& f) {
    return normalized(s.substr(f.begin, f.end - f.begin));
  };
  std::map<std::string, const ScannedLauncher*> old_defs, new_defs;
  for (const auto& f : before.functions) old_defs.emplace(signature(f), &f);
  for (const auto& f : after.functions) new_defs.emplace(signature(f), &f);
  std::vector<std::string> replaced, added, removed;
  auto add_name = [](std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const auto& f : after.functions) {
    auto it = old_defs.find(signature(f));
    if (it == old_defs.end()) add_name(added, f.name);
    else if (text_of(original, *it->second) != text_of(updated, f)) add_name(replaced, f.name);
  }
  for (const auto& f : before.functions)
    if (!new_defs.count(signature(f))) add_name(removed, f.name);
  // Top-level pieces that define no function: types, constants, macros, includes.
  auto other_pieces = [](const std::string& s, const ScanResult& scan) {
    std::multiset<std::string> out;
    for (const auto& c : top_level_chunks(s)) {
      bool holds_function = std::any_of(scan.functions.begin(), scan.functions.end(),
                                        [&](const ScannedLauncher& f) { return f.begin >= c.begin && f.end <= c.end; });
      if (!holds_function) out.insert(normalized(s.substr(c.begin, c.end - c.begin)));
    }
    return out;
  };
  const auto old_other = other_pieces(original, before), new_other = other_pieces(updated, after);
  size_t other = 0;
  for (const auto& p : new_other)
    if (!old_other.count(p)) ++other;
  auto names = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  std::vector<std::string> edits;
  if (!replaced.empty())
    edits.push_back(names(replaced) + " replaced by the winner's " +
                    (replaced.size() == 1 ? "definition" : "definitions"));
  if (!added.empty()) edits.push_back("new " + names(added) + " added");
  if (!removed.empty()) edits.push_back(names(removed) + " removed (no longer used)");
  if (other > 0)
    edits.push_back(std::to_string(other) + " other top-level piece" + (other == 1 ? "" : "s") +
                    " (types, constants, macros, includes) added or changed");
  return edits;
}

}  // namespace kb::cuda_source
