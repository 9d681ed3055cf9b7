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

// One database entry: the compiler's arguments as written (the compiler first) and where they run.
struct CompileCommand {
  std::filesystem::path database;
  std::filesystem::path directory;
  std::vector<std::string> arguments;
};

// The first entry (in the first database that has one) whose file is `source`. Unreadable or
// malformed databases are skipped with a warning in the log.
std::optional<CompileCommand> lookup_compile_command(const std::filesystem::path& root, const std::string& setting,
                                                     const std::filesystem::path& source);

// The flags of that entry (relevant_compile_flags).
std::optional<CompileCommandFlags> lookup_compile_flags(const std::filesystem::path& root, const std::string& setting,
                                                        const std::filesystem::path& source);

// The files called `name` a build may have left: in `root`, in its build*/ folders and one level
// deeper (build/release/), newest first (the most recently configured build is the one the user
// works with). Compile databases (compile_commands.json) and CMake caches are found this way.
std::vector<std::filesystem::path> build_tree_files(const std::filesystem::path& root, const std::string& name);

// `args` with the response files they name (--options-file F, -optf F, @F) replaced by their
// words, read relative to `directory`, four levels deep at most.
std::vector<std::string> expand_response_files(const std::vector<std::string>& args,
                                               const std::filesystem::path& directory);

// A "command" string split into words as a POSIX shell does (split_words with kShellWords).
std::vector<std::string> split_command_line(const std::string& command);

// From one compiler invocation's arguments, the flags a variant needs: -I/-isystem (made
// absolute against `directory`), -D, -U, -std=..., --expt-relaxed-constexpr,
// --extended-lambda. Response files (--options-file F, @F) are read.
std::vector<std::string> relevant_compile_flags(const std::vector<std::string>& args,
                                                const std::filesystem::path& directory);

}  // namespace kb::profiler
