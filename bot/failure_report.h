// With --json, a command that fails still writes one JSON object on stdout (the message stays on
// stderr too), so a workflow step can act on the kind of failure instead of parsing log lines:
//   {"ok": false, "exit_code": 2,
//    "error": {"kind": "config", "message": "...",
//              "diagnostics": [{"file": "...", "line": 3, "column": 1, "field": "search.roundz",
//                               "message": "..."}]}}
// kinds: "usage" (the command line, or a request that cannot be done as given: exit 2), "config"
// (kernelbot.toml, with every diagnostic: exit 2), "no_device" (no usable GPU: exit 1), "failed"
// (the work failed: exit 1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config_error.h"

namespace kb::bot {

nlohmann::json failure_json(const std::string& kind, const std::string& message, int exit_code,
                            const std::vector<config::ConfigDiagnostic>& diagnostics = {});

// Whether the command line asks for --json: read from argv itself, since a command line that
// fails to parse never sets the flag.
bool json_requested(int argc, const char* const* argv);

}  // namespace kb::bot
