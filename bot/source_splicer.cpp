#include "bot/source_splicer.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "profiler/source_scanner.h"
#include "search/unified_diff.h"

namespace kb::bot {
namespace {

std::string unqualified(const std::string& name) {
  auto pos = name.rfind("::");
  return pos == std::string::npos ? name : name.substr(pos + 2);
}

// Byte span of a top-level definition: from the start of its first header line (template
// line, qualifiers, the comment block right above it) to the end of the line with its closing brace.
struct Span {
  size_t begin = 0, end = 0;
};

// Offsets of code characters only: comments and string literals are blanked, so braces inside
// them do not count and names inside them do not match.
std::string code_only(const std::string& s) {
  std::string out = s;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') out[i++] = ' ';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      end = end == std::string::npos ? s.size() : end + 2;
      for (; i < end; ++i)
        if (s[i] != '\n') out[i] = ' ';
      --i;
    } else if (s[i] == '"' || s[i] == '\'') {
      char q = s[i];
      for (++i; i < s.size() && s[i] != q && s[i] != '\n'; ++i) {
        if (s[i] == '\\') out[i++] = ' ';
        if (i < s.size()) out[i] = ' ';
      }
    }
  }
  return out;
}

size_t line_start(const std::string& s, size_t pos) {
  size_t p = s.rfind('\n', pos == 0 ? 0 : pos - 1);
  return p == std::string::npos ? 0 : p + 1;
}

// Finds the definition of `name` (a function with a body) in `text`.
bool find_definition(const std::string& text, const std::string& name, Span& span) {
  std::string code = code_only(text);
  std::regex word("\\b" + name + "\\s*\\(");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), word); it != std::sregex_iterator(); ++it) {
    size_t name_at = static_cast<size_t>(it->position());
    size_t paren = code.find('(', name_at);
    int depth = 0;
    size_t close = paren;
    for (; close < code.size(); ++close) {
      if (code[close] == '(') ++depth;
      else if (code[close] == ')' && --depth == 0) break;
    }
    size_t after = code.find_first_not_of(" \t\r\n", close + 1);
    // Skip trailing qualifiers such as "const" or "noexcept" up to the body.
    while (after != std::string::npos && std::isalpha(static_cast<unsigned char>(code[after]))) {
      size_t w = after;
      while (w < code.size() && (std::isalnum(static_cast<unsigned char>(code[w])) || code[w] == '_')) ++w;
      after = code.find_first_not_of(" \t\r\n", w);
    }
    if (after == std::string::npos || code[after] != '{') continue;  // a call or a declaration
    // The header starts after the previous top-level ';', '}' or preprocessor line.
    size_t begin = name_at;
    while (begin > 0) {
      char c = code[begin - 1];
      if (c == ';' || c == '}' || c == '{') break;
      size_t ls = line_start(code, begin - 1);
      if (code.find_first_not_of(" \t", ls) < code.size() && code[code.find_first_not_of(" \t", ls)] == '#') {
        begin = code.find('\n', ls) + 1;
        break;
      }
      --begin;
    }
    begin = code.find_first_not_of(" \t\r\n", begin);
    begin = line_start(text, begin);
    // Take the comment block directly above (no blank line between) with the definition.
    while (begin > 0) {
      size_t prev = line_start(text, begin - 1);
      std::string line = text.substr(prev, begin - prev);
      size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || !(line.compare(first, 2, "//") == 0)) break;
      begin = prev;
    }
    depth = 0;
    size_t end = after;
    for (; end < code.size(); ++end) {
      if (code[end] == '{') ++depth;
      else if (code[end] == '}' && --depth == 0) break;
    }
    if (end >= code.size()) return false;
    size_t eol = text.find('\n', end);
    span = {begin, eol == std::string::npos ? text.size() : eol + 1};
    return true;
  }
  return false;
}

std::vector<std::string> include_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (std::regex_search(line, std::regex("^\\s*#\\s*include\\b"))) out.push_back(line);
  return out;
}

// The candidate without its #include lines (they are merged into the original's separately).
std::string without_includes(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (!std::regex_search(line, std::regex("^\\s*#\\s*include\\b"))) out += line + "\n";
  size_t first = out.find_first_not_of("\n");
  return first == std::string::npos ? "" : out.substr(first);
}

std::string splice_replacement(const std::string& path, const std::string& original, const std::string& launcher,
                               const std::string& candidate) {
  // What the original launcher launches, by the scanner, is what the candidate replaces.
  profiler::ScanResult scan;
  profiler::scan_source(original, path, scan);
  std::set<std::string> names{unqualified(launcher)};
  for (const auto& l : scan.launchers)
    if (unqualified(l.name) == unqualified(launcher))
      for (const auto& launch : l.launches) names.insert(launch.kernel);
  std::vector<Span> spans;
  for (const auto& name : names) {
    Span s;
    if (!find_definition(original, name, s))
      throw std::runtime_error("cannot find the definition of '" + name + "' in " + path + " to replace it");
    spans.push_back(s);
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });

  // New includes go after the original's last #include line.
  std::string text = original;
  std::string body = without_includes(candidate);
  auto old_includes = include_lines(original);
  std::string new_includes;
  for (const auto& inc : include_lines(candidate))
    if (std::find(old_includes.begin(), old_includes.end(), inc) == old_includes.end()) new_includes += inc + "\n";

  // Replace from the last span backwards so earlier offsets stay valid; the first span receives
  // the candidate's whole body (helpers included), the others are removed with their blank line.
  for (size_t i = spans.size(); i-- > 0;) {
    Span s = spans[i];
    if (i == 0) {
      text.replace(s.begin, s.end - s.begin, body);
    } else {
      if (s.end < text.size() && text[s.end] == '\n') ++s.end;
      text.erase(s.begin, s.end - s.begin);
    }
  }
  if (!new_includes.empty()) {
    size_t at = 0;
    if (!old_includes.empty()) {
      size_t pos = text.find(old_includes.back());
      at = text.find('\n', pos) + 1;
    }
    text.insert(at, new_includes);
  }
  return text;
}

}  // namespace

std::string apply_macro_defaults(const std::string& text, const std::vector<std::string>& defines,
                                 std::vector<std::string>& missing) {
  std::string out = text;
  for (const auto& d : defines) {
    auto eq = d.find('=');
    std::string name = d.substr(0, eq);
    std::string value = eq == std::string::npos ? "1" : d.substr(eq + 1);
    // "#define NAME value" keeping indentation, spacing and any trailing comment.
    std::regex line("(^[ \\t]*#[ \\t]*define[ \\t]+" + name + "[ \\t]+)([^ \\t\\n/]+)", std::regex::multiline);
    std::smatch m;
    if (!std::regex_search(out, m, line)) {
      missing.push_back(name);
      continue;
    }
    out.replace(static_cast<size_t>(m.position(2)), static_cast<size_t>(m.length(2)), value);
  }
  return out;
}

SourceChange make_source_change(const std::string& path, const std::string& original_text, const std::string& launcher,
                                const Variant& winner) {
  SourceChange change{path, original_text, original_text, "", {}};
  bool same_source = winner.source.empty() || winner.source == original_text;
  if (!same_source) change.updated = splice_replacement(path, original_text, launcher, winner.source);
  std::vector<std::string> missing;
  change.updated = apply_macro_defaults(change.updated, winner.defines, missing);
  for (const auto& name : missing) {
    std::string value;
    for (const auto& d : winner.defines)
      if (d.rfind(name + "=", 0) == 0 || d == name) value = d;
    change.notes.push_back("The winner was built with -D" + value + ", but " + path + " has no `#define " + name +
                           "` line to change: add -D" + value + " to the build of " + path + ".");
  }
  if (!winner.nvcc_flags.empty()) {
    std::string flags;
    for (const auto& f : winner.nvcc_flags) flags += (flags.empty() ? "" : " ") + f;
    change.notes.push_back("The winner was compiled with `" + flags + "` in addition to the project's flags: add " +
                           (winner.nvcc_flags.size() == 1 ? "it" : "them") + " to the nvcc flags of " + path +
                           " (and to [project] or [[kernel]] nvcc_flags in kernelbot.toml).");
  }
  change.patch = search::unified_diff(change.original, change.updated, path);
  return change;
}

}  // namespace kb::bot
