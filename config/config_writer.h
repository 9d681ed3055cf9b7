// Prints the effective config (defaults filled in) as TOML, or as JSON for --json.
#pragma once

#include <string>

#include "config/config.h"

namespace kb::config {

std::string to_toml_text(const Config& config);
std::string to_json_text(const Config& config);

}  // namespace kb::config
