#include "bot/dry_run_forge.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace kb::bot {

std::filesystem::path DryRunForge::directory_for(const std::string& head) const {
  std::string name = head;
  std::replace(name.begin(), name.end(), '/', '-');
  return root_ / ".kernelbot" / "prs" / name;
}

PullRequestOutcome DryRunForge::open_or_update(const PullRequest& pr) {
  auto dir = directory_for(pr.head);
  bool existed = std::filesystem::exists(dir / "PR.md");
  std::filesystem::create_directories(dir);
  std::ofstream md(dir / "PR.md");
  md << "# " << pr.title << "\n\n"
     << "<!-- dry run: head " << pr.head << ", base " << pr.base << (pr.draft ? ", draft" : "") << ", labels: ";
  for (size_t i = 0; i < pr.labels.size(); ++i) md << (i ? ", " : "") << pr.labels[i];
  md << " -->\n\n" << pr.body;
  std::ofstream patch(dir / "change.patch");
  patch << pr.patch;
  if (!md || !patch) throw std::runtime_error("cannot write the dry-run PR under " + dir.string());
  return {!existed, 0, (dir / "PR.md").string()};
}

}  // namespace kb::bot
