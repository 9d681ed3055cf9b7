// Reading whole files, the one way the program does it: binary-exact, and an error that names the
// file when it cannot be read.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kb {

// The file's bytes; nullopt when it does not exist or cannot be opened.
std::optional<std::string> try_read_text_file(const std::filesystem::path& path);

// The file's bytes; throws kb::Error "cannot read <path>: <reason>" when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace kb
