// State shared by every command: the global flags and the lazily loaded config. Passed in
// explicitly (no globals), so commands are testable and their inputs are visible.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "config/config.h"

namespace kb::bot {

struct GlobalOptions {
  std::string config_path;  // --config; empty: ./kernelbot.toml or the nearest parent's
  int verbosity = 0;        // -v count
  bool quiet = false;
  bool json = false;        // machine-readable output on stdout, logs on stderr
};

// Exit code 2: the command line or the config is wrong; the user must change what they typed.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 1: the work failed (a tool, the GPU, the network...).
struct CommandFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CliContext {
 public:
  GlobalOptions options;
  int exit_code = 0;  // a command that ends with a result other than success sets 1 here

  // The validated config; throws config::ConfigError (exit 2) on a bad file and UsageError when
  // no kernelbot.toml is found (unless `allow_missing`, which yields the defaults).
  const config::Config& config(bool allow_missing = false);

 private:
  std::optional<config::Config> config_;
};

}  // namespace kb::bot
