// What one declaration at namespace scope declares: a function (its name and parameter types),
// variables, a type (struct, class, union, enum, alias, typedef), a namespace alias, a using
// declaration or directive, with the template and specialization that tell same-named ones apart.
// The splice uses it to tell a reply's redefinition of the file's `kThreads` or `load_tile` (which
// replaces the file's) from a new helper (which is carried). Not a parser: it reads the tokens at
// the declaration's own level and says nothing about what it cannot read.
#pragma once

#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

struct DeclaredEntity {
  enum Kind { function, variable, type, namespace_alias, using_declaration, using_directive } kind = function;
  // As written in the declaration: "load_tile", "Traits", "Op::run" (a member defined outside
  // its class), "operator+"; a using declaration's or directive's whole operand ("std::min").
  std::string name;
  // What tells same-named entities apart, parameter names left out: a template's parameter kinds
  // ("template<int>", "template<>" for an explicit specialization), the specialization's
  // arguments ("<T*>", "<32>"), a function's parameter types and qualifiers ("(const float*,int)").
  std::string signature;
  // False for a declaration only: `void f(int);`, `struct S;`, `extern int x;`.
  bool is_definition = false;
  bool is_static = false;
  bool is_kernel = false;  // __global__

  // Equal for two declarations of one entity (in one namespace): "f load_tile template<int>(...)".
  std::string key() const;
  // A second definition of this in one namespace would not compile.
  bool defines_once() const { return is_definition && kind != using_declaration && kind != using_directive; }
};

// What the declaration `chunk` of `text` declares; nothing for a directive, a static_assert, an
// explicit instantiation or a declaration it cannot read.
std::vector<DeclaredEntity> declared_entities(const std::string& text, const SourceChunk& chunk);

}  // namespace kb::cuda_source
