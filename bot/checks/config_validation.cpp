#include "bot/checks/config_validation.h"

#include <iostream>

#include "bot/checks/source_fit_check.h"

namespace kb::bot {

LauncherFindings validate_loaded_config(const config::Config& config, const MemoryLimit& memory) {
  // A file without kernels has nothing to check, compile or run: saying "ok (0 kernels)" would
  // hide a config written in the wrong place, emptied by mistake, or all commented out.
  if (config.kernels.empty()) {
    LauncherFindings none;
    none.warnings = config.warnings;
    none.errors.push_back({config.file.string(), 0, 0, "kernel",
                           "no [[kernel]] table: nothing to check or run (`kernelbot init` writes one per "
                           "launcher it finds; a table written commented out needs its '# ' removed)"});
    return none;
  }
  LauncherFindings findings = check_launchers(config, memory);
  check_source_fit(config, findings);
  findings.warnings.insert(findings.warnings.begin(), config.warnings.begin(), config.warnings.end());
  return findings;
}

const config::Config& validated_config(CliContext& ctx) {
  const config::Config& config = ctx.config();
  LauncherFindings findings = validate_loaded_config(config, device_memory_limit());
  for (const auto& w : findings.warnings) {
    std::string text = w.format();
    if (auto at = text.find(": error: "); at != std::string::npos) text.replace(at, 9, ": warning: ");
    std::cerr << text << "\n";
  }
  if (!findings.errors.empty()) throw config::ConfigError(findings.errors);
  return config;
}

}  // namespace kb::bot
