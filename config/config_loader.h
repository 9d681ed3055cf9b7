// Reads kernelbot.toml into a Config, validating every key: unknown keys, wrong types, missing
// required fields and bad values are all reported together through ConfigError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "config/config.h"

namespace kb::config {

// The most a kernelbot.toml may weigh: above the sources' 16 MiB, as `init` writes about 900
// bytes a launcher (17 MiB for 20,000).
inline constexpr std::uintmax_t kConfigFileLimitBytes = std::uintmax_t{64} << 20;

// Parses and validates the file. Throws ConfigError (all problems found) on any error.
Config load_config(const std::filesystem::path& file);

// The same from text (tests, stdin); `file_name` is used in messages; `root` resolves paths.
Config load_config_text(const std::string& text, const std::string& file_name, const std::filesystem::path& root);

// The config file to use: `explicit_path` if given, else kernelbot.toml in `dir` or the nearest
// parent directory that has one. Empty when none is found.
std::filesystem::path find_config_file(const std::string& explicit_path, const std::filesystem::path& dir);

}  // namespace kb::config
