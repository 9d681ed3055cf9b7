#include "bot/forge_factory.h"

#include <cstdlib>

#include "bot/cli_context.h"
#include "bot/dry_run_forge.h"
#include "bot/git_repo.h"
#include "bot/github_forge.h"

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
  if (dry_run || config.github.repository.empty()) return std::make_unique<DryRunForge>(config.root, std::move(repo));
  std::string token = github_token(config.github);
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
