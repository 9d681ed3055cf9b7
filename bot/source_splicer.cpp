#include "bot/source_splicer.h"

#include <stdexcept>

#include "common/unified_diff.h"
#include "cuda_source/definition_splice.h"
#include "cuda_source/literal_diff.h"
#include "cuda_source/literal_knobs.h"

namespace kb::bot {

SourceChange make_source_change(const std::string& path, const std::string& original_text, const std::string& launcher,
                                const Variant& winner) {
  SourceChange change{path, original_text, original_text, "", {}, {}};
  // A probe of a caller-chosen argument measures what no edit of this file can deliver.
  if (auto probe = cuda_source::find_advisory_probe(winner.source))
    throw std::runtime_error("the variant is an advisory probe of " + probe->subject +
                             ": it is reported, never published");
  bool same_source = winner.source.empty() || winner.source == original_text;
  std::vector<std::string> defines;
  if (!same_source) {
    cuda_source::DefinitionSplice splice = cuda_source::splice_definitions(path, original_text, launcher,
                                                                           winner.source);
    // Definitions the winner left byte-identical (it changed a #define line only) are not edits.
    if (splice.text != original_text) change.edits = std::move(splice.edits);
    change.updated = std::move(splice.text);
    defines = std::move(splice.macro_edits);
    // A tuned literal replaces whole definitions that differ in nothing else: name the literals.
    if (auto literals = cuda_source::describe_literal_changes(original_text, change.updated, launcher, path))
      change.edits = *literals;
  }
  // -D values of the variant win over the candidate's own #define lines, as on nvcc's command line.
  for (const auto& d : winner.defines) defines.push_back(d);
  std::vector<std::string> missing;
  change.updated = apply_macro_defaults(change.updated, defines, missing, &change.edits);
  for (const auto& name : missing) {
    std::string value;
    for (const auto& d : defines)
      if (d.rfind(name + "=", 0) == 0 || d == name) value = d;
    change.notes.push_back("The winner was built with -D" + value + ", but " + path + " has no `#define " + name +
                           "` line to change: add -D" + value + " to the build of " + path +
                           " (the timings below are of this PR's text, built without it).");
  }
  if (!winner.nvcc_flags.empty()) {
    std::string flags;
    for (const auto& f : winner.nvcc_flags) flags += (flags.empty() ? "" : " ") + f;
    change.notes.push_back("The winner was compiled with `" + flags +
                           "` in addition to the project's flags; this PR "
                           "does not change the build: add " +
                           (winner.nvcc_flags.size() == 1 ? "it" : "them") + " to the nvcc flags of " + path +
                           " (and to [project] or [[kernel]] nvcc_flags in "
                           "kernelbot.toml) to get the search's speed (the timings below are of this PR's text, built "
                           "without " +
                           (winner.nvcc_flags.size() == 1 ? "it" : "them") + ").");
  }
  change.patch = unified_diff(change.original, change.updated, path);
  return change;
}

}  // namespace kb::bot
