// Prints the effective config (defaults filled in) as TOML, or as JSON for --json; and the
// commented defaults that `kernelbot init` puts in the starter file. All keyed by config_keys.h.
#pragma once

#include <string>

#include "config/config.h"

namespace kb::config {

std::string to_toml_text(const Config& config);
std::string to_json_text(const Config& config);
// Every section of the key table as commented-out `key = default  # description` lines.
std::string commented_defaults();

}  // namespace kb::config
