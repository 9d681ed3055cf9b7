// Splitting a line into words the way a shell or CMake does: white space outside quotes separates
// words, quotes group them and are removed, a backslash escapes the next character. The two
// languages differ in the details (WordSyntax), and each reader keeps its own language's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb::profiler {

struct WordSyntax {
  bool single_quotes = false;            // '...' quotes, with no escape inside; else ' is a letter
  bool escapes_outside_quotes = false;   // \x outside quotes is x; else \ is a letter there
  std::string_view escapable_in_quotes;  // what \ escapes inside "..."; empty: any character
};

// A POSIX shell's words ("command" strings of compile_commands.json, response files): '...' and
// "..." quote, \ escapes outside quotes and, inside "...", only " \ $ and `.
inline constexpr WordSyntax kShellWords{true, true, "\"\\$`"};
// A CMake command's arguments: only "..." quotes, \ escapes any character inside it.
inline constexpr WordSyntax kCMakeWords{false, false, ""};

// The words of `text`; a quoted empty word ("") is a word.
std::vector<std::string> split_words(std::string_view text, const WordSyntax& syntax);

}  // namespace kb::profiler
