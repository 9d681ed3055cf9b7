#include "cuda_source/splicing/definition_splice.h"

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/errors.h"
#include "cuda_source/splicing/original_layout.h"
#include "cuda_source/splicing/piece_placement.h"
#include "cuda_source/splicing/reply_pieces.h"
#include "cuda_source/splicing/splice_text.h"
#include "cuda_source/splicing/unused_definitions.h"
#include "cuda_source/tokens/helper_launches.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {
namespace {

// One file, scanned: its launchers and kernels with byte ranges, and its namespace structure.
struct Parsed : SpliceSide {
  ScanResult scan;

  Parsed(const std::string& t, const std::string& path) : SpliceSide(t) { scan_source(t, path, scan); }
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
};

// The reply's definition of `launcher`, its launches resolved with the file's functions and
// kernels that the reply does not define itself; nothing when it still launches nothing.
std::optional<ScannedLauncher> launcher_with_file_helpers(const ScanResult& reply, const ScanResult& file,
                                                          const std::string& launcher) {
  ScanResult both = reply;
  auto defines = [](const auto& list, const std::string& name) {
    return std::any_of(list.begin(), list.end(), [&](const auto& x) { return x.name == name; });
  };
  // The file's entries under another file name: the resolver tells a definition by where it
  // stands, and the two texts' offsets overlap.
  auto from_file = [](auto entry) {
    entry.file += " (the file)";
    return entry;
  };
  for (const auto& f : file.functions)
    if (!defines(reply.functions, f.name)) both.functions.push_back(from_file(f));
  for (const auto& l : file.launchers)
    if (!defines(reply.functions, l.name)) both.launchers.push_back(from_file(l));
  for (const auto& k : file.kernels)
    if (!defines(reply.kernels, k.name)) both.kernels.push_back(from_file(k));
  resolve_launches(both);
  for (const auto& l : both.launchers)
    if ((l.name == launcher || unqualified_name(l.name) == unqualified_name(launcher)) && !l.launches.empty() &&
        defines(reply.functions, l.name))
      return l;
  return std::nullopt;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// "kThreads, load_tile (in the anonymous namespace), #include <cuda_fp16.h>": what was added,
// with the namespace of each run of pieces that share one.
std::string added_list(const std::vector<CarriedPiece>& pieces) {
  std::string out;
  std::set<std::string> listed_labels;  // a template and its specialization are one name
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (listed_labels.insert(pieces[i].label).second) out += (out.empty() ? "" : ", ") + pieces[i].label;
    const std::string ns = namespace_key(pieces[i].path);
    if (ns.empty() || (i + 1 < pieces.size() && namespace_key(pieces[i + 1].path) == ns)) continue;
    out += ns == "(anonymous)" ? " (in the anonymous namespace)" : " (in namespace " + ns + ")";
  }
  return out;
}

}  // namespace

DefinitionSplice splice_definitions(const std::string& path, const std::string& original_text,
                                    const std::string& launcher, const std::string& candidate_text) {
  DefinitionSplice result;
  Parsed original(original_text, path);
  Parsed candidate(candidate_text, path);
  const auto* old_launcher = original.launcher(launcher);
  if (!old_launcher) throw Error(path + " has no definition of the launcher '" + launcher + "' that launches a kernel");
  const auto* new_launcher = candidate.launcher(launcher);
  // A reply's launcher that launches through a helper the file has and the reply does not repeat
  // (detail::launch_kernel<...>(...)): its launches, read with the file's helpers known.
  ScannedLauncher through_file_helpers;
  if (!new_launcher)
    if (auto resolved = launcher_with_file_helpers(candidate.scan, original.scan, launcher)) {
      through_file_helpers = std::move(*resolved);
      new_launcher = &through_file_helpers;
    }
  if (!new_launcher)
    throw Error("the new code has no definition of the launcher '" + launcher +
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
  std::vector<ReplacedPiece> replaced_pieces;  // where the reply's definitions took the file's place
  std::vector<CarriedPiece> carried;
  std::vector<std::string> replaced{unqualified_name(launcher)}, added_kernels, removed;
  auto replace = [&](Range from, Range to) {
    const Range old = with_leading_comment(original.text, from), mine = with_leading_comment(candidate.text, to);
    edits.push_back({old, candidate.slice(mine)});
    replaced_pieces.push_back({mine, old.begin});
  };
  replace({old_launcher->begin, old_launcher->end}, {new_launcher->begin, new_launcher->end});
  for (const auto& name : new_kernels) {
    const auto* k = candidate.kernel(name);
    if (!k && original.kernel(name)) continue;  // the file's own kernel, launched as it is
    if (!k) throw Error("the new code launches '" + name + "' but does not define it");
    spliced.push_back({k->begin, k->end});
    if (const auto* old = original.kernel(name)) {
      replace({old->begin, old->end}, {k->begin, k->end});
      replaced.push_back(name);
    } else {
      carried.push_back(carried_piece(candidate, {k->begin, k->end}, name));
      added_kernels.push_back(name);
    }
  }
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
    if (candidate.kernel(name)) continue;  // the candidate keeps it as a helper: spliced as such
    // Another file may launch it: the user's code is never deleted as a side effect.
    if (reachable_from_other_files(original.text, old->begin, old->end)) continue;
    edits.push_back({whole_lines(original.text, with_leading_comment(original.text, {old->begin, old->end})), ""});
    removed.push_back(name);
  }
  // Everything else the reply writes, at any namespace depth: redefinitions replace the file's
  // in place, the rest is carried to before its first use.
  ReplyPieces pieces = read_reply_pieces(original, candidate, spliced, edits);
  edits.insert(edits.end(), pieces.edits.begin(), pieces.edits.end());
  replaced_pieces.insert(replaced_pieces.end(), pieces.replaced.begin(), pieces.replaced.end());
  replaced.insert(replaced.end(), pieces.replaced_names.begin(), pieces.replaced_names.end());
  result.macro_edits = std::move(pieces.macro_edits);
  const size_t new_kernel_count = carried.size();
  carried.insert(carried.end(), pieces.carried.begin(), pieces.carried.end());
  std::vector<CarriedPiece> helpers(carried.begin() + static_cast<long>(new_kernel_count), carried.end());
  std::stable_sort(carried.begin(), carried.end(),
                   [](const CarriedPiece& a, const CarriedPiece& b) { return a.range.begin < b.range.begin; });
  size_t first_edit = original.text.size();
  for (const auto& e : edits) first_edit = std::min(first_edit, e.range.begin);
  for (auto& insertion : place_carried_pieces(original, candidate, carried, replaced_pieces, first_edit))
    edits.push_back(std::move(insertion));
  UnusedDefinitions unused = unused_definitions(original, path, edits, pieces.reply_keys);
  edits.insert(edits.end(), unused.removals.begin(), unused.removals.end());
  result.text = apply_edits(path, original.text, std::move(edits));

  result.edits.push_back(listed(replaced) + " replaced by the winner's " +
                         (replaced.size() == 1 ? "definition" : "definitions"));
  if (!added_kernels.empty()) result.edits.push_back("new kernels " + listed(added_kernels) + " added");
  if (!helpers.empty()) result.edits.push_back(added_list(helpers) + " added before their first use");
  if (!removed.empty()) result.edits.push_back(listed(removed) + " removed (no longer launched)");
  if (!unused.names.empty()) result.edits.push_back(listed(unused.names) + " removed (no longer used)");
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
