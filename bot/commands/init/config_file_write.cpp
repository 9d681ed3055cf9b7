#include "bot/commands/init/config_file_write.h"

#include "common/file_io.h"
#include "common/file_write.h"
#include "config/config_loader.h"
#include "core/errors.h"

namespace kb::bot {

namespace {

// More backups than this beside one config is a directory to clean up, not one more to add.
constexpr int kMaxBackups = 1000;

std::filesystem::path backup_name(const std::filesystem::path& target, int n) {
  std::filesystem::path name = target;
  name += n == 0 ? ".bak" : ".bak." + std::to_string(n);
  return name;
}

}  // namespace

ConfigWrite write_config_keeping_backup(const std::filesystem::path& target, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(target, ec))
    throw UsageError(target.string() +
                     " is a directory; a config is a file (move the directory or pass --config FILE)");
  ConfigWrite outcome;
  // The previous text, read the one safe way: a symlink, FIFO or device at the target is refused.
  if (fs::is_symlink(target, ec))
    throw Error("cannot write " + target.string() +
                ": it is a symlink; kernelbot does not write through symlinks (replace the link with a file or "
                "pass --config with the file it points to)");
  const std::optional<std::string> previous = try_read_text_file(target, config::kConfigFileLimitBytes);
  if (previous && *previous == text) return outcome;
  if (previous) {
    for (int n = 0; !outcome.backup; ++n) {
      if (n == kMaxBackups)
        throw Error("cannot keep the previous " + target.string() + ": " + std::to_string(kMaxBackups) + " backups (" +
                    backup_name(target, 0).filename().string() +
                    ", .bak.N) are there already; remove old ones; nothing was written");
      if (write_new_file(backup_name(target, n), *previous)) outcome.backup = backup_name(target, n);
    }
  }
  write_file_atomically(target, text);
  outcome.changed = true;
  return outcome;
}

}  // namespace kb::bot
