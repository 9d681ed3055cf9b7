#include "bot/change/source_splicer.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "common/unified_diff.h"
#include "core/errors.h"
#include "cuda_source/knobs/literal_diff.h"
#include "cuda_source/knobs/literal_knobs.h"
#include "cuda_source/splicing/original_layout.h"

namespace kb::bot {

SourceChange make_source_change(const std::string& path, const std::string& original_text, const std::string& launcher,
                                const Variant& winner) {
  SourceChange change{path, original_text, original_text, "", "", {}, {}};
  // A probe of a caller-chosen argument measures what no edit of this file can deliver.
  if (auto probe = cuda_source::find_advisory_probe(winner.source))
    throw Error("the variant is an advisory probe of " + probe->subject + ": it is reported, never published");
  bool same_source = winner.source.empty() || winner.source == original_text;
  std::vector<std::string> defines;
  if (!same_source) {
    // The winner's whole file is what was verified and timed, so it is the PR's text: laid out as
    // the original where it changed nothing but layout, and never deleting a definition another
    // file can reach (cuda_source/splicing/original_layout.h).
    cuda_source::LaidOutText laid = cuda_source::keep_original_layout(original_text, winner.source, path);
    if (laid.whitespace_lines_kept + laid.comment_lines_kept > 0)
      spdlog::debug("{}: the winner's text keeps the original's layout: {} lines it changed only in whitespace and "
                    "{} comment lines it deleted are the original's",
                    path, laid.whitespace_lines_kept, laid.comment_lines_kept);
    change.updated = std::move(laid.text);
    change.verbatim = winner.source;
    change.edits = cuda_source::describe_definition_changes(original_text, change.updated, path);
    if (!laid.restored.empty()) {
      std::string names;
      for (const auto& n : laid.restored) names += (names.empty() ? "" : ", ") + n;
      change.edits.push_back(names + " kept: the winner no longer defines " +
                             (laid.restored.size() == 1 ? "it" : "them") + ", but code in other files may call " +
                             (laid.restored.size() == 1 ? "it" : "them"));
    }
    // A tuned literal changes whole definitions in nothing else: name the literals.
    if (auto literals = cuda_source::describe_literal_changes(original_text, change.updated, launcher, path))
      change.edits = *literals;
  }
  // -D values of the variant win over the candidate's own #define lines, as on nvcc's command line.
  for (const auto& d : winner.defines) defines.push_back(d);
  std::vector<std::string> missing;
  change.updated = apply_macro_defaults(change.updated, defines, missing, &change.edits);
  if (!change.verbatim.empty()) {
    std::vector<std::string> ignored;
    change.verbatim = apply_macro_defaults(change.verbatim, defines, ignored);
  }
  for (const auto& name : missing) {
    std::string value;
    for (const auto& d : defines)
      if (d.starts_with(name + "=") || d == name) value = d;
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

SourceChange SourceChange::as_verbatim() const {
  SourceChange change = *this;
  change.updated = verbatim;
  change.edits = cuda_source::describe_definition_changes(original, verbatim, path);
  change.edits.push_back("the winner's own text, as it was verified (its layout kept)");
  change.patch = unified_diff(original, verbatim, path);
  return change;
}

}  // namespace kb::bot
