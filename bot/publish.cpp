#include "bot/publish.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bot/forge.h"
#include "bot/git_repo.h"
#include "bot/pr_body.h"
#include "bot/project_check.h"
#include "bot/result_store.h"
#include "bot/source_splicer.h"
#include "bot/version.h"

namespace kb::bot {
namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string commit_message(const search::SearchResult& result, const search::CandidateRecord& best) {
  std::string msg = fmt::format("{}: {:.2f}x faster (verified on {})\n\n", result.kernel, best.speedup,
                                result.device.name.empty() ? "the GPU" : result.device.name);
  for (const auto& t : best.eval.timings)
    msg += fmt::format("{}: {:.2f} us -> {:.2f} us ({:.2f}x)\n", t.size_label, t.baseline.median_us,
                       t.candidate.median_us, t.speedup);
  msg += fmt::format("\nFound by kernelbot's {} search: {}\n", result.proposer, best.idea.text);
  return msg;
}

}  // namespace

const search::CandidateRecord* pr_worthy_winner(const config::Config& config, const search::SearchResult& result) {
  const auto* best = result.best();
  if (!best || best->verdict != Verdict::accepted || best->speedup < config.bench.min_speedup) return nullptr;
  return best;
}

PublishOutcome publish_result(const config::Config& config, const config::KernelSpec& spec,
                              const search::SearchResult& result, Forge& forge, bool push) {
  PublishOutcome outcome;
  const auto* best = pr_worthy_winner(config, result);
  if (!best) {
    outcome.saved = save_result(config.root, result, nullptr).result_json.string();
    outcome.note = result.best() ? fmt::format("best {:.2f}x is under [bench].min_speedup {:.2f}x",
                                               result.best()->speedup, config.bench.min_speedup)
                                 : "nothing beat the original beyond noise";
    return outcome;
  }
  auto source_path = std::filesystem::relative(config.resolve(spec.source), config.root).string();
  SourceChange change = make_source_change(source_path, read_file(config.resolve(spec.source)), spec.launcher,
                                           best->variant);
  // Nothing below may lose the winner: it is on disk before git, the build or the network.
  SavedResult saved = save_result(config.root, result, &change);
  outcome.saved = saved.directory.string();
  if (change.empty()) {
    outcome.note = "the winner changes only build flags: " + (change.notes.empty() ? "" : change.notes.front());
    return outcome;
  }
  ProjectCheck check = check_project(config, change);
  if (!check.passed) {
    outcome.note = "no PR: " + check.summary;
    return outcome;
  }

  std::string branch = "kernelbot/" + spec.name;
  if (auto repo = GitRepo::discover(config.root)) {
    auto in_repo = std::filesystem::relative(config.root / change.path, repo->workdir()).string();
    std::string id;
    try {
      id = repo->commit_on_branch(config.github.base_branch, branch, {{in_repo, change.updated}},
                                  commit_message(result, *best), config.github.author_name,
                                  config.github.author_email);
      spdlog::info("committed {} on branch {} ({})", in_repo, branch, id.substr(0, 12));
    } catch (const std::runtime_error& e) {
      // A dry run still writes its PR: the branch is a convenience there, the PR files are the result.
      if (push) throw;
      spdlog::warn("no local branch for the dry-run PR: {}", e.what());
    }
    if (push) {
      const char* token = std::getenv(config.github.token_env.c_str());
      if (!token) token = std::getenv("GITHUB_TOKEN");
      repo->push(config.github.remote, branch, token ? token : "");
      spdlog::info("pushed {} to {}", branch, config.github.remote);
    }
  } else {
    if (push) throw std::runtime_error(config.root.string() + " is not in a git repository: nothing to push");
    spdlog::warn("{} is not in a git repository: no branch or commit made, the dry-run PR only", config.root.string());
  }

  PullRequest pr;
  pr.title = render_pr_title(result);
  PrContext context{spec.name, change.path,
                    std::filesystem::relative(saved.candidate, config.root).string(), kVersion};
  pr.body = render_pr_body(result, change, context);
  if (check.ran) pr.body += "\n" + check.summary + ".\n";
  pr.head = branch;
  pr.base = config.github.base_branch;
  pr.labels = config.github.labels;
  pr.draft = config.github.draft;
  pr.patch = change.patch;
  PullRequestOutcome done = forge.open_or_update(pr);
  outcome.published = true;
  outcome.created = done.created;
  outcome.pr = done.url;
  if (!change.notes.empty()) outcome.note = change.notes.front();
  return outcome;
}

}  // namespace kb::bot
