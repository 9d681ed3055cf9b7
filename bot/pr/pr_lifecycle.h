// What the bot does about its pull requests once people have had them (the Dependabot
// conventions): a PR closed without merging declines its change for good, and a new PR for the
// kernel needs a clearly better winner; a `kernelbot: ignore` label keeps the bot away from the
// kernel; commits a person pushed to the bot's branch are never overwritten. Pure decisions and
// texts, so that each rule is tested without a network; bot/forge/github_forge.cpp asks GitHub.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/archive/declined_changes.h"
#include "search/types/search_types.h"

namespace kb::bot {

// The label that keeps the bot away from a kernel, on any of its PRs (open or closed).
inline constexpr const char* kIgnoreLabel = "kernelbot: ignore";

// "sha256:<hex>" of a change's new file texts (path-independent: the same edit in another
// checkout is the same change).
std::string change_id_of(const std::map<std::string, std::string>& files);

// The invisible first line of every PR body the bot writes, so that a closed PR still says which
// change and speedup it declined: "<!-- kernelbot-change: sha256:<hex> 1.5500x -->".
std::string change_marker(const std::string& change_id, double speedup);
struct ChangeMarker {
  std::string change_id;
  double speedup = 0;
};
std::optional<ChangeMarker> parse_change_marker(const std::string& body);
// Invisible lines after the change marker, one per file the change was measured against, so that
// a later run that finds no winner can still tell that the open PR is stale:
// "<!-- kernelbot-measured-on: src/saxpy.cu sha256:<hex> -->" (the path relative to the root).
std::string measured_on_marker(const std::string& path, const std::string& text);
// The path -> "sha256:<hex>" of each such line in a body (none in an older kernelbot's PRs).
std::map<std::string, std::string> parse_measured_on(const std::string& body);
// The files whose text on the base (`at_base`: path -> text, absent when the base has no such
// file) is not the text the PR was measured on, in the body's order.
std::vector<std::string> files_changed_since_measured(const std::map<std::string, std::string>& measured_on,
                                                      const std::map<std::string, std::optional<std::string>>& at_base);

// The speedup in a title the bot wrote ("kernelbot: saxpy 4.49x faster"): for PRs without a
// marker (an older kernelbot). 0 when the title names none.
double speedup_from_title(const std::string& title);

// Whether a winner may be proposed after the kernel's declined PRs.
struct DeclineCheck {
  bool withhold = false;
  std::string note;                                  // why it is withheld
  std::optional<search::DeclinedChange> supersedes;  // the closed PR a new one links to
};
// Withheld: the same change was declined, or the winner is under `margin` times the fastest
// declined speedup (a declined PR whose speedup is unknown counts as declining any winner, since
// nothing says this one is better). Otherwise the newest declined PR is the one superseded.
DeclineCheck check_declined(const std::vector<search::DeclinedChange>& declined, const std::string& change_id,
                            double speedup, double margin);
// The line a new PR's body ends with when it follows a declined one.
std::string supersedes_text(const search::DeclinedChange& closed, double speedup);

// One commit on the bot's branch, as GitHub lists a PR's commits.
struct BranchCommit {
  std::string sha;
  std::string author_name;
  std::string author_email;
  std::string committer_email;
};
// The commits not made by the bot's commit identity: author or committer e-mail (compared
// without case) not the bot's. The bot commits as both; a person's amend of its commit keeps
// the author but not the committer, and an edit on GitHub's web page commits as GitHub.
std::vector<BranchCommit> commits_by_others(const std::vector<BranchCommit>& commits, const std::string& bot_email);
// The comment left instead of a force-push: whose commits were found, and the new winner's numbers.
std::string person_commits_comment(const std::vector<BranchCommit>& others, const std::string& branch,
                                   const std::string& title, const std::string& numbers);
// The comment a PR is closed with when its base moved under it and nothing could be re-measured.
std::string base_moved_comment(const std::vector<std::string>& files, const std::string& base);

// `body` without the invisible marker lines the bot puts first (change and measured-on), which a
// rebased PR gets anew.
std::string without_markers(const std::string& body);

// When the base moved under an open PR, kernelbot replays the PR's change onto the new base (a
// three-way merge, bot/forge/git_repo.h) and re-measures the merged text there. These are what the PR
// is told when that does not end in an updated PR:
// the change no longer applies: the PR is closed, naming the files whose merge conflicts;
std::string rebase_conflict_comment(const std::vector<std::string>& moved, const std::vector<std::string>& conflicts,
                                    const std::string& base);
// the rebased change is no longer a publishable win: the PR is closed with the new numbers;
std::string rebase_win_gone_comment(const std::vector<std::string>& moved, const std::string& base,
                                    const std::string& base_commit, const search::Reverification& record);
// this job has no GPU to re-measure the rebased change: the PR is left open, to a run that has one;
std::string rebase_waits_for_gpu_comment(const std::vector<std::string>& moved, const std::string& base);
// the branch carries a person's commits: never force-pushed over, so the person rebases it.
std::string rebase_left_to_person_comment(const std::vector<std::string>& moved, const std::string& base,
                                          const std::vector<BranchCommit>& others);

}  // namespace kb::bot
