// The one reader of preprocessor directives: the spellings it accepts (spacing, comments,
// continuations, parentheses, signs) are the ones the splicer edits and the tuner sweeps, so they
// are pinned here once.
#include "cuda_source/tokens/preprocessor_directives.h"

#include <gtest/gtest.h>

#include "cuda_source/knobs/tunable_macros.h"

namespace {

using kb::cuda_source::Conditional;
using kb::cuda_source::detect_tunable_macros;
using kb::cuda_source::Directive;
using kb::cuda_source::integer_value;
using kb::cuda_source::read_directives;
using kb::cuda_source::top_level_defines;

// The only directive of `text`; fails the test when there is not exactly one.
Directive only(const std::string& text) {
  auto all = read_directives(text);
  EXPECT_EQ(all.size(), 1u) << text;
  return all.empty() ? Directive{} : all.front();
}

TEST(PreprocessorDirectives, ObjectLikeDefineHasNameValueRangeAndLine) {
  const std::string text = "// header\n#include <cuda_runtime.h>\n#define TILE 32\n";
  auto all = read_directives(text);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].keyword, "include");
  EXPECT_FALSE(all[0].is_object_like_define());
  const Directive& d = all[1];
  EXPECT_TRUE(d.is_object_like_define());
  EXPECT_EQ(d.name, "TILE");
  EXPECT_EQ(d.value(text), "32");
  EXPECT_EQ(d.value_begin, text.find("32"));
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(text.substr(d.begin, d.end - d.begin), "#define TILE 32");
}

TEST(PreprocessorDirectives, FunctionLikeMacrosAreNotObjectLikeDefines) {
  const std::string text = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define HALF (64)\n";
  auto all = read_directives(text);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "MAX");
  EXPECT_TRUE(all[0].function_like);
  EXPECT_FALSE(all[0].is_object_like_define());
  // A space before '(' makes the parenthesis the value, not a parameter list.
  EXPECT_FALSE(all[1].function_like);
  EXPECT_EQ(all[1].value(text), "(64)");
  auto defines = top_level_defines(text);
  ASSERT_EQ(defines.size(), 1u);
  EXPECT_EQ(defines[0].name, "HALF");
  EXPECT_TRUE(detect_tunable_macros("#ifndef F\n#define F(x) 4\n#endif\n").empty());
}

TEST(PreprocessorDirectives, CommentsAfterTheValueAreNotPartOfIt) {
  std::string text = "#define A 16   // tile edge\n";
  EXPECT_EQ(only(text).value(text), "16");
  text = "#define B 8 /* rows */\n";
  EXPECT_EQ(only(text).value(text), "8");
  text = "#define C // nothing but a comment\n";
  Directive c = only(text);
  EXPECT_EQ(c.name, "C");
  EXPECT_EQ(c.value_begin, c.value_end);
  EXPECT_EQ(c.value_begin, text.find("//"));
}

TEST(PreprocessorDirectives, SpacingAroundHashKeywordAndNameIsAccepted) {
  const std::string text = "  #  define\tTILE\t 16 \n#\tifndef   GUARD\n";
  auto all = read_directives(text);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].keyword, "define");
  EXPECT_EQ(all[0].name, "TILE");
  EXPECT_EQ(all[0].value(text), "16");
  EXPECT_EQ(all[1].keyword, "ifndef");
  EXPECT_EQ(all[1].name, "GUARD");
  EXPECT_EQ(all[1].conditional(), Conditional::open);
}

TEST(PreprocessorDirectives, AKeywordRunIntoTheNameNamesNothing) {
  std::string text = "#defineTILE 16\n";
  EXPECT_EQ(only(text).keyword, "defineTILE");
  EXPECT_FALSE(only(text).is_object_like_define());
  text = "#define/**/TILE 16\n";
  EXPECT_EQ(only(text).keyword, "define");
  EXPECT_TRUE(only(text).name.empty());
  EXPECT_TRUE(top_level_defines(text).empty());
}

TEST(PreprocessorDirectives, ContinuationLinesBelongToTheDirective) {
  const std::string text = "#define SUM 1 + \\\n  2\n#define NEXT 3\n";
  auto all = read_directives(text);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].value(text), "1 + \\\n  2");
  EXPECT_EQ(all[1].name, "NEXT");
  EXPECT_EQ(all[1].line, 3);
  // A continued value is no integer, so never a knob.
  EXPECT_FALSE(integer_value(all[0].value(text)).has_value());
  EXPECT_TRUE(detect_tunable_macros("#ifndef N\n#define N 4 \\\n  + 4\n#endif\n").empty());
}

TEST(PreprocessorDirectives, ConditionalKinds) {
  const std::string text = "#if A\n#ifdef B\n#elif C\n#else\n#endif\n#ifndef D\n#elifdef E\n#endif // D\n#pragma once\n";
  std::vector<Conditional> kinds;
  for (const auto& d : read_directives(text)) kinds.push_back(d.conditional());
  EXPECT_EQ(kinds, (std::vector<Conditional>{Conditional::open, Conditional::open, Conditional::middle,
                                             Conditional::middle, Conditional::close, Conditional::open,
                                             Conditional::middle, Conditional::close, Conditional::none}));
}

TEST(PreprocessorDirectives, CommentedOutAndInBodyDirectives) {
  const std::string text = "/*\n#define OLD 1\n*/\n// #define GONE 2\n"
                           "void f() {\n#define LOCAL 3\n#pragma unroll 4\n}\n#define TOP 5\n";
  std::vector<std::string> names;
  for (const auto& d : read_directives(text)) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"LOCAL", "unroll", "TOP"}));
  // What the splicer edits: macros of the whole file, not one function's.
  auto defines = top_level_defines(text);
  ASSERT_EQ(defines.size(), 1u);
  EXPECT_EQ(defines[0].name, "TOP");
  EXPECT_EQ(defines[0].line, 9);
}

TEST(PreprocessorDirectives, IntegerValuesInParenthesesWithSignsAndSuffixes) {
  EXPECT_EQ(integer_value("256"), 256);
  EXPECT_EQ(integer_value("(64)"), 64);
  EXPECT_EQ(integer_value("( -1 )"), -1);
  EXPECT_EQ(integer_value("-4"), -4);
  EXPECT_EQ(integer_value("128u"), 128);
  EXPECT_EQ(integer_value("(1024UL)"), 1024);
  for (const char* not_integer :
       {"", "-", "()", "0x10", "1 + 2", "- 4", "\"x\"", "BLOCK", "(64", "64)", "(64)u", "99999999999999999999"})
    EXPECT_FALSE(integer_value(not_integer).has_value()) << not_integer;
}

TEST(PreprocessorDirectives, TunerReadsKnobsThroughTheSameReader) {
  const std::string text = "#  ifndef OFFSET   // a comment after the guard\n"
                           "#\tdefine OFFSET ( -4 ) /* why */\n#endif\n"
                           "#ifndef SPLIT\n\n#define SPLIT 2\n#endif\n"  // not on the next line: no knob
                           "#ifndef OTHER\n#define SPLIT2 2\n#endif\n";  // another name: no knob
  auto knobs = detect_tunable_macros(text);
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_EQ(knobs[0].name, "OFFSET");
  EXPECT_EQ(knobs[0].default_value, -4);
  EXPECT_EQ(knobs[0].line, 1);
}

}  // namespace
