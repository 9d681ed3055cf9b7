#include "cuda_source/tokens/preprocessing_tokens.h"

#include <array>
#include <cctype>
#include <cstring>

namespace kb::cuda_source {
namespace {

bool ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

// Translation phase 2: the text without backslash-newlines, and the original line of each byte.
struct Spliced {
  std::string text;
  std::vector<int> line;
};

Spliced splice(const std::string& s) {
  Spliced out;
  out.text.reserve(s.size());
  out.line.reserve(s.size());
  int line = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      size_t j = i + 1;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;  // GCC allows spaces
      if (j < s.size() && s[j] == '\n') {
        i = j;
        ++line;
        continue;
      }
    }
    out.text += s[i];
    out.line.push_back(line);
    if (s[i] == '\n') ++line;
  }
  return out;
}

// Punctuators longest first, each with what it stands for (digraphs).
struct Punctuator {
  const char* spelling;
  const char* means;
};
constexpr std::array<Punctuator, 38> kPunctuators = {{
    {"%:%:", "##"}, {"...", "..."}, {"<<=", "<<="}, {">>=", ">>="}, {"->*", "->*"}, {"<=>", "<=>"}, {"##", "##"},
    {"%:", "#"},    {"<:", "["},    {":>", "]"},    {"<%", "{"},    {"%>", "}"},    {"::", "::"},   {"->", "->"},
    {"++", "++"},   {"--", "--"},   {"<<", "<<"},   {">>", ">>"},   {"<=", "<="},   {">=", ">="},   {"==", "=="},
    {"!=", "!="},   {"&&", "&&"},   {"||", "||"},   {"+=", "+="},   {"-=", "-="},   {"*=", "*="},   {"/=", "/="},
    {"%=", "%="},   {"&=", "&="},   {"|=", "|="},   {"^=", "^="},   {".*", ".*"},   {"#", "#"},     {"{", "{"},
    {"}", "}"},     {"[", "["},     {"]", "]"},
}};

bool is_prefix(const std::string& word, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes)
    if (word == p) return true;
  return false;
}

}  // namespace

PpTokens preprocessing_tokens(const std::string& original) {
  PpTokens out;
  // Trigraphs are replaced before anything else where a compiler still honours them (-std=c++14):
  // `??=include` would be an #include no later step sees. None is needed in a kernel.
  static const char kTrigraphEnds[] = "=/'()!<>-";
  int trigraph_line = 1;
  for (size_t i = 0; i + 2 < original.size(); ++i) {
    if (original[i] == '\n') ++trigraph_line;
    if (original[i] == '?' && original[i + 1] == '?' && original[i + 2] != '\0' &&
        std::strchr(kTrigraphEnds, original[i + 2]))
      out.problems.push_back({"a trigraph", trigraph_line});
  }
  const Spliced sp = splice(original);
  const std::string& s = sp.text;
  auto problem = [&](size_t at, const std::string& why) {
    out.problems.push_back({why, at < sp.line.size() ? sp.line[at] : (sp.line.empty() ? 1 : sp.line.back())});
  };
  bool line_start = true, in_directive = false;
  // After `# include` (and its kin): the next token is a header name.
  enum { none, hash, include } directive_state = none;
  size_t i = 0;
  auto push = [&](PpToken::Kind kind, size_t begin, std::string text) {
    PpToken t;
    t.kind = kind;
    t.text = std::move(text);
    t.line = sp.line[begin];
    t.in_directive = in_directive;
    out.tokens.push_back(std::move(t));
  };
  // A quoted literal from `begin` (the opening quote at `quote`) to its closing quote.
  auto quoted = [&](size_t begin, size_t quote, PpToken::Kind kind) -> bool {
    const char q = s[quote];
    size_t j = quote + 1;
    while (j < s.size() && s[j] != q && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
    if (j >= s.size() || s[j] != q) return false;
    push(kind, begin, s.substr(begin, j + 1 - begin));
    i = j + 1;
    return true;
  };
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      line_start = true;
      in_directive = false;
      directive_state = none;
      ++i;
      continue;
    }
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t close = s.find("*/", i + 2);
      if (close == std::string::npos) {
        problem(i, "an unterminated /* comment");
        return out;
      }
      i = close + 2;
      continue;
    }
    const bool first_on_line = line_start;
    line_start = false;
    if (directive_state == include && (c == '<' || c == '"')) {
      const size_t close = s.find(c == '<' ? '>' : '"', i + 1);
      const size_t eol = s.find('\n', i);
      directive_state = none;
      if (close == std::string::npos || (eol != std::string::npos && close > eol)) {
        problem(i, "an unterminated #include operand");
      } else {
        push(PpToken::header_name, i, s.substr(i, close + 1 - i));
        i = close + 1;
        continue;
      }
    }
    if (ident_start(c)) {
      size_t j = i;
      while (j < s.size() && ident_char(static_cast<unsigned char>(s[j]))) ++j;
      const std::string word = s.substr(i, j - i);
      if (j < s.size() && s[j] == '"' && is_prefix(word, {"R", "u8R", "uR", "UR", "LR"})) {
        // R"delim( ... )delim"
        const size_t open = s.find('(', j + 1);
        const size_t close = open == std::string::npos || open - j - 1 > 16
                                 ? std::string::npos
                                 : s.find(")" + s.substr(j + 1, open - j - 1) + "\"", open + 1);
        if (close != std::string::npos) {
          const size_t after = close + (open - j) + 1;  // ")" + delimiter + '"'
          push(PpToken::string_literal, i, s.substr(i, after - i));
          i = after;
          continue;
        }
        // Read on from the quote, as code: the compiler stops here with an error.
        problem(i, "an unterminated or malformed raw string literal");
        push(PpToken::identifier, i, word);
        i = j;
        continue;
      }
      if (j < s.size() && (s[j] == '"' || s[j] == '\'') && is_prefix(word, {"u8", "u", "U", "L"})) {
        if (quoted(i, j, s[j] == '"' ? PpToken::string_literal : PpToken::char_literal)) continue;
        push(PpToken::identifier, i, word);  // the prefix; its lone quote follows as punctuation
        i = j;
        continue;
      }
      push(PpToken::identifier, i, word);
      i = j;
      if (directive_state == hash && (word == "error" || word == "warning")) {
        // A message, not code: "don't" in it is no unterminated literal.
        while (i < s.size() && s[i] != '\n') ++i;
      }
      directive_state = directive_state == hash &&
                                (word == "include" || word == "include_next" || word == "import" || word == "embed")
                            ? include
                            : none;
      continue;
    }
    directive_state = none;
    if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i + 1;
      while (j < s.size()) {
        const unsigned char d = static_cast<unsigned char>(s[j]);
        if ((d == '+' || d == '-') && std::strchr("eEpP", s[j - 1])) ++j;
        else if (d == '\'' && j + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[j + 1]))) j += 2;
        else if (ident_char(d) || d == '.') ++j;
        else break;
      }
      push(PpToken::number, i, s.substr(i, j - i));
      i = j;
      continue;
    }
    if ((c == '"' || c == '\'') && quoted(i, i, c == '"' ? PpToken::string_literal : PpToken::char_literal)) continue;
    // A lone quote or a stray backslash is one punctuator (below), and reading goes on.
    std::string means(1, static_cast<char>(c));
    size_t length = 1;
    for (const auto& p : kPunctuators) {
      const size_t n = std::strlen(p.spelling);
      if (s.compare(i, n, p.spelling) == 0) {
        means = p.means;
        length = n;
        break;
      }
    }
    if (means == "#" && first_on_line) {
      in_directive = true;
      directive_state = hash;
      push(PpToken::punct, i, means);
      out.tokens.back().directive_start = true;
    } else {
      push(PpToken::punct, i, means);
    }
    i += length;
  }
  return out;
}

std::string string_literal_value(const std::string& t) {
  const size_t quote = t.find('"');
  if (quote == std::string::npos || t.size() < quote + 2) return {};
  if (quote > 0 && t[quote - 1] == 'R') {
    const size_t open = t.find('(', quote);
    const size_t close = t.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    return t.substr(open + 1, close - open - 1);
  }
  std::string v;
  for (size_t i = quote + 1; i + 1 < t.size(); ++i) {
    if (t[i] != '\\' || i + 2 >= t.size()) {
      v += t[i];
      continue;
    }
    const char e = t[++i];
    if (e == 'x') {
      int value = 0, digits = 0;
      while (i + 1 < t.size() - 1 && std::isxdigit(static_cast<unsigned char>(t[i + 1]))) {
        const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(t[++i])));
        value = (value * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : h - 'a' + 10)) & 0xff;
        ++digits;
      }
      v += digits ? static_cast<char>(value) : 'x';
    } else if (e >= '0' && e <= '7') {
      int value = e - '0';
      for (int k = 0; k < 2 && i + 1 < t.size() - 1 && t[i + 1] >= '0' && t[i + 1] <= '7'; ++k)
        value = value * 8 + (t[++i] - '0');
      v += static_cast<char>(value & 0xff);
    } else {
      static const char kFrom[] = "ntrvfab", kTo[] = "\n\t\r\v\f\a\b";
      const char* at = std::strchr(kFrom, e);
      v += at && e ? kTo[at - kFrom] : e;
    }
  }
  return v;
}

}  // namespace kb::cuda_source
