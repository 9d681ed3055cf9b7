#include "common/text.h"

#include <cctype>

namespace kb {

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view text) {
  constexpr std::string_view kWhiteSpace = " \t\n\v\f\r";
  const size_t begin = text.find_first_not_of(kWhiteSpace);
  if (begin == std::string_view::npos) return "";
  return std::string(text.substr(begin, text.find_last_not_of(kWhiteSpace) - begin + 1));
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> pieces;
  size_t begin = 0;
  for (size_t at = text.find(separator); at != std::string_view::npos; at = text.find(separator, begin)) {
    pieces.emplace_back(text.substr(begin, at - begin));
    begin = at + 1;
  }
  pieces.emplace_back(text.substr(begin));
  return pieces;
}

std::string plural_count(int64_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 || n == -1 ? "" : "s");
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace kb
