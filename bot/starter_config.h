// Writes the starter kernelbot.toml of `kernelbot init`: the commented global sections and one
// [[kernel]] table per launcher that `discover` found, with roles and counts guessed from the
// parameter types and marked for the user to check.
#pragma once

#include <string>

#include "cuda_source/source_scanner.h"

namespace kb::bot {

std::string render_starter_config(const cuda_source::ScanResult& scan);

}  // namespace kb::bot
