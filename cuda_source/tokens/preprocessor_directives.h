// The one reader of preprocessor directives in kernelbot. The splicer edits `#define` values in
// place, the tuner looks for `#ifndef NAME` / `#define NAME <integer>` knobs, the launch-bounds
// transform asks whether a name is a macro: they all read directives here, so a spelling one of
// them accepts (`#  define`, a tab, a trailing comment) is accepted by all. Directives are found
// by the source scanner's tokenizer, so lines inside comments are not directives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// Where a directive stands in a conditional block: #if/#ifdef/#ifndef open one, #elif/#else
// (and C23's #elifdef/#elifndef) are its middle, #endif closes it.
enum class Conditional { none, open, middle, close };

// One directive, read: "#  define NAME value // why" -> keyword "define", name "NAME", the
// byte range of "value".
struct Directive {
  size_t begin = 0, end = 0;  // the whole directive, continuation lines included (as SourceChunk)
  int line = 0;
  std::string keyword;  // "define", "ifndef", "endif", "pragma"...; empty for a lone '#'
  // The identifier after the keyword (the macro of #define, #ifdef, #ifndef, #undef), when the
  // keyword is followed by a space or tab and one; empty otherwise.
  std::string name;
  bool function_like = false;  // "#define NAME(" with no space before '('
  // What follows the name up to a // or /* comment, spaces around it excluded: a #define's
  // replacement text. Empty (value_begin == value_end) when nothing follows.
  size_t value_begin = 0, value_end = 0;

  bool is_object_like_define() const { return keyword == "define" && !name.empty() && !function_like; }
  Conditional conditional() const;
  std::string value(const std::string& text) const { return text.substr(value_begin, value_end - value_begin); }
};

// Reads the directive `chunk` of `text` (a SourceChunk of kind directive).
Directive read_directive(const std::string& text, const SourceChunk& chunk);

// The path a quoted include names: "prod/ops.h" for `#include "prod/ops.h"`; empty for an
// `#include <...>` and for every other directive.
std::string quoted_include(const std::string& text, const Directive& directive);

// Every directive of `text`, in order, those inside function bodies included.
std::vector<Directive> read_directives(const std::string& text);

// The object-like #defines among the file's top-level pieces, in order: the macros a file
// defines for the whole of it, which the splicer edits and compares.
std::vector<Directive> top_level_defines(const std::string& text);

// The integer a macro's replacement text stands for, when it is a plain decimal literal: "256",
// "-4", "(64)", "( -1 )", "128u", "1024UL". Nothing for expressions, hex, strings or an
// empty value.
std::optional<int64_t> integer_value(std::string_view value);

}  // namespace kb::cuda_source
