#include "cuda_source/definition_splice.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "cuda_source/preprocessor_directives.h"
#include "cuda_source/source_scanner.h"

namespace kb::cuda_source {
namespace {

struct Range {
  size_t begin = 0, end = 0;
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

size_t line_begin(const std::string& s, size_t pos) {
  while (pos > 0 && s[pos - 1] != '\n') --pos;
  return pos;
}

bool blank(const std::string& s, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (!std::isspace(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// `r` widened upwards over the comment lines directly above it (no blank line between): a
// definition's doc comment describes it, so it goes (or is replaced) with it.
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

// The whole lines of `r`, plus one blank line after it, for removing a definition cleanly.
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

// One file, scanned: its definitions with byte ranges and its top-level pieces.
struct Parsed {
  const std::string& text;
  ScanResult scan;
  std::vector<SourceChunk> chunks;

  Parsed(const std::string& t, const std::string& path) : text(t), chunks(top_level_chunks(t)) {
    scan_source(t, path, scan);
  }
  const ScannedLauncher* launcher(const std::string& name) const {
    auto all = launchers(name);
    return all.empty() ? nullptr : all.front();
  }
  // Every definition of that name: overloads are separate launchers.
  std::vector<const ScannedLauncher*> launchers(const std::string& name) const {
    std::vector<const ScannedLauncher*> out;
    for (const auto& l : scan.launchers)
      if (l.name == name || unqualified_name(l.name) == unqualified_name(name)) out.push_back(&l);
    return out;
  }
  const ScannedKernel* kernel(const std::string& name) const {
    for (const auto& k : scan.kernels)
      if (k.is_definition && k.name == name) return &k;
    return nullptr;
  }
  std::string slice(Range r) const { return text.substr(r.begin, r.end - r.begin); }
};

// A piece of the candidate to carry over: a new helper, include, macro or kernel.
struct Carried {
  Range range;
  bool directive = false;
};

// The candidate's top-level pieces the original does not have, outside the ranges being
// spliced. A conditional block (#if ... #endif) that the original has is looked into; one it
// lacks is carried whole. #define lines of macros the original defines become edits instead.
std::vector<Carried> new_pieces(const Parsed& original, const Parsed& candidate, const std::vector<Range>& spliced,
                                std::vector<std::string>& macro_edits) {
  std::set<std::string> known;
  for (const auto& c : original.chunks) known.insert(normalized(original.slice({c.begin, c.end})));
  std::map<std::string, std::string> original_defines;
  for (const auto& d : top_level_defines(original.text)) original_defines[d.name] = d.value(original.text);

  std::vector<Carried> out;
  const auto& chunks = candidate.chunks;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const SourceChunk& c = chunks[i];
    Range r{c.begin, c.end};
    if (std::any_of(spliced.begin(), spliced.end(), [&](const Range& s) { return s.overlaps(r); })) continue;
    std::string text = normalized(candidate.slice(r));
    if (c.kind == SourceChunk::directive) {
      const Directive directive = read_directive(candidate.text, c);
      Conditional kind = directive.conditional();
      if (kind == Conditional::open && !known.count(text)) {
        // A block the original lacks: carried whole, up to its matching #endif.
        int depth = 0;
        size_t j = i;
        for (; j < chunks.size(); ++j) {
          if (chunks[j].kind != SourceChunk::directive) continue;
          Conditional k = read_directive(candidate.text, chunks[j]).conditional();
          if (k == Conditional::open) ++depth;
          else if (k == Conditional::close && --depth == 0) break;
        }
        if (j == chunks.size()) j = chunks.size() - 1;
        out.push_back({{c.begin, chunks[j].end}, true});
        i = j;
        continue;
      }
      if (kind != Conditional::none) continue;  // the original's own block structure
      if (directive.is_object_like_define()) {
        auto it = original_defines.find(directive.name);
        if (it != original_defines.end()) {
          std::string value = directive.value(candidate.text);
          if (value != it->second) macro_edits.push_back(directive.name + "=" + value);
          continue;
        }
      }
    }
    if (known.count(text)) continue;
    out.push_back({with_leading_comment(candidate.text, r), c.kind == SourceChunk::directive});
  }
  return out;
}

struct Edit {
  Range range;  // in the original
  std::string text;
};

}  // namespace

DefinitionSplice splice_definitions(const std::string& path, const std::string& original_text,
                                    const std::string& launcher, const std::string& candidate_text) {
  DefinitionSplice result;
  std::vector<std::string>& macro_edits = result.macro_edits;
  std::vector<std::string>& edits_done = result.edits;
  Parsed original(original_text, path);
  Parsed candidate(candidate_text, path);
  const auto* old_launcher = original.launcher(launcher);
  if (!old_launcher)
    throw std::runtime_error(path + " has no definition of the launcher '" + launcher + "' that launches a kernel");
  const auto* new_launcher = candidate.launcher(launcher);
  if (!new_launcher)
    throw std::runtime_error("the new code has no definition of the launcher '" + launcher +
                             "' that launches a kernel the scanner can read");
  // Overloads (softmax_forward(float*, ...) and softmax_forward(floatX*, ...)): the winner's edit
  // is in the overload whose text changed. Pairs are made by signature (the parameters' types),
  // so the edit lands on the same overload in the repository's file, never on its sibling.
  auto signature = [](const ScannedLauncher& l) {
    std::string sig;
    for (const auto& p : l.params) sig += p.type + ",";
    return sig;
  };
  auto changed = [&]() -> std::pair<const ScannedLauncher*, const ScannedLauncher*> {
    for (const auto* c : candidate.launchers(launcher))
      for (const auto* o : original.launchers(launcher))
        if (signature(*c) == signature(*o) && candidate.slice({c->begin, c->end}) != original.slice({o->begin, o->end}))
          return {o, c};
    return {nullptr, nullptr};
  }();
  if (changed.first) std::tie(old_launcher, new_launcher) = changed;

  std::vector<std::string> old_kernels, new_kernels;
  for (const auto& l : old_launcher->launches)
    if (std::find(old_kernels.begin(), old_kernels.end(), l.kernel) == old_kernels.end())
      old_kernels.push_back(l.kernel);
  for (const auto& l : new_launcher->launches)
    if (std::find(new_kernels.begin(), new_kernels.end(), l.kernel) == new_kernels.end())
      new_kernels.push_back(l.kernel);

  std::vector<Edit> edits;
  std::vector<Range> spliced{{new_launcher->begin, new_launcher->end}};
  std::vector<Carried> carried;
  std::string added_kernels;
  auto replace = [&](Range from, Range to) {
    edits.push_back(
        {with_leading_comment(original.text, from), candidate.slice(with_leading_comment(candidate.text, to))});
  };
  replace({old_launcher->begin, old_launcher->end}, {new_launcher->begin, new_launcher->end});
  std::string replaced = unqualified_name(launcher);
  for (const auto& name : new_kernels) {
    const auto* k = candidate.kernel(name);
    if (!k) throw std::runtime_error("the new code launches '" + name + "' but does not define it");
    spliced.push_back({k->begin, k->end});
    if (const auto* old = original.kernel(name)) {
      replace({old->begin, old->end}, {k->begin, k->end});
      replaced += ", " + name;
    } else {
      carried.push_back({with_leading_comment(candidate.text, {k->begin, k->end}), false});
      added_kernels += (added_kernels.empty() ? "" : ", ") + name;
    }
  }
  std::string removed;
  for (const auto& name : old_kernels) {
    if (std::find(new_kernels.begin(), new_kernels.end(), name) != new_kernels.end()) continue;
    const auto* old = original.kernel(name);
    if (!old) continue;  // defined elsewhere (a header): not ours to remove
    bool used_elsewhere = std::any_of(original.scan.launchers.begin(), original.scan.launchers.end(),
                                      [&](const auto& l) {
                                        return &l != old_launcher &&
                                               std::any_of(l.launches.begin(), l.launches.end(),
                                                           [&](const auto& x) { return x.kernel == name; });
                                      });
    if (used_elsewhere) continue;
    if (candidate.kernel(name)) continue;  // the candidate keeps it as a helper: carried as such
    edits.push_back({whole_lines(original.text, with_leading_comment(original.text, {old->begin, old->end})), ""});
    removed += (removed.empty() ? "" : ", ") + name;
  }
  // A top-level function the replacement redefines with the same name and parameter types (a
  // helper it changed, shown to it in an excerpt) replaces the base's definition in place: carried
  // as a new piece, it would be defined twice. One it copied unchanged is left as it is.
  auto top_level = [](const Parsed& file, const ScannedLauncher& f) {
    return std::any_of(file.chunks.begin(), file.chunks.end(),
                       [&](const SourceChunk& c) { return c.begin == f.begin && c.end == f.end; });
  };
  for (const auto& f : candidate.scan.functions) {
    const Range r{f.begin, f.end};
    if (!top_level(candidate, f) ||
        std::any_of(spliced.begin(), spliced.end(), [&](const Range& s) { return s.overlaps(r); }))
      continue;
    for (const auto& o : original.scan.functions) {
      const Range old{o.begin, o.end};
      if (o.name != f.name || signature(o) != signature(f) || !top_level(original, o) ||
          std::any_of(edits.begin(), edits.end(), [&](const Edit& e) { return e.range.overlaps(old); }))
        continue;
      spliced.push_back(r);
      if (original.slice(old) != candidate.slice(r)) {
        replace(old, r);
        replaced += ", " + unqualified_name(f.name);
      }
      break;
    }
  }
  size_t new_kernel_count = carried.size();
  for (auto& piece : new_pieces(original, candidate, spliced, macro_edits)) carried.push_back(piece);
  size_t helper_count = carried.size() - new_kernel_count;
  std::sort(carried.begin(), carried.end(),
            [](const Carried& a, const Carried& b) { return a.range.begin < b.range.begin; });

  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.range.begin < b.range.begin; });
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].range.overlaps(edits[i - 1].range))
      throw std::runtime_error(path + ": the definitions to replace overlap; cannot splice the winner");
  if (!carried.empty()) {
    // New pieces go right before the first replaced definition, at the start of its line.
    std::string block;
    for (size_t i = 0; i < carried.size(); ++i) {
      block += candidate.slice(carried[i].range) + "\n";
      bool next_directive = i + 1 < carried.size() && carried[i + 1].directive;
      if (!(carried[i].directive && next_directive)) block += "\n";
    }
    Edit& first = edits.front();
    size_t at = line_begin(original.text, first.range.begin);
    if (first.text.empty()) {
      first.text = block;  // a removal: the block takes the removed lines' place
      first.range.begin = at;
    } else {
      first.text = block + original.text.substr(at, first.range.begin - at) + first.text;
      first.range.begin = at;
    }
    if (!added_kernels.empty()) edits_done.push_back("new kernels " + added_kernels + " added");
    if (helper_count > 0)
      edits_done.push_back(std::to_string(helper_count) + " new top-level piece" + (helper_count == 1 ? "" : "s") +
                           " of the candidate (helpers, includes, macros) added before the first replaced definition");
  }
  std::string out = original.text;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it)
    out.replace(it->range.begin, it->range.end - it->range.begin, it->text);
  edits_done.insert(edits_done.begin(), replaced + " replaced by the winner's " +
                                            (replaced.find(',') == std::string::npos ? "definition" : "definitions"));
  if (!removed.empty()) edits_done.push_back(removed + " removed (no longer launched)");
  result.text = std::move(out);
  return result;
}

size_t leading_comment_begin(const std::string& text, size_t definition_begin) {
  return with_leading_comment(text, {definition_begin, definition_begin}).begin;
}

std::string apply_macro_defaults(const std::string& text, const std::vector<std::string>& defines,
                                 std::vector<std::string>& missing, std::vector<std::string>* edits) {
  std::string out = text;
  for (const auto& d : defines) {
    auto eq = d.find('=');
    std::string name = d.substr(0, eq);
    std::string value = eq == std::string::npos ? "1" : d.substr(eq + 1);
    bool found = false;
    for (const auto& m : top_level_defines(out)) {
      if (m.name != name) continue;
      found = true;
      std::string old = m.value(out);
      if (old == value) break;
      std::string replacement = m.value_begin == m.value_end && out[m.value_begin - 1] != ' ' ? " " + value : value;
      out.replace(m.value_begin, m.value_end - m.value_begin, replacement);
      if (edits)
        edits->push_back("the default of " + name + " (" + (old.empty() ? "empty" : old) + " -> " + value + ")");
      break;  // the first definition is the default; later ones are other configurations
    }
    if (!found) missing.push_back(name);
  }
  return out;
}

}  // namespace kb::cuda_source
