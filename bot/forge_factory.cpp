#include "bot/forge_factory.h"

#include "bot/dry_run_forge.h"
#include "bot/github_forge.h"

namespace kb::bot {

std::unique_ptr<Forge> make_forge(const config::Config& config, bool dry_run) {
  if (dry_run || config.github.repository.empty()) return std::make_unique<DryRunForge>(config.root);
  return GitHubForge::from_config(config);  // throws, naming the variable, when the token is missing
}

}  // namespace kb::bot
