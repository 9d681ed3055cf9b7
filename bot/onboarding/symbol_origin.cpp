#include "bot/onboarding/symbol_origin.h"

#include <algorithm>

#include "common/file_io.h"
#include "cuda_source/tokens/code_tokens.h"

namespace kb::bot {
namespace fs = std::filesystem;
namespace {

bool is_source_file(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

bool starts_declaration_only(const std::vector<cuda_source::CodeToken>& statement) {
  if (statement.empty()) return true;
  const std::string& first = statement.front().text;
  return first == "extern" || first == "typedef" || first == "using" || first == "friend" || first == "template" ||
         first == "struct" || first == "class" || first == "enum" || first == "union";
}

// Where `name` is declared in a file-scope statement: the index of its token at parenthesis depth
// 0 (so not a parameter), or -1.
int declarator_index(const std::vector<cuda_source::CodeToken>& statement, const std::string& name) {
  int parens = 0;
  for (size_t i = 0; i < statement.size(); ++i) {
    const std::string& t = statement[i].text;
    if (t == "(" || t == "[") ++parens;
    else if (t == ")" || t == "]") --parens;
    else if (t == "=") return -1;  // past the declarator: what follows is the initializer
    else if (parens == 0 && t == name && statement[i].kind == cuda_source::CodeToken::identifier)
      return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::string name_in_code(const std::string& symbol) {
  std::string s = symbol.substr(0, symbol.find('('));
  while (s.ends_with(' ')) s.pop_back();
  const size_t colon = s.rfind("::");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

FileDefinitions find_definitions(const std::string& text, const std::string& name) {
  FileDefinitions out;
  const auto tokens = cuda_source::tokenize_code(text);
  std::vector<bool> scopes;  // each open brace: whether it is a namespace or extern "C" block
  std::vector<cuda_source::CodeToken> statement;
  auto file_scope = [&] { return std::all_of(scopes.begin(), scopes.end(), [](bool ns) { return ns; }); };
  auto note = [&](const std::string& wanted, bool function) {
    const int at = declarator_index(statement, wanted);
    if (at < 0 || starts_declaration_only(statement)) return false;
    const bool called = static_cast<size_t>(at) + 1 < statement.size() && statement[at + 1].text == "(";
    if (function != called) return false;
    if (wanted == name) out.lines.emplace_back(cuda_source::line_of(text, statement[at].begin), function);
    return true;
  };
  for (const auto& tok : tokens) {
    if (!file_scope()) {
      if (tok.text == "{") scopes.push_back(false);
      else if (tok.text == "}") scopes.pop_back();
      if (file_scope()) statement.clear();
      continue;
    }
    if (tok.text == "{") {
      const bool block = !statement.empty() && (statement.front().text == "namespace" ||
                                                (statement.front().text == "extern" && statement.size() == 1));
      if (!block) {
        // A function's body (its definition), or a variable's braced initializer.
        if (!note(name, true)) note(name, false);
        if (!out.has_main) {
          const auto saved = out.lines;
          out.has_main = note("main", true);
          out.lines = saved;
        }
      }
      scopes.push_back(block);
      statement.clear();
    } else if (tok.text == "}") {
      if (!scopes.empty()) scopes.pop_back();
      statement.clear();
    } else if (tok.text == ";") {
      note(name, false);
      statement.clear();
    } else {
      statement.push_back(tok);
    }
  }
  return out;
}

std::optional<SymbolDefinition> find_repository_definition(const std::string& symbol, const fs::path& root,
                                                           const std::vector<std::string>& exclude) {
  const std::string name = name_in_code(symbol);
  if (name.empty() || root.empty()) return std::nullopt;
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string base = it->path().filename().string();
    if (it->is_directory(ec) && std::find(exclude.begin(), exclude.end(), base) != exclude.end()) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && is_source_file(it->path())) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const auto text = read_text_file_if_readable(file);
    if (!text || text->find(name) == std::string::npos) continue;
    const FileDefinitions found = find_definitions(*text, name);
    if (found.lines.empty()) continue;
    SymbolDefinition d;
    d.file = file.lexically_relative(root);
    d.line = found.lines.front().first;
    d.function = found.lines.front().second;
    d.file_has_main = found.has_main;
    return d;
  }
  return std::nullopt;
}

std::string definition_hint(const std::string& symbol, const SymbolDefinition& where) {
  const std::string at = where.file.string() + ":" + std::to_string(where.line);
  const std::string what = where.function ? "function" : "global";
  if (!where.file_has_main)
    return symbol + " is defined by the repository, at " + at + ": add \"" + where.file.string() +
           "\" to extra_sources (not a library to link_libs)";
  return symbol + " is a program " + what + " defined at " + at + ", a file with a main() (the program, not a " +
         "library: it cannot be an extra source): define it in the setup source ([project] setup_source, " +
         "whose extern \"C\" int kb_setup(void) can also do what main() does to set it up) and keep an extern " +
         "declaration where the kernel's code uses it";
}

}  // namespace kb::bot
