#include "bot/publish/publish.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "bot/change/kernel_target_splice.h"
#include "bot/change/project_check.h"
#include "bot/change/result_store.h"
#include "bot/change/reverify.h"
#include "bot/change/source_splicer.h"
#include "bot/cli/version.h"
#include "bot/forge/forge.h"
#include "bot/pr/pr_body.h"
#include "bot/pr/pr_lifecycle.h"
#include "common/file_io.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "core/speedup_rule.h"
#include "search/archive/declined_changes.h"

namespace kb::bot {
namespace {

// The numbers of the PR's own text, as the re-verification measured them.
std::string commit_message(const search::SearchResult& result, const search::CandidateRecord& best) {
  const search::Reverification& r = result.reverification;
  const std::string& gpu = !r.eval.device.name.empty() ? r.eval.device.name : result.device.name;
  std::string msg = fmt::format("{}: {} faster (verified on {})\n\n", result.kernel, format_speedup(r.eval.speedup),
                                gpu.empty() ? "the GPU" : gpu);
  for (const auto& t : r.eval.timings)
    msg += fmt::format("{}: {} us -> {} us ({})\n", t.size_label, format_us(t.baseline.median_us),
                       format_us(t.candidate.median_us), format_speedup(t.speedup));
  msg += fmt::format("\nFound by kernelbot's {} search: {}\n", result.proposer, best.idea.text);
  return msg;
}

// Establishes that the PR's text is correct and faster: measured now on `options.evaluator`, or
// (no GPU in this job) the result's record of exactly these texts. Sets `outcome` and returns
// false when there must be no PR. The record, new or old, is in `result` either way.
bool pr_text_verified(const config::Config& config, const config::KernelSpec& spec, search::SearchResult& result,
                      const search::CandidateRecord& best, const SourceChange& change, const PublishOptions& options,
                      PublishOutcome& outcome) {
  if (options.evaluator) {
    result.reverification = reverify_pr_text(config, spec, change, best.id, *options.evaluator, options.by);
  } else if (auto why = record_mismatch(result.reverification, change, best.id)) {
    outcome.failed = true;
    outcome.refused = true;
    outcome.note = "no PR: " + *why +
                   ", and this job has no GPU to re-verify it (search again, or run `kernelbot pr "
                   "--kernel " +
                   spec.name + "` on a GPU machine)";
    return false;
  }
  const search::Reverification& record = result.reverification;
  if (record.passed) return true;
  if (record.eval.verdict == Verdict::infra_error) {
    // The evaluator failed, not the text: a failure to report, as a broken GPU box is.
    outcome.failed = true;
    outcome.note = "no PR: the PR's text could not be re-verified: " + record.eval.reason;
  } else {
    outcome.vetoed = true;
    outcome.note = "no PR: the PR's file failed re-verification: " + record.failure;
  }
  return false;
}

// The archive is memory, not a gate: when it cannot be read or written, the forge still asks
// GitHub, which keeps the closed PRs too.
std::vector<search::DeclinedChange> declined_changes_of(const std::filesystem::path& archive,
                                                        const std::string& kernel) {
  try {
    return search::DeclinedChanges(archive).of(kernel);
  } catch (const std::exception& e) {
    spdlog::warn("{}: the archive's declined PRs are not available: {}", kernel, e.what());
    return {};
  }
}

void remember_declined(const std::filesystem::path& archive, const std::vector<search::DeclinedChange>& declined) {
  if (declined.empty()) return;
  try {
    search::DeclinedChanges store(archive);
    for (const auto& d : declined) store.record(d);
  } catch (const std::exception& e) {
    spdlog::warn("the archive does not remember the declined PRs: {}", e.what());
  }
}

// The open PR of the kernel, when the base moved under it: rebased, re-measured on this job's
// evaluator and updated, or closed with the reason; what became of it joins the outcome's note.
void follow_moved_base(const config::Config& config, const config::KernelSpec& spec, Forge& forge,
                       const PublishOptions& options, PublishOutcome& outcome) {
  auto followed = forge.follow_base({"kernelbot/" + spec.name, config.github.base_branch, false,
                                     remeasure_on(config, spec, options.evaluator, options.by)});
  if (!followed) return;
  if (!followed->published) outcome.withheld = followed->withheld;
  outcome.pr = followed->url;
  outcome.note += (outcome.note.empty() ? "" : "; ") + followed->note;
}

}  // namespace

Remeasure remeasure_on(const config::Config& config, const config::KernelSpec& spec, Evaluator* evaluator,
                       const std::string& by) {
  if (!evaluator) return {};
  const std::string source = std::filesystem::relative(config.resolve(spec.source), config.root).generic_string();
  return [&config, &spec, evaluator, by, source](const RebasedText& rebased) {
    // The PR's file is the kernel's source; git names it from the repository's root, which may
    // lie above kernelbot.toml's directory.
    if (rebased.path != source && !rebased.path.ends_with("/" + source))
      throw kb::Error("the PR changes " + rebased.path + ", not " + spec.name + "'s source " + source);
    SourceChange change;
    change.path = source;
    change.original = rebased.base_text;
    change.updated = rebased.text;
    return reverify_pr_text(config, spec, change, "rebased", *evaluator, by);
  };
}

bool is_ignored_kernel(const config::Config& config, const std::string& kernel) {
  const auto& ignored = config.github.ignore_kernels;
  return std::find(ignored.begin(), ignored.end(), kernel) != ignored.end();
}

const search::CandidateRecord* pr_worthy_winner(const config::Config& config, const search::SearchResult& result) {
  const auto* best = result.best();
  return best && !best->is_original() && publishable(best->eval, config.bench.min_speedup) ? best : nullptr;
}

PublishOutcome publish_result(const config::Config& config, const config::KernelSpec& spec,
                              const search::SearchResult& searched, Forge& forge, const PublishOptions& options) {
  PublishOutcome outcome;
  if (is_ignored_kernel(config, spec.name)) {
    outcome.withheld = "ignored";
    outcome.note = "listed in [github].ignore_kernels";
    return outcome;
  }
  search::SearchResult result = searched;  // gets this job's re-verification record
  // Nothing below may lose the search: result.json is on disk before splicing, the build or the network.
  SavedResult saved = save_result(config.root, result, nullptr);
  outcome.saved = saved.directory.string();
  const auto* best = pr_worthy_winner(config, result);
  if (!best) {
    outcome.note = !result.best() ? "nothing beat the original beyond noise"
                   : !reaches_min_speedup(result.best()->speedup(), config.bench.min_speedup)
                       ? fmt::format("best {} is under [bench].min_speedup {}",
                                     format_speedup(result.best()->speedup()), format_speedup(config.bench.min_speedup))
                       : "the best candidate is not an accepted, significant win";
    // No new winner, but the kernel's open PR may have been measured on text the base no longer
    // has: it is rebased and re-measured there, or closed with the reason.
    follow_moved_base(config, spec, forge, options, outcome);
    return outcome;
  }
  const auto source_file = config.resolve(spec.source);
  // The change is spliced into the text the search measured, never into whatever is on disk now;
  // if the file has changed since, the measured numbers say nothing about it: no PR.
  const std::string& original = result.original_source();
  if (read_text_file(source_file) != original) {
    outcome.failed = true;
    outcome.note = "no PR: " + source_file.string() + " has changed since the search measured it; search again";
    return outcome;
  }
  auto source_path = std::filesystem::relative(source_file, config.root).generic_string();
  SourceChange change = make_source_change(source_path, original, edited_function(spec, original), best->variant);
  // A job without a GPU publishes on the record of a run that had one: when that run fell back to
  // the winner's own text (below), that text is the one the record vouches for.
  if (!options.evaluator && !change.verbatim.empty() && record_mismatch(result.reverification, change, best->id)) {
    SourceChange verbatim = change.as_verbatim();
    if (!record_mismatch(result.reverification, verbatim, best->id)) change = std::move(verbatim);
  }
  saved = save_result(config.root, result, &change);
  if (change.empty()) {
    outcome.note = "the winner changes only build flags: " + (change.notes.empty() ? "" : change.notes.front());
    return outcome;
  }
  bool verified = pr_text_verified(config, spec, result, *best, change, options, outcome);
  // A text that compiled for the judge's GPU but not for another target architecture fails there
  // for its code, not its layout: the winner's own text would fail the same way.
  const auto& archs = result.reverification.eval.verification.archs;
  const bool failed_for_a_target = std::any_of(archs.begin(), archs.end(),
                                               [](const ArchCheck& a) { return a.outcome == ArchOutcome::failed; });
  if (!verified && options.evaluator && result.reverification.eval.verdict == Verdict::compile_error &&
      !failed_for_a_target && !change.verbatim.empty() && change.verbatim != change.updated) {
    // The laid-out text should compile whenever the winner did; if it does not, the winner's own
    // text, exactly as verified, is the PR's (its layout is the model's, its code is what was measured).
    spdlog::warn("{}: the PR's text laid out as the original does not compile ({}); re-verifying the winner's own "
                 "text instead",
                 spec.name, result.reverification.failure);
    change = change.as_verbatim();
    outcome = PublishOutcome{};
    outcome.saved = saved.directory.string();
    verified = pr_text_verified(config, spec, result, *best, change, options, outcome);
  }
  outcome.reverification = result.reverification;
  // Saved whatever it says: `kernelbot pr` on a machine without a GPU publishes only on this record.
  if (options.evaluator) saved = save_result(config.root, result, &change);
  if (!verified) return outcome;
  ProjectCheck check = check_project(config, change);
  if (!check.passed) {
    outcome.failed = true;
    outcome.note = "no PR: " + check.summary;
    return outcome;
  }

  PullRequest pr;
  pr.title = render_pr_title(result);
  PrContext context{spec.name,
                    change.path,
                    std::filesystem::relative(saved.candidate, config.root).generic_string(),
                    kVersion,
                    config.verify.sandbox,
                    "kernelbot/" + spec.name,
                    config.github.base_branch};
  pr.body = render_pr_body(result, change, context);
  if (check.ran) pr.body += "\n" + check.summary + ".\n";
  pr.head = "kernelbot/" + spec.name;
  pr.base = config.github.base_branch;
  pr.labels = config.github.labels;
  pr.draft = config.github.draft;
  pr.patch = change.patch;
  const std::string absolute = std::filesystem::absolute(source_file).string();
  pr.files[absolute] = change.updated;
  pr.originals[absolute] = original;
  pr.commit_message = commit_message(result, *best);
  pr.author_name = config.github.author_name;
  pr.author_email = config.github.author_email;
  pr.kernel = spec.name;
  pr.change_id = change_id_of({{change.path, change.updated}});
  pr.speedup = result.reverification.eval.speedup;
  const bool remembers = forge.name() != "dry-run";  // only a real forge has PRs people closed
  // PRs closed without merging are remembered in [search].archive's file (search/archive/declined_changes.h).
  const auto archive = config.resolve(config.search.archive);
  if (remembers) pr.declined = declined_changes_of(archive, spec.name);
  PullRequestOutcome done = forge.open_or_update(pr);
  if (remembers) remember_declined(archive, done.declined);
  outcome.published = done.published;
  outcome.withheld = done.withheld;
  outcome.created = done.created;
  outcome.pr = done.url;
  std::vector<std::string> notes;
  if (!done.note.empty()) notes.push_back(done.note);
  for (const auto& n : change.notes) notes.push_back(n);
  for (const auto& n : notes) outcome.note += (outcome.note.empty() ? "" : "; ") + n;
  // This winner was measured on a base that has moved since; the open PR, made from an earlier
  // base still, follows the new one.
  if (done.withheld == "base moved") follow_moved_base(config, spec, forge, options, outcome);
  return outcome;
}

}  // namespace kb::bot
