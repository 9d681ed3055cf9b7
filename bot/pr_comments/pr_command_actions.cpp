#include "bot/pr_comments/pr_command_actions.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>

#include "bot/change/result_store.h"
#include "bot/forge/forge_factory.h"
#include "bot/pr/explain_text.h"
#include "bot/pr/pr_lifecycle.h"
#include "bot/publish/publish.h"
#include "common/file_io.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "search/archive/ignored_kernels.h"

namespace kb::bot {
namespace {

std::string source_path_of(const config::Config& config, const config::KernelSpec& spec) {
  return std::filesystem::relative(config.resolve(spec.source), config.root).generic_string();
}

}  // namespace

const config::KernelSpec& RunCommandActions::spec_of(const std::string& kernel) const {
  const auto* spec = config_.find_kernel(kernel);
  if (!spec)
    throw Error(fmt::format("this PR's branch names the kernel `{}`, which kernelbot.toml no longer has", kernel));
  return *spec;
}

// Publishes the archived winner again with a fresh measurement of the PR's file against the
// base's text: the forge updates the PR's body (tables, measured-on lines) and branch, or says
// why not (a person's commits, an ignore label).
std::string RunCommandActions::remeasure(const std::string& kernel, const std::string& why) {
  const auto& spec = spec_of(kernel);
  if (!evaluator_) throw Error("this job has no GPU to measure on; ask again when `kernelbot run` runs on one");
  auto result = load_result(config_.root, kernel);
  const std::string path = source_path_of(config_, spec);
  if (read_text_file(config_.resolve(spec.source)) != result.original_source())
    throw Error(fmt::format("`{}` on `{}` is not the text this change was measured against; `@kernelbot rebase` "
                            "replays the change onto it and re-measures it there",
                            path, config_.github.base_branch));
  if (dry_run_)
    return fmt::format("kernelbot would re-measure `{}` against `{}` and update this PR's tables.", path,
                       config_.github.base_branch);
  PublishOutcome done = publish_result(config_, spec, result, forge_, {evaluator_, "kernelbot run (" + why + ")"});
  const auto& r = done.reverification;
  const std::string gpu = r.eval.device.name.empty() ? "the GPU" : r.eval.device.name;
  if (done.published)
    return fmt::format("re-measured `{}` against `{}` on {}: **{}**; the tables above are updated.\n\n{}", path,
                       config_.github.base_branch, gpu, format_speedup(r.eval.speedup), reverification_table(r));
  return fmt::format("re-measured `{}` against `{}`; the PR was not updated: {}\n\n{}", path,
                     config_.github.base_branch, done.note.empty() ? done.withheld : done.note,
                     reverification_table(r));
}

std::string RunCommandActions::rebench(const std::string& kernel, const GitHubPull&) {
  return remeasure(kernel, "@kernelbot rebench");
}

std::string RunCommandActions::rebase(const std::string& kernel, const GitHubPull& pull) {
  std::vector<BranchCommit> commits;
  for (const auto& c : client_.pull_commits(pull.number))
    commits.push_back({c.sha, c.author_name, c.author_email, c.committer_email});
  const auto others = commits_by_others(commits, config_.github.author_email);
  if (!others.empty()) {
    std::string who;
    for (const auto& c : others)
      who += fmt::format("\n- {} by {} <{}>", c.sha.substr(0, 12), c.author_name, c.author_email);
    throw Error(fmt::format("`{}` carries commits kernelbot did not make, and it never force-pushes over a "
                            "person's work:{}\n\nRebase the branch yourself, or drop those commits and ask again.",
                            pull.head_ref, who));
  }
  // The PR's change, replayed onto the current base by a three-way merge, is what is measured
  // and pushed: the base may have changed the file elsewhere since the change was measured.
  const auto& spec = spec_of(kernel);
  const std::string& base = config_.github.base_branch;
  if (!evaluator_) throw Error("this job has no GPU to measure on; ask again when `kernelbot run` runs on one");
  // A dry run merges and measures as well; its forge only writes down what it would post.
  auto done = forge_.follow_base(
      {pull.head_ref, base, true, remeasure_on(config_, spec, evaluator_, "kernelbot run (@kernelbot rebase)")});
  if (!done) throw Error("kernelbot found no open PR on `" + pull.head_ref + "` to rebase");
  const std::string closes = dry_run_ ? "kernelbot would close this PR (dry run)" : "kernelbot closed this PR";
  if (!done->conflicts.empty()) {
    std::string files;
    for (const auto& f : done->conflicts) files += (files.empty() ? "`" : ", `") + f + "`";
    return fmt::format("replaying this change onto `{}` conflicts in {}: it no longer applies to the new code, and "
                       "{}. Its next run searches the new code.",
                       base, files, closes);
  }
  if (!done->remeasured) return done->note;
  const auto& r = *done->remeasured;
  const std::string gpu = r.eval.device.name.empty() ? "the GPU" : r.eval.device.name;
  if (done->published)
    return fmt::format("replayed this change onto `{}` and re-measured it there on {}: **{}**; {}, and the title, "
                       "tables and measured-on lines above {}.\n\n{}",
                       base, gpu, format_speedup(r.eval.speedup),
                       dry_run_ ? "kernelbot would push it (dry run)"
                                : "pushed as `" + done->commit.substr(0, 12) + "`",
                       dry_run_ ? "would be updated" : "are updated", reverification_table(r));
  return fmt::format("replayed this change onto `{}` and re-measured it there on {}: {}, so the win is gone ({}); "
                     "{}.\n\n{}",
                     base, gpu, format_speedup(r.eval.speedup), r.failure, closes, reverification_table(r));
}

std::string RunCommandActions::explain(const std::string& kernel) {
  spec_of(kernel);
  search::SearchResult result;
  try {
    result = load_result(config_.root, kernel);
  } catch (const std::exception& e) {
    throw Error(fmt::format("no archived result of `{}` to explain from: {}", kernel, e.what()));
  }
  return "\n\n" + explain_text(result);
}

std::string RunCommandActions::ignore(const std::string& kernel, const GitHubComment& asked) {
  const auto& spec = spec_of(kernel);
  const std::string path = source_path_of(config_, spec);
  const std::string text = read_text_file(config_.resolve(spec.source));
  if (!dry_run_)
    search::IgnoredKernels(config_.resolve(config_.search.archive))
        .record({kernel, search::source_fingerprint(text), asked.user_login, asked.html_url});
  return fmt::format("kernelbot {} `{}` alone until `{}` changes on `{}`: no searches, no PRs. This PR stays as it "
                     "is; close it if it is not wanted. `@kernelbot unignore` undoes this.",
                     dry_run_ ? "would leave" : "leaves", kernel, path, config_.github.base_branch);
}

std::string RunCommandActions::unignore(const std::string& kernel, const GitHubComment&) {
  spec_of(kernel);
  bool was = false;
  if (dry_run_) was = search::IgnoredKernels(config_.resolve(config_.search.archive)).of(kernel).has_value();
  else was = search::IgnoredKernels(config_.resolve(config_.search.archive)).forget(kernel);
  if (!was) return fmt::format("`{}` was not ignored on request; nothing to undo.", kernel);
  return fmt::format("kernelbot {} `{}` again from its next run.", dry_run_ ? "would search" : "searches", kernel);
}

std::string ignored_on_request(const config::Config& config, const config::KernelSpec& spec) {
  const auto archive = config.resolve(config.search.archive);
  if (!std::filesystem::exists(archive)) return "";  // nothing remembered; not created just to ask
  try {
    search::IgnoredKernels ignored(archive);
    auto row = ignored.of(spec.name);
    if (!row) return "";
    const std::string text = read_text_file(config.resolve(spec.source));
    if (search::source_fingerprint(text) != row->source_sha256) {
      spdlog::info("{}: its source changed since {} asked kernelbot to ignore it; searching it again", spec.name,
                   row->by);
      ignored.forget(spec.name);
      return "";
    }
    return fmt::format("@{} asked kernelbot to ignore it until its source changes ({})", row->by, row->url);
  } catch (const std::exception& e) {
    // The archive is memory, not a gate (as for declined PRs).
    spdlog::warn("{}: the archive's ignored kernels are not available: {}", spec.name, e.what());
    return "";
  }
}

std::vector<AnsweredComment> converse_before_run(const config::Config& config, Forge& forge, Evaluator* evaluator,
                                                 bool dry_run) {
  if (config.github.repository.empty()) return {};
  const std::string token = github_token(config.github);
  if (token.empty()) {
    spdlog::info("no GitHub token: the commands in PR comments are not read in this run");
    return {};
  }
  try {
    GitHubClient client(config.github.api_url, config.github.repository, token);
    RunCommandActions actions(config, forge, client, evaluator, dry_run);
    ConversationOptions options;
    options.measures = evaluator != nullptr;
    if (dry_run) options.dry_run_file = config.root / ".kernelbot" / "prs" / "conversation.md";
    auto answered = answer_pr_commands(client, actions, options);
    if (dry_run && !answered.empty())
      spdlog::info("dry run: {} repl{} written to {}", answered.size(), answered.size() == 1 ? "y" : "ies",
                   options.dry_run_file.string());
    return answered;
  } catch (const std::exception& e) {
    spdlog::error("the commands in PR comments could not be read or answered: {}; the next run tries again", e.what());
    return {};
  }
}

}  // namespace kb::bot
