// Pieces of text that every table `kernelbot init` writes shares, a launcher's and a kernel
// target's alike (starter_config.h, kernel_target_table.h).
#pragma once

#include <string>
#include <vector>

namespace kb::bot {

// `s` as a TOML basic string: quoted, with quotes and backslashes escaped.
std::string toml_string(const std::string& s);

// The `sizes = [{ ... }]` line of a starter table over `size_names` (in parameter order): about
// 2^20-2^24 elements per buffer whatever the number of dimensions, with its `# check:` note.
// Empty for no size name.
std::string starter_sizes_line(const std::vector<std::string>& size_names);

}  // namespace kb::bot
