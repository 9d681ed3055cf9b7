// State shared by every command: the global flags and the lazily loaded config. Passed in
// explicitly (no globals), so commands are testable and their inputs are visible.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "core/errors.h"

namespace kb::bot {

struct GlobalOptions {
  std::string config_path;  // --config; empty: ./kernelbot.toml or the nearest parent's
  int verbosity = 0;        // -v count
  bool quiet = false;
  bool json = false;  // machine-readable output on stdout, logs on stderr
};

class CliContext {
 public:
  GlobalOptions options;
  int exit_code = 0;  // a command that ends with a result other than success sets 1 here

  // The validated config; throws config::ConfigError (exit 2) on a bad file and UsageError when
  // no kernelbot.toml is found (unless `allow_missing`, which yields the defaults).
  const config::Config& config(bool allow_missing = false);

  // Where to scan for CUDA source: `path` when given, else the config's repository root, else the
  // current directory.
  std::filesystem::path scan_root(const std::string& path) const;

 private:
  std::optional<config::Config> config_;
};

}  // namespace kb::bot
