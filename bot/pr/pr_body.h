// Renders the pull request body (markdown) from a search result: verdict, timing table per size,
// correctness evidence, hardware profile before and after, the path of ideas, how to reproduce.
// Only measured fields are printed; what was not collected says so. The verdict, the timings and
// the correctness evidence are those of the result's re-verification of the PR's exact text
// (search::Reverification), never the search's own numbers, and only checks that ran are claimed.
#pragma once

#include <string>

#include "bot/change/source_splicer.h"
#include "search/types/search_types.h"

namespace kb::bot {

struct PrContext {
  std::string kernel;
  std::string source_path;     // the changed file, relative to the repository root
  std::string candidate_path;  // the saved winner (under .kernelbot/results/, on the bot's machine only)
  std::string kernelbot_version;
  std::string sandbox = "namespaces";  // [verify].sandbox the candidates ran in: a reviewer's trust depends on it
  // The PR's branches, for a reproduce command a reviewer can run in their own clone (from the
  // directory of kernelbot.toml: the file's path is relative to it). Empty head: kernelbot/<kernel>.
  std::string head_branch;
  std::string base_branch = "main";
};

// The PR title: "kernelbot: saxpy 4.49x faster" (the re-verified speedup). Throws
// kb::Error when the result has no winner or its re-verification did not pass.
std::string render_pr_title(const search::SearchResult& result);

// The body. Throws kb::Error as render_pr_title does.
std::string render_pr_body(const search::SearchResult& result, const SourceChange& change, const PrContext& context);

// The body of a PR whose change was rebased onto a new base and re-verified there: `body` (without
// the invisible marker lines, which are the caller's) with its verdict line, Timing and
// Correctness sections replaced by `record`'s, the rebased text measured against the base's at
// `base_commit` of `base_branch`. A body without those sections gets the measurement appended.
std::string rebased_pr_body(const std::string& body, const search::Reverification& record, const std::string& kernel,
                            const std::string& base_branch, const std::string& base_commit);

}  // namespace kb::bot
