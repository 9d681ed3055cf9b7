#include "bot/forge/forge_factory.h"

#include <cstdlib>

#include "bot/forge/dry_run_forge.h"
#include "bot/forge/git_repo.h"
#include "bot/forge/github_forge.h"

namespace kb::bot {

std::string github_token(const config::GithubConfig& github) {
  for (const std::string& name : {github.token_env, std::string("GITHUB_TOKEN")}) {
    const char* value = name.empty() ? nullptr : std::getenv(name.c_str());
    if (value && *value) return value;
  }
  return "";
}

std::unique_ptr<Forge> make_forge(const config::Config& config, bool dry_run) {
  auto repo = GitRepo::discover(config.root);
  std::string token = github_token(config.github);
  if (dry_run || config.github.repository.empty()) {
    auto dry = std::make_unique<DryRunForge>(config.root, repo);
    if (!config.github.repository.empty() && !token.empty() && repo) {
      // Reads only: the open PRs a moved base concerns are followed as a run would, and what it
      // would post goes to a file.
      auto github = std::make_unique<GitHubForge>(config.github, *repo, push_target_for(config.github, *repo, true),
                                                  token,
                                                  std::make_unique<GitHubClient>(config.github.api_url,
                                                                                 config.github.repository, token));
      github->write_instead_of_posting(config.root / ".kernelbot" / "prs" / "rebases.md");
      dry->follow_base_through(std::move(github));
    }
    return dry;
  }
  if (token.empty())
    throw UsageError("[github].repository is " + config.github.repository + " but $" + config.github.token_env +
                     (config.github.token_env == "GITHUB_TOKEN" ? " is" : " and $GITHUB_TOKEN are") +
                     " not set: give kernelbot a token (contents: write, pull-requests: write), or pass --dry-run");
  if (!repo) throw Error(config.root.string() + " is not in a git repository: there is no branch to push");
  std::string target = push_target_for(config.github, *repo, true);
  auto client = std::make_unique<GitHubClient>(config.github.api_url, config.github.repository, token);
  return std::make_unique<GitHubForge>(config.github, std::move(*repo), std::move(target), token, std::move(client));
}

}  // namespace kb::bot
