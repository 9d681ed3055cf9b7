// Writes a kernelbot.toml without losing the one it replaces. The previous text is kept in the
// first free backup name (kernelbot.toml.bak, then .bak.1, .bak.2, ...), so running `init --force`
// twice keeps a hand edit made in between; a file that already holds the new text is left alone.
// The new text lands whole (common/file_write.h), and neither the config nor a backup is ever
// written through a symlink: a backup name taken by anything, a symlink included, is skipped.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kb::bot {

struct ConfigWrite {
  bool changed = false;                         // false: the file already held exactly this text
  std::optional<std::filesystem::path> backup;  // where the replaced text is kept, when there was one
};

// Writes `text` to `target`. Throws UsageError when `target` is a directory, Error when it cannot
// read the previous file, keep its backup or write the new one (nothing is replaced then).
ConfigWrite write_config_keeping_backup(const std::filesystem::path& target, const std::string& text);

}  // namespace kb::bot
