// Writes a kernelbot.toml without losing the one it replaces: the previous file is kept beside it
// as kernelbot.toml.bak (one generation), and the new text lands whole (written to a temporary
// file, then renamed over the target), so an interrupted write leaves the old file in place.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kb::bot {

// Writes `text` to `target`. Returns the backup's path when an existing file was replaced.
// Throws UsageError when `target` is a directory, Error when it cannot write.
std::optional<std::filesystem::path> write_config_keeping_backup(const std::filesystem::path& target,
                                                                 const std::string& text);

}  // namespace kb::bot
