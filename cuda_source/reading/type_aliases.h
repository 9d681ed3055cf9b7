// The type aliases a source file can see: `typedef X Y;`, `using Y = X;` and `#define Y X` in the
// file and in the repository headers it includes ("..." includes only). Production code hides
// its element types behind such names (`floatX`, a bf16 typedef under `#if defined(ENABLE_BF16)`),
// so `init` and `config check` resolve a parameter's type through them before matching a dtype.
// Not a preprocessor: conditionals are followed only as far as `defined(M)`, `#ifdef`, `#ifndef`
// and integer macros go; where a branch cannot be told, the first one is taken and said so.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kb::cuda_source {

struct TypeAlias {
  std::string name;                       // "floatX"
  std::string chosen;                     // what a default build gets: "float"
  std::vector<std::string> alternatives;  // every definition seen, in file order
  std::string file;                       // where the chosen one is written
  int line = 0;
  std::string condition;  // the conditional the chosen one stands under ("#else of #if defined(ENABLE_BF16)"), or ""
  bool in_default_build = false;  // the chosen definition is on the branches a plain build takes
  bool branch_known = true;       // false: the condition could not be evaluated; the first branch was taken
};

using TypeAliases = std::map<std::string, TypeAlias>;

// What the files define, followed through quoted #includes resolved against the including
// file's directory, `root` and root/`include_dirs`. `defined` holds macros to treat as defined
// (-D flags); it also collects the file's own #defines as they are read.
struct AliasReader {
  std::filesystem::path root;
  std::vector<std::string> include_dirs;
  std::set<std::string> defined;
  TypeAliases aliases;
  std::set<std::string> visited;  // files already read (by their path)

  // Reads `file` (relative to root, or absolute) and what it includes.
  void read_file(const std::filesystem::path& file);
  // Reads one text; `file` names it in results and resolves its includes.
  void read_text(const std::string& text, const std::filesystem::path& file);
};

// The aliases `file` (relative to `root`) can see.
TypeAliases collect_type_aliases(const std::filesystem::path& root, const std::string& file,
                                 const std::vector<std::string>& include_dirs = {});

// A type with every alias it names replaced by the alias's chosen type (chains followed):
// "const floatX *" -> "const float *". `used` (if given) receives the aliases it went through.
std::string resolve_type(const std::string& type, const TypeAliases& aliases,
                         std::vector<const TypeAlias*>* used = nullptr);

}  // namespace kb::cuda_source
