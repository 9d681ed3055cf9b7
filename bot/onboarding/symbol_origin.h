// Where the repository itself defines a symbol a variant library needs but lacks: the hint for
// "undefined symbol: g_props" when g_props is a program global of app.cu (defined beside main())
// is extra_sources or the setup source, not a library for link_libs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::bot {

struct SymbolDefinition {
  std::filesystem::path file;  // relative to the repository root
  int line = 0;
  bool function = false;       // a function's definition, else a variable's
  bool file_has_main = false;  // the file is a program: it cannot be an extra source
};

// The name a demangled symbol is written with in code: "ns::g_props" -> "g_props",
// "ops::scale(float*, int)" -> "scale", "g_props" -> "g_props".
std::string name_in_code(const std::string& demangled_symbol);

// The file-scope definitions of `name` in `text` (not `extern` declarations, not parameters or
// locals, not prototypes), as 1-based lines, in file order; whether the text defines main().
struct FileDefinitions {
  std::vector<std::pair<int, bool>> lines;  // line, whether it is a function
  bool has_main = false;
};
FileDefinitions find_definitions(const std::string& text, const std::string& name);

// The first definition of the symbol in the repository's .cu/.cpp/.cc/.cxx files (directories in
// `exclude` skipped, as `discover` does); nothing when it defines none.
std::optional<SymbolDefinition> find_repository_definition(const std::string& demangled_symbol,
                                                           const std::filesystem::path& root,
                                                           const std::vector<std::string>& exclude);

// What to do about it: add the file to extra_sources, or (a file with a main()) define the symbol
// in the setup source.
std::string definition_hint(const std::string& demangled_symbol, const SymbolDefinition& where);

}  // namespace kb::bot
