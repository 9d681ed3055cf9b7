// Editing and reading a kernelbot.toml in tests: drop a table before appending a test's own
// version of it (TOML forbids defining a table twice); find one [[kernel]] table.
#pragma once

#include <string>

namespace kb::testing {

// `toml` without the top-level table `[name]` (its header and keys, up to the next header).
inline std::string without_table(std::string toml, const std::string& name) {
  const std::string header = "[" + name + "]\n";
  size_t at = toml.rfind("\n" + header) != std::string::npos ? toml.find("\n" + header) + 1
                                                             : (toml.rfind(header, 0) == 0 ? 0 : std::string::npos);
  if (at == std::string::npos) return toml;
  size_t next = toml.find("\n[", at + header.size() - 1);
  toml.erase(at, next == std::string::npos ? std::string::npos : next + 1 - at);
  return toml;
}

// The [[kernel]] table of `config` that holds `key` (`launcher = "run"`, `global = "k"`), from the
// key up to the next [[kernel]]; empty when no table holds it.
inline std::string kernel_table_with(const std::string& config, const std::string& key) {
  const size_t at = config.find(key);
  if (at == std::string::npos) return "";
  const size_t end = config.find("[[kernel]]", at);
  return config.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace kb::testing
