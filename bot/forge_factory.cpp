#include "bot/forge_factory.h"

#include <stdexcept>

#include "bot/dry_run_forge.h"

namespace kb::bot {

std::unique_ptr<Forge> make_forge(const config::Config& config, bool dry_run) {
  if (dry_run || config.github.repository.empty()) return std::make_unique<DryRunForge>(config.root);
  throw std::runtime_error("the GitHub forge is not available in this build yet; use --dry-run");
}

}  // namespace kb::bot
