#include "bot/config_file_write.h"

#include <fstream>

#include "core/errors.h"

namespace kb::bot {

std::optional<std::filesystem::path> write_config_keeping_backup(const std::filesystem::path& target,
                                                                 const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(target, ec))
    throw UsageError(target.string() +
                     " is a directory; a config is a file (move the directory or pass --config FILE)");
  fs::path temp = target;
  temp += ".new";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      fs::remove(temp, ec);
      throw Error("cannot write " + temp.string());
    }
  }
  std::optional<fs::path> backup;
  if (fs::exists(target, ec)) {
    backup = target;
    *backup += ".bak";
    fs::copy_file(target, *backup, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      fs::remove(temp, ec);
      throw Error("cannot keep the previous " + target.string() + " as " + backup->string() + ": " + ec.message() +
                  "; nothing was written");
    }
  }
  fs::rename(temp, target, ec);
  if (ec)
    throw Error("cannot replace " + target.string() + ": " + ec.message() + " (the new text is in " + temp.string() +
                ")");
  return backup;
}

}  // namespace kb::bot
