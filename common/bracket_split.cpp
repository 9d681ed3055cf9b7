#include "common/bracket_split.h"

#include "common/text.h"

namespace kb {

std::vector<std::string> split_outside_brackets(std::string_view text, char separator) {
  // The pieces between separators, a piece joined to the one before while a bracket is open.
  std::vector<std::string> parts;
  int depth = 0;
  for (const std::string& piece : split(text, separator)) {
    if (depth == 0) parts.push_back(piece);
    else parts.back() += std::string(1, separator) + piece;
    for (char c : piece) depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
  }
  for (std::string& part : parts) part = trim(part);
  return parts;
}

}  // namespace kb
