// Writes the starter kernelbot.toml of `kernelbot init`: the commented global sections and one
// [[kernel]] table per launcher that `discover` found, with roles and counts guessed from the
// parameter types and marked for the user to check.
#pragma once

#include <string>

#include "profiler/source_scanner.h"

namespace kb::bot {

std::string render_starter_config(const profiler::ScanResult& scan);

}  // namespace kb::bot
