// line_of (code_tokens.h): the line of an offset, counted directly in a small text and through
// the kept line starts of a large one, which must give the same answers and never a stale one
// for another text that lives at the same address later.
#include <gtest/gtest.h>

#include <string>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

int counted(const std::string& text, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

std::string lines_of_width(size_t lines, size_t width) {
  std::string text;
  for (size_t i = 0; i < lines; ++i) text += std::string(width, 'a' + static_cast<char>(i % 26)) + "\n";
  return text;
}

TEST(LineOf, ALargeTextGivesTheLinesAPassOverItWould) {
  const std::string text = lines_of_width(5000, 37);
  for (size_t pos : {size_t{0}, size_t{1}, size_t{37}, size_t{38}, size_t{39}, size_t{12345}, text.size() - 1,
                     text.size(), text.size() + 10})
    EXPECT_EQ(line_of(text, pos), counted(text, pos)) << pos;
  EXPECT_EQ(line_of(text, 38), 2);  // the first byte after the first newline
}

TEST(LineOf, AnotherTextOfTheSameSizeInTheSameStringIsNotAnsweredFromTheOld) {
  std::string text = lines_of_width(2000, 9);
  const size_t pos = text.size() / 2;
  EXPECT_EQ(line_of(text, pos), counted(text, pos));
  // Same buffer, same size, other line breaks: the kept starts must not answer for it.
  const std::string wider = lines_of_width(1000, 19);
  ASSERT_EQ(wider.size(), text.size());
  text.replace(0, text.size(), wider);
  EXPECT_EQ(line_of(text, pos), counted(text, pos));
}

}  // namespace
}  // namespace kb::cuda_source
