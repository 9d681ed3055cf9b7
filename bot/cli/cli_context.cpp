#include "bot/cli/cli_context.h"

#include <cstdlib>
#include <filesystem>

#include "common/secret_redactor.h"
#include "config/config_loader.h"

namespace kb::bot {

const config::Config& CliContext::config(bool allow_missing) {
  if (config_) return *config_;
  auto file = config::find_config_file(options.config_path, std::filesystem::current_path());
  if (file.empty()) {
    if (!allow_missing)
      throw UsageError("no kernelbot.toml here or in any parent directory; run `kernelbot init` to write one, "
                       "or pass --config FILE");
    config::Config defaults;
    defaults.root = std::filesystem::current_path();
    config_ = defaults;
  } else {
    config_ = config::load_config(file);
  }
  // The tokens' variables may have any name: their values are secrets from now on, before any
  // candidate runs, whether or not this command ever sends them.
  for (const std::string& name : {config_->github.token_env, config_->llm.api_key_env})
    if (const char* value = name.empty() ? nullptr : std::getenv(name.c_str())) register_secret(value);
  return *config_;
}

std::filesystem::path CliContext::scan_root(const std::string& path) const {
  if (!path.empty()) return path;
  auto file = config::find_config_file(options.config_path, std::filesystem::current_path());
  return file.empty() ? std::filesystem::current_path() : std::filesystem::absolute(file).parent_path();
}

}  // namespace kb::bot
