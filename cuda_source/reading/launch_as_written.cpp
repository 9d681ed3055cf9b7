#include "cuda_source/reading/launch_as_written.h"

#include <algorithm>
#include <regex>
#include <set>

#include "common/text.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {
namespace {

std::string trimmed(const std::string& s) {
  static const std::regex space(R"(\s+)");
  std::string out = std::regex_replace(s, space, " ");
  const size_t b = out.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return out.substr(b, out.find_last_not_of(' ') - b + 1);
}

// `text` split at its top-level commas, each part trimmed.
std::vector<std::string> split_components(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    else if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(trimmed(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trimmed(text.substr(start)).empty() || !out.empty()) out.push_back(trimmed(text.substr(start)));
  return out;
}

// The index one past the bracket matching text[open].
size_t past_matching(const std::string& text, size_t open) {
  const char o = text[open], c = o == '(' ? ')' : o == '{' ? '}' : ']';
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == o) ++depth;
    else if (text[i] == c && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

bool literal_word(const std::string& w) {
  static const std::set<std::string> words = {"float",    "double",  "int",      "unsigned",      "long",
                                              "short",    "char",    "bool",     "true",          "false",
                                              "half",     "__half",  "__half2",  "__nv_bfloat16", "nv_bfloat16",
                                              "int8_t",   "uint8_t", "int16_t",  "uint16_t",      "int32_t",
                                              "uint32_t", "int64_t", "uint64_t", "size_t",        "float2",
                                              "float4",   "double2", "signed"};
  return words.count(w) > 0;
}

}  // namespace

std::vector<std::string> literal_template_arguments(const std::string& text, const std::string& kernel) {
  const std::string name = unqualified_name(kernel);
  const auto t = tokenize_code(text);
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].text != name || t[i + 1].text != "<") continue;
    if (i > 0 && (t[i - 1].text == "." || t[i - 1].text == "->")) continue;
    size_t close = i + 1;
    bool literal = true;
    for (int depth = 0; close < t.size(); ++close) {
      const std::string& x = t[close].text;
      if (x == "<" || x == "(") ++depth;
      else if ((x == ">" || x == ")") && --depth == 0) break;
      else if (x == ";" || x == "{" || x == "<<<" || x == ">>>") {
        literal = false;
        break;
      }
      if (close == i + 1) continue;
      const bool ok = t[close].kind == CodeToken::number || literal_word(x) ||
                      (t[close].kind == CodeToken::punct && std::string("-+*(),").find(x) != std::string::npos);
      literal = literal && ok;
    }
    if (!literal || close >= t.size() || close == i + 2) continue;
    std::string args;
    for (const auto& a : split_components(text.substr(t[i + 2].begin, t[close - 1].end - t[i + 2].begin)))
      args += (args.empty() ? "" : ", ") + a;
    if (std::find(out.begin(), out.end(), args) == out.end()) out.push_back(args);
  }
  return out;
}

std::optional<std::vector<std::string>> dim3_components(const std::string& text, size_t site,
                                                        const std::string& written) {
  const std::string part = trimmed(written);
  static const std::regex inline_dim3(R"(^dim3\s*[({])");
  if (std::regex_search(part, inline_dim3)) {
    const size_t open = part.find_first_of("({");
    const size_t end = past_matching(part, open);
    if (end == std::string::npos) return std::nullopt;
    return split_components(part.substr(open + 1, end - open - 2));
  }
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(part, identifier)) return std::vector<std::string>{part};
  // The last definition of the name before the site: `dim3 NAME(...)`, `dim3 a(..), NAME{..}`,
  // `dim3 NAME = dim3(...)` / `= {...}`, `NAME = dim3(...)`.
  const std::string before = text.substr(0, std::min(site, text.size()));
  const std::regex declared(R"(\bdim3\s[^;]*?\b)" + part + R"(\s*([({;=]))");
  const std::regex assigned(R"(\b)" + part + R"(\s*=\s*dim3\s*([({]))");
  size_t at = std::string::npos;
  bool is_dim3 = false;
  for (const auto* re : {&declared, &assigned})
    for (auto it = std::sregex_iterator(before.begin(), before.end(), *re); it != std::sregex_iterator(); ++it) {
      is_dim3 = true;
      const size_t bracket = static_cast<size_t>(it->position(1));
      if (at == std::string::npos || bracket > at) at = bracket;
    }
  if (!is_dim3) return std::vector<std::string>{part};
  if (before[at] == '=') {  // `= dim3(...)` or `= {...}`
    at = before.find_first_of("({;", at);
    if (at == std::string::npos || before[at] == ';') return std::nullopt;
  }
  if (before[at] == ';') return std::nullopt;  // `dim3 grid;` then set member by member
  const size_t end = past_matching(before, at);
  if (end == std::string::npos) return std::nullopt;
  return split_components(before.substr(at + 1, end - at - 2));
}

std::optional<CeilDivision> ceil_division(const std::string& written) {
  const std::string c = trimmed(written);
  static const std::regex rounded(R"(^\(\s*(.+?)\s*\+\s*(.+?)\s*\)\s*/\s*([\w.]+)$)");
  std::smatch m;
  if (std::regex_match(c, m, rounded)) {
    const std::string add = m[2].str(), divisor = m[3].str();
    static const std::regex minus_one(R"(^\(?\s*([\w.]+)\s*-\s*1\s*\)?$)");
    std::smatch d;
    const bool one_less = (std::regex_match(add, d, minus_one) && d[1].str() == divisor) ||
                          (integer_value(add) && integer_value(divisor) &&
                           *integer_value(add) + 1 == *integer_value(divisor));
    if (one_less) return CeilDivision{m[1].str(), divisor};
    return std::nullopt;
  }
  static const std::regex call(R"(^(\w+)\s*\(\s*(.+)\s*,\s*(\w+)\s*\)$)");
  if (std::regex_match(c, m, call)) {
    std::string f = m[1].str();
    f.erase(std::remove(f.begin(), f.end(), '_'), f.end());
    f = lower(f);
    if (f == "ceildiv" || f == "cdiv" || f == "divup" || f == "idivup" || f == "divceil")
      return CeilDivision{trimmed(m[2].str()), m[3].str()};
  }
  return std::nullopt;
}

}  // namespace kb::cuda_source
