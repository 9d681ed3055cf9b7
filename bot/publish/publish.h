// From a search's winner to a pull request: splice the change, save it, re-verify the spliced
// file (bot/change/reverify.h), check the project still builds, commit it on kernelbot/<kernel> and open
// or update the PR through the forge. Shared by `kernelbot run` (right after a search), `kernelbot
// pr` (from a saved result) and `kernelbot publish` (from a sweep shard's result).
#pragma once

#include <string>

#include "bot/forge/forge.h"
#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/types/search_types.h"

namespace kb::bot {

// How the PR's text is known to be faster.
struct PublishOptions {
  // Re-verify the PR's text on this evaluator now. Null (no GPU in this job: `kernelbot publish`,
  // `kernelbot pr` on a CPU machine): the result's own re-verification record must be of the same
  // texts and have passed, or there is no PR.
  Evaluator* evaluator = nullptr;
  std::string by = "kernelbot run";  // the job, as the record and the PR name it
};

struct PublishOutcome {
  bool published = false;
  // Something failed or could not be checked (the project's build or tests, a source changed since
  // the search, no usable re-verification, the evaluator itself): reported, not proposed.
  bool failed = false;
  // The PR's text was measured and found wrong or not faster: a result, not a failure.
  bool vetoed = false;
  // With `failed`: no GPU here and no usable re-verification record of the PR's text.
  bool refused = false;
  // Not published because of what people said or did (PullRequestOutcome::withheld, or the kernel is in
  // [github].ignore_kernels: "ignored"): a result, not a failure.
  std::string withheld;
  std::string pr;  // the PR's URL, or the dry-run PR.md path
  bool created = false;
  std::string note;                       // why nothing was published, or what the reviewer must know
  std::string saved;                      // where the winner was saved
  search::Reverification reverification;  // the PR's text as measured (this job's, or the record checked)
};

// The winner of `result`, if it deserves a PR: verified, accepted, significantly faster at one
// size at least, and at least [bench].min_speedup overall.
const search::CandidateRecord* pr_worthy_winner(const config::Config& config, const search::SearchResult& result);

// Whether [github].ignore_kernels names the kernel: no search, no PR.
bool is_ignored_kernel(const config::Config& config, const std::string& kernel);

// How a PR rebased onto a moved base is re-verified (Forge::follow_base): the merged text of the
// kernel's source against the base's, on `evaluator`, as `by`. Empty without an evaluator. The
// config and spec must outlive it.
Remeasure remeasure_on(const config::Config& config, const config::KernelSpec& spec, Evaluator* evaluator,
                       const std::string& by);

// Saves `result` first; then, when it has a PR-worthy winner, turns it into an edit of the
// kernel's source, re-verifies that text (or checks the result's record of it, see
// PublishOptions), saves the result again with the record, runs the project's build/test on the
// change, and publishes it through `forge` with the re-verification's numbers. Throws
// kb::Error when a step fails after the save (splicing, git, the forge).
PublishOutcome publish_result(const config::Config& config, const config::KernelSpec& spec,
                              const search::SearchResult& result, Forge& forge, const PublishOptions& options);

}  // namespace kb::bot
