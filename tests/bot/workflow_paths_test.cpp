// The shipped workflows keep what `kernelbot run` writes: their upload and cache paths, spelled
// from the one KB_DIR variable, must be the directories the result store, the dry-run forge and
// the archive default actually use, and the uploads must include hidden files (everything lies
// under .kernelbot/, which upload-artifact skips by default).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bot/change/result_store.h"
#include "bot/forge/dry_run_forge.h"
#include "config/config.h"

namespace kb::bot {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t indent(const std::string& line) { return line.find_first_not_of(' '); }

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The lines of the step named `name` (from its "- name:" line to the next step's).
std::vector<std::string> step(const std::vector<std::string>& lines, const std::string& name) {
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (trimmed(lines[i]) != "- name: " + name) continue;
    const size_t depth = indent(lines[i]);
    out.push_back(lines[i]);
    for (size_t j = i + 1; j < lines.size(); ++j) {
      if (!trimmed(lines[j]).empty() && indent(lines[j]) <= depth) break;
      out.push_back(lines[j]);
    }
    break;
  }
  return out;
}

// The values of `key:` in a step: an inline value, or the lines of a block (`key: |`).
std::vector<std::string> values(const std::vector<std::string>& step_lines, const std::string& key) {
  std::vector<std::string> out;
  for (size_t i = 0; i < step_lines.size(); ++i) {
    const std::string t = trimmed(step_lines[i]);
    if (t.rfind(key + ":", 0) != 0) continue;
    const std::string value = trimmed(t.substr(key.size() + 1));
    if (value != "|") {
      out.push_back(value);
      continue;
    }
    for (size_t j = i + 1; j < step_lines.size() && indent(step_lines[j]) > indent(step_lines[i]); ++j)
      out.push_back(trimmed(step_lines[j]));
  }
  return out;
}

// "${{ env.KB_DIR }}/x" with KB_DIR's value, as the workflow would expand it.
std::string expand(std::string s, const std::string& dir) {
  const std::string var = "${{ env.KB_DIR }}";
  for (size_t at; (at = s.find(var)) != std::string::npos;) s.replace(at, var.size(), dir);
  return s;
}

std::string kb_dir(const std::vector<std::string>& lines) {
  for (const auto& l : lines)
    if (trimmed(l).rfind("KB_DIR:", 0) == 0) return trimmed(trimmed(l).substr(7));
  return "";
}

// Directories as the workflows write them: relative to the workspace, with a trailing slash.
std::string relative_dir(const fs::path& p, const fs::path& root) {
  return (fs::path(p).lexically_relative(root.parent_path())).string() + "/";
}

class WorkflowPaths : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkflowPaths, KeepWhatRunWritesFromOneVariable) {
  const auto lines = lines_of(fs::path(KB_SOURCE_DIR) / ".github" / "workflows" / GetParam());
  const std::string dir = kb_dir(lines);
  ASSERT_FALSE(dir.empty()) << GetParam() << " sets no KB_DIR";
  const fs::path root = fs::path("/workspace") / dir;  // the config's directory, as `run` sees it
  const std::string results = relative_dir(results_directory(root, "k").parent_path(), root);
  const std::string prs = relative_dir(DryRunForge(root, std::nullopt).directory_for("kernelbot/k").parent_path(),
                                       root);
  const std::string archive = (fs::path(dir) / config::Config{}.search.archive).string();

  const auto keep = step(lines, "Keep the results");
  ASSERT_FALSE(keep.empty()) << GetParam() << " uploads no results";
  std::vector<std::string> uploaded;
  for (const auto& p : values(keep, "path")) uploaded.push_back(expand(p, dir));
  EXPECT_EQ(uploaded, (std::vector<std::string>{results, prs})) << GetParam();
  EXPECT_EQ(values(keep, "include-hidden-files"), std::vector<std::string>{"true"}) << GetParam();

  for (const char* name : {"Restore the archive", "Save the archive"}) {
    const auto s = step(lines, name);
    ASSERT_FALSE(s.empty()) << GetParam() << " has no step '" << name << "'";
    ASSERT_EQ(values(s, "path").size(), 1u);
    EXPECT_EQ(expand(values(s, "path")[0], dir), archive) << GetParam() << ": " << name;
  }
  // Nothing names the example directory but KB_DIR itself.
  size_t spelled = 0;
  for (const auto& l : lines) spelled += l.find(dir + "/") != std::string::npos;
  EXPECT_EQ(spelled, 0u) << GetParam() << " spells " << dir << "/ instead of ${{ env.KB_DIR }}/";
}

INSTANTIATE_TEST_SUITE_P(Shipped, WorkflowPaths,
                         ::testing::Values("kernelbot-nightly.yml", "kernelbot-sweep.yml", "kernelbot-commands.yml"),
                         [](const auto& info) { return info.param.substr(10, info.param.size() - 14); });

// The commands workflow: on a new comment on a PR, the command that answers comments, with the
// permissions the answers need (a rebase pushes, replies and claims write to the PR and its
// comments), in the nightly run's concurrency group so that two runs never answer at once.
TEST(CommandsWorkflow, AnswersCommentsOnPullRequestsWithWhatTheAnswersNeed) {
  const auto lines = lines_of(fs::path(KB_SOURCE_DIR) / ".github" / "workflows" / "kernelbot-commands.yml");
  const auto nightly = lines_of(fs::path(KB_SOURCE_DIR) / ".github" / "workflows" / "kernelbot-nightly.yml");
  auto has = [](const std::vector<std::string>& in, const std::string& line) {
    return std::any_of(in.begin(), in.end(), [&](const std::string& l) { return trimmed(l) == line; });
  };
  EXPECT_TRUE(has(lines, "issue_comment:"));
  EXPECT_TRUE(has(lines, "types: [created]"));
  for (const char* permission : {"contents: write", "pull-requests: write", "issues: write"})
    EXPECT_TRUE(has(lines, permission)) << permission;
  EXPECT_TRUE(has(lines, "github.event.issue.pull_request &&")) << "only comments on PRs";
  const std::string group = "group: kernelbot-${{ github.ref }}";
  EXPECT_TRUE(has(lines, group));
  EXPECT_TRUE(has(nightly, group)) << "the nightly run's group";
  const auto run = step(lines, "kernelbot run");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(values(run, "args"), std::vector<std::string>{"run --kernel ${{ steps.pr.outputs.result }} --rounds 1"});
  EXPECT_EQ(values(run, "uses"), std::vector<std::string>{"./"});
}

}  // namespace
}  // namespace kb::bot
