// Reads the repository's own compile flags from a compile_commands.json (CMake's
// CMAKE_EXPORT_COMPILE_COMMANDS, Bear, ...), so a variant is compiled with the include paths,
// macros and language standard its source is built with in the repository.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::profiler {

// The flags of one database entry that matter for compiling a variant of its file.
struct CompileCommandFlags {
  std::filesystem::path database;  // the compile_commands.json they came from
  std::vector<std::string> flags;  // -I/-isystem (absolute), -D, -U, -std, and nvcc's language switches
};

// The databases `setting` names: "none" -> none; "auto" -> <root>/compile_commands.json and
// <root>/build*/compile_commands.json (and one directory deeper, build/release/...), newest
// first; anything else -> that path (relative to root).
std::vector<std::filesystem::path> find_compile_databases(const std::filesystem::path& root,
                                                          const std::string& setting);

// The flags of the first entry (in the first database that has one) whose file is `source`.
// Unreadable or malformed databases are skipped with a warning in the log.
std::optional<CompileCommandFlags> lookup_compile_flags(const std::filesystem::path& root, const std::string& setting,
                                                        const std::filesystem::path& source);

// POSIX-shell-like word splitting of a "command" string (quotes and backslashes).
std::vector<std::string> split_command_line(const std::string& command);

// From one compiler invocation's arguments, the flags a variant needs: -I/-isystem (made
// absolute against `directory`), -D, -U, -std=..., --expt-relaxed-constexpr,
// --extended-lambda. Response files (--options-file F, @F) are read.
std::vector<std::string> relevant_compile_flags(const std::vector<std::string>& args,
                                                const std::filesystem::path& directory);

}  // namespace kb::profiler
