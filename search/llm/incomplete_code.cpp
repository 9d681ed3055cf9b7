#include "search/llm/incomplete_code.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "common/text.h"

namespace kb::search {
namespace {

std::vector<std::string> trimmed_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(trim(line));
  return out;
}

// The text of a line that is only a comment ("// x", "/* x */"), lower-cased; false for others.
bool comment_text(const std::string& line, std::string& text) {
  if (line.starts_with("//")) {
    text = line.substr(2);
  } else if (line.starts_with("/*")) {
    size_t close = line.find("*/", 2);
    text = line.substr(2, close == std::string::npos ? std::string::npos : close - 2);
  } else {
    return false;
  }
  text = lower(trim(text));
  return true;
}

bool only_dots(const std::string& text) {
  std::string t = text;
  for (const char* mark : {"…", "(", ")", "[", "]"})
    for (size_t at; (at = t.find(mark)) != std::string::npos;) t.erase(at, std::string(mark).size());
  t = trim(t);
  return !t.empty() && t.find_first_not_of('.') == std::string::npos && t.size() >= 3;
}

// A comment saying that code is left out: with an ellipsis, words of leaving out; without one,
// a comment that is nothing but such a phrase ("rest of the file unchanged").
bool says_elided(const std::string& text) {
  if (only_dots(text)) return true;
  static const std::regex gap(
      R"(unchanged|unmodified|rest of (the )?(file|code|kernel|function|implementation|source|launcher|body|program|translation unit)|remains? (the )?(same|unchanged|as (is|before))|same as (before|above|the original|original|in the original)|as before|omitted|elided|not shown|for brevity|existing (code|implementation|kernels?|functions?|helpers?)|(other|previous|original) (code|functions|kernels|helpers|includes|definitions))");
  const bool ellipsis = text.find("...") != std::string::npos || text.find("…") != std::string::npos;
  if (ellipsis) return std::regex_search(text, gap);
  // Phrases that say it anywhere in a comment ("helper functions omitted for brevity").
  static const std::regex anywhere(
      R"(for brevity|(code|functions?|helpers?|kernels?|implementations?|definitions?|includes|details|bod(y|ies)|rest) (is |are |was |were )?(omitted|elided|not shown)|(rest|remainder) of (the )?(file|code|kernel|function|implementation|source|launcher|body|program)( is| remains| stays)? (unchanged|the same|as (is|before)))");
  if (std::regex_search(text, anywhere)) return true;
  static const std::regex whole(
      R"(^((the )?(rest|remainder) of (the )?(file|code|kernel|function|implementation|source|launcher|body|program)( is| remains| stays)?( unchanged| the same| as (is|before))?|(everything else|other (code|functions|kernels|helpers)|(the )?(existing|original|previous) (code|implementation|kernels?|functions?|helpers?)|(helpers?|includes|definitions|kernels?|functions?)) (is |are |stays? |remains? )?(unchanged|omitted|as before|the same|not shown)|unchanged|\(unchanged\)|same as (before|above|the original))[.:;]?$)");
  return std::regex_search(text, whole);
}

}  // namespace

bool is_unified_diff(const std::string& code) {
  static const std::regex hunk(R"(^@@ -\d+(,\d+)? \+\d+(,\d+)? @@)");
  std::istringstream in(code);
  bool minus_header = false;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, hunk)) return true;
    if (minus_header && line.starts_with("+++ ")) return true;
    minus_header = line.starts_with("--- ");
  }
  return false;
}

std::string elided_line(const std::string& code, const std::string& seed_source) {
  const auto seed = trimmed_lines(seed_source);
  const std::set<std::string> known(seed.begin(), seed.end());
  for (const auto& line : trimmed_lines(code)) {
    if (line.empty() || known.count(line)) continue;
    std::string text;
    if (only_dots(line) || (comment_text(line, text) && says_elided(text))) return line;
  }
  return "";
}

}  // namespace kb::search
