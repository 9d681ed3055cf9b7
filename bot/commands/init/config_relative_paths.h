// `kernelbot --config ci/kb.toml init` scans the repository from the working directory but writes
// the config elsewhere, and every path in a config is relative to the config file's directory
// (config::Config::resolve). This rewrites the paths of a starter config written relative to the
// scanned root so that they are relative to the directory the file is written in, which is what
// `config check` and every command read them against.
#pragma once

#include <filesystem>
#include <string>

namespace kb::bot {

// `text` with each `source`, `setup_source`, `include_dirs`, `extra_sources` and `prelude` path
// (commented-out lines too) prefixed by `prefix` ("..": the config is one directory below the
// root), absolute paths and "TODO" kept. An empty prefix keeps the text.
std::string rebase_config_paths(const std::string& text, const std::filesystem::path& prefix);

// The prefix that takes paths relative to `root` to paths relative to `config_dir`.
std::filesystem::path path_prefix(const std::filesystem::path& root, const std::filesystem::path& config_dir);

}  // namespace kb::bot
