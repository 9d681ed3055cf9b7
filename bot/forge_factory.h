// Chooses the forge: the dry-run forge when [github].repository is empty or --dry-run is given,
// otherwise GitHub's REST API.
#pragma once

#include <memory>

#include "bot/forge.h"
#include "config/config.h"

namespace kb::bot {

std::unique_ptr<Forge> make_forge(const config::Config& config, bool dry_run);

}  // namespace kb::bot
