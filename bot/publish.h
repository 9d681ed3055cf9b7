// From a search's winner to a pull request: splice the change, save it, check the project
// still builds, commit it on kernelbot/<kernel> and open or update the PR through the forge.
// Shared by `kernelbot run` (right after a search) and `kernelbot pr` (from a saved result).
#pragma once

#include <string>

#include "config/config.h"
#include "search/search_types.h"

namespace kb::bot {

class Forge;

struct PublishOutcome {
  bool published = false;
  bool failed = false;  // the change broke the project's build or tests: reported, not proposed
  std::string pr;      // the PR's URL, or the dry-run PR.md path
  bool created = false;
  std::string note;    // why nothing was published, or what the reviewer must know
  std::string saved;   // where the winner was saved
};

// The winner of `result`, if it deserves a PR: verified, accepted, significantly faster at one
// size at least, and at least [bench].min_speedup overall.
const search::CandidateRecord* pr_worthy_winner(const config::Config& config, const search::SearchResult& result);

// Saves `result` first; then, when it has a PR-worthy winner, turns it into an edit of the
// kernel's source, runs the project's build/test on it, and publishes it through `forge`.
// Throws std::runtime_error when a step fails after the save (splicing, git, the forge).
PublishOutcome publish_result(const config::Config& config, const config::KernelSpec& spec,
                              const search::SearchResult& result, Forge& forge);

}  // namespace kb::bot
