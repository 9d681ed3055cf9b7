#include "profiler/evaluate/compile/quoted_words.h"

#include <cctype>

namespace kb::profiler {

std::vector<std::string> split_words(std::string_view text, const WordSyntax& syntax) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool has_next = i + 1 < text.size();
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else word += c;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && has_next &&
               (syntax.escapable_in_quotes.empty() ||
                syntax.escapable_in_quotes.find(text[i + 1]) != std::string_view::npos))
        word += text[++i];
      else word += c;
    } else if (c == '"' || (c == '\'' && syntax.single_quotes)) {
      quote = c;
      in_word = true;
    } else if (c == '\\' && has_next && syntax.escapes_outside_quotes) {
      word += text[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace kb::profiler
