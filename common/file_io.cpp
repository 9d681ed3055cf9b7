#include "common/file_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace kb {

std::optional<std::string> try_read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

std::string read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read " + path.string() + ": it is a directory");
  errno = 0;
  auto text = try_read_text_file(path);
  if (!text) throw Error("cannot read " + path.string() + ": " + (errno ? std::strerror(errno) : "cannot open it"));
  return *text;
}

}  // namespace kb
