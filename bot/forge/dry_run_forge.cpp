#include "bot/forge/dry_run_forge.h"
#include "common/file_write.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bot/forge/branch_commit.h"

namespace kb::bot {

std::filesystem::path DryRunForge::directory_for(const std::string& head) const {
  std::string name = head;
  std::replace(name.begin(), name.end(), '/', '-');
  return root_ / ".kernelbot" / "prs" / name;
}

PullRequestOutcome DryRunForge::open_or_update(const PullRequest& pr) {
  PullRequestOutcome outcome;
  if (!repo_) {
    outcome.note = root_.string() + " is not in a git repository: no branch or commit made, only the PR files";
    spdlog::warn("{}", outcome.note);
  } else {
    // A local commit that cannot be made (the base moved on) does not stop the dry run: the PR
    // text and patch are what a dry run is for.
    try {
      outcome.commit = commit_pull_request(*repo_, pr);
      spdlog::info("committed on local branch {} ({}); nothing pushed (dry run)", pr.head,
                   outcome.commit.substr(0, 12));
    } catch (const std::exception& e) {
      outcome.note = std::string("no local commit: ") + e.what();
      spdlog::warn("{}", outcome.note);
    }
  }
  auto dir = directory_for(pr.head);
  outcome.created = !std::filesystem::exists(dir / "PR.md");
  std::filesystem::create_directories(dir);
  std::ostringstream md;
  md << "# " << pr.title << "\n\n"
     << "<!-- dry run: head " << pr.head << ", base " << pr.base << (pr.draft ? ", draft" : "") << ", labels: ";
  for (size_t i = 0; i < pr.labels.size(); ++i) md << (i ? ", " : "") << pr.labels[i];
  md << (outcome.commit.empty() ? "" : ", commit " + outcome.commit) << " -->\n\n" << pr.body;
  write_file_atomically(dir / "PR.md", md.str());
  write_file_atomically(dir / "change.patch", pr.patch);
  outcome.url = (dir / "PR.md").string();
  return outcome;
}

}  // namespace kb::bot
