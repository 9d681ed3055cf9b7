// Chooses the forge: the dry-run forge when [github].repository is empty or --dry-run is given,
// otherwise GitHub (push with the token from $[github].token_env, else $GITHUB_TOKEN, then REST).
#pragma once

#include <memory>
#include <string>

#include "bot/forge/forge.h"
#include "config/config.h"

namespace kb::bot {

// Throws UsageError when GitHub is configured but no token is set, Error when the root
// is not in a git repository (GitHub needs a branch to push).
std::unique_ptr<Forge> make_forge(const config::Config& config, bool dry_run);

// The token for [github]: $<token_env>, else $GITHUB_TOKEN; "" when neither is set.
std::string github_token(const config::GithubConfig& github);

}  // namespace kb::bot
