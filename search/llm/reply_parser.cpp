#include "search/llm/reply_parser.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "common/text.h"
#include "cuda_source/tokens/source_scanner.h"
#include "search/ideas/idea_family.h"
#include "search/llm/incomplete_code.h"

namespace kb::search {
namespace {

struct Block {
  std::string lang;
  std::string text;
  bool closed = false;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// Fenced blocks (``` or ~~~, three or more, optional language tag).
std::vector<Block> fenced_blocks(const std::string& reply) {
  std::vector<Block> blocks;
  auto lines = lines_of(reply);
  static const std::regex open_re(R"(^\s*(`{3,}|~{3,})\s*([A-Za-z0-9_+.#-]*)\s*.*$)");
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, open_re)) continue;
    const std::string fence = m[1];
    Block block;
    block.lang = m[2];
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      std::string t = trim(lines[j]);
      if (t.size() >= fence.size() && t.find_first_not_of(fence[0]) == std::string::npos) {
        block.closed = true;
        break;
      }
      block.text += lines[j] + "\n";
    }
    blocks.push_back(block);
    i = j;
  }
  return blocks;
}

bool looks_like_code_start(const std::string& line) {
  static const std::regex re(
      R"(^\s*(#\s*(include|define|if|pragma)|//|/\*|__global__|__device__|template\b|static\b|void\b|namespace\b|extern\b|struct\b|constexpr\b|inline\b|using\b|typedef\b))");
  return std::regex_search(line, re);
}

// Code written without fences: from the first line that starts like code to the last line
// that ends a statement or a block.
std::string unfenced_code(const std::string& reply) {
  auto lines = lines_of(reply);
  size_t first = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (looks_like_code_start(lines[i])) {
      first = i;
      break;
    }
  if (first == lines.size()) return "";
  size_t last = first;
  for (size_t i = first; i < lines.size(); ++i) {
    std::string t = trim(lines[i]);
    if (!t.empty() && (t.back() == '}' || t.back() == ';' || t.starts_with('#'))) last = i;
  }
  std::string out;
  for (size_t i = first; i <= last; ++i) out += lines[i] + "\n";
  return out;
}

// Braces balance outside comments, strings and character literals.
bool braces_balance(const std::string& code) {
  int depth = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '/' && i + 1 < code.size() && code[i + 1] == '/') {
      i = code.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c == '/' && i + 1 < code.size() && code[i + 1] == '*') {
      i = code.find("*/", i + 2);
      if (i == std::string::npos) return false;
      ++i;
    } else if (c == '"' || c == '\'') {
      for (++i; i < code.size() && code[i] != c; ++i)
        if (code[i] == '\\') ++i;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth < 0) return false;
    }
  }
  return depth == 0;
}

std::string string_field(const nlohmann::json& j, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (j.contains(n) && j[n].is_string()) return trim(j[n].get<std::string>());
  return "";
}

bool ideas_from_json(const nlohmann::json& j, std::vector<ProposedIdea>& out) {
  const nlohmann::json* list = nullptr;
  const nlohmann::json single = nlohmann::json::array({j});  // one idea written as an object
  if (j.is_array()) list = &j;
  else if (j.is_object() && j.contains("ideas") && j["ideas"].is_array()) list = &j["ideas"];
  else if (j.is_object() && !string_field(j, {"text", "idea", "description"}).empty()) list = &single;
  if (!list) return false;
  for (const auto& item : *list) {
    ProposedIdea idea;
    if (item.is_string()) {
      idea.idea.text = trim(item.get<std::string>());
    } else if (item.is_object()) {
      idea.idea.text = string_field(item, {"text", "idea", "description", "title", "name"});
      idea.idea.rationale = string_field(item, {"rationale", "why", "reason", "justification"});
      idea.idea.family = string_field(item, {"family", "category", "type"});
      idea.seed_id = string_field(item, {"seed", "seed_id", "base"});
    }
    if (idea.idea.text.empty()) continue;
    idea.idea.family = normalize_family(idea.idea.family.empty() ? idea.idea.text : idea.idea.family);
    out.push_back(std::move(idea));
  }
  return !out.empty();
}

// The bracketed value starting at `open` ('[' or '{'), respecting JSON strings; "" if unbalanced.
std::string balanced_from(const std::string& s, size_t open) {
  char o = s[open], c = o == '[' ? ']' : '}';
  int depth = 0;
  bool in_string = false;
  for (size_t i = open; i < s.size(); ++i) {
    char ch = s[i];
    if (in_string) {
      if (ch == '\\') ++i;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == o) ++depth;
    else if (ch == c && --depth == 0) return s.substr(open, i - open + 1);
  }
  return "";
}

// Removes commas that only precede a closing bracket (outside strings), as models write in
// JSON lists: [{"text": "a"},] -> [{"text": "a"}].
std::string without_trailing_commas(const std::string& s) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) out += s[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == ',') {
      size_t j = s.find_first_not_of(" \t\r\n", i + 1);
      if (j != std::string::npos && (s[j] == ']' || s[j] == '}')) continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

bool defines_function(const std::string& code, const std::string& name) {
  const std::string n = cuda_source::unqualified_name(name);
  std::regex call("\\b" + n + "\\s*\\(");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator(); ++it) {
    // Skip the balanced parameter list, then expect a body (qualifiers like noexcept allowed).
    size_t i = static_cast<size_t>(it->position(0) + it->length(0));
    int depth = 1;
    while (i < code.size() && depth > 0) {
      if (code[i] == '(') ++depth;
      if (code[i] == ')') --depth;
      ++i;
    }
    size_t j = code.find_first_of("{;", i);
    if (j != std::string::npos && code[j] == '{') {
      std::string between = code.substr(i, j - i);
      if (between.find('=') == std::string::npos && between.find(')') == std::string::npos) return true;
    }
  }
  return false;
}

namespace {

// The chosen block, preceded by the other blocks that define what it launches or calls but does
// not define itself (a model that shows the kernel in one block and the launcher in the next),
// in the reply's order; the last block defining a name wins, as for the launcher.
std::string joined_with_definitions(const std::vector<Block>& blocks, const Block& chosen) {
  static const std::regex use("\\b([A-Za-z_]\\w*)\\s*(<<<|\\()");
  std::vector<const Block*> joined = {&chosen};
  for (size_t pass = 0; pass < blocks.size(); ++pass) {
    bool added = false;
    std::string text;
    for (const Block* b : joined) text += b->text + "\n";
    for (auto it = std::sregex_iterator(text.begin(), text.end(), use); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      static const std::set<std::string> kKeywords = {"if",     "for",   "while",   "switch",   "return",
                                                      "sizeof", "catch", "alignof", "decltype", "__launch_bounds__",
                                                      "defined"};
      if (kKeywords.count(name) || defines_function(text, name)) continue;
      const Block* found = nullptr;
      for (const auto& b : blocks)
        if (std::find(joined.begin(), joined.end(), &b) == joined.end() && !is_unified_diff(b.text) &&
            defines_function(b.text, name))
          found = &b;
      if (found) {
        joined.push_back(found);
        added = true;
        break;
      }
    }
    if (!added) break;
  }
  if (joined.size() == 1) return chosen.text;
  std::string code;
  for (const auto& b : blocks)
    if (std::find(joined.begin(), joined.end(), &b) != joined.end() && &b != &chosen) code += b.text;
  return code + chosen.text;
}

}  // namespace

ExtractedCode extract_code(const std::string& reply, const std::string& finish_reason, const std::string& launcher,
                           const std::string& seed_source) {
  if (finish_reason == "length")
    return {"", "the reply was cut off at the token limit (finish_reason \"length\"); raise "
                "[llm].max_tokens_per_reply or ask for shorter code"};
  const std::string name = cuda_source::unqualified_name(launcher);
  const std::string diff_failure = "the reply is a unified diff, not the whole translation unit the prompt asks for";
  auto blocks = fenced_blocks(reply);
  const Block* chosen = nullptr;
  bool diff_seen = false;
  for (const auto& b : blocks) {
    const bool diff = b.lang == "diff" || b.lang == "patch" || is_unified_diff(b.text);
    diff_seen = diff_seen || diff;
    if (!diff && defines_function(b.text, launcher)) chosen = &b;  // the last one: models show "before" first
  }
  std::string code;
  if (chosen) {
    code = joined_with_definitions(blocks, *chosen);
  } else if (diff_seen) {
    return {"", diff_failure, false, true};
  } else if (!blocks.empty()) {
    return {"", "no code block in the reply defines the launcher `" + name + "`", false, true};
  } else {
    if (is_unified_diff(reply)) return {"", diff_failure, false, true};
    code = unfenced_code(reply);
    if (code.empty()) return {"", "the reply contains no code", true};
    if (!defines_function(code, launcher))
      return {"", "the reply's code does not define the launcher `" + name + "`", false, true};
  }
  if (std::string gap = elided_line(code, seed_source); !gap.empty())
    return {"",
            "the reply leaves code out (\"" + gap.substr(0, 80) +
                "\") instead of writing the whole translation unit the prompt asks for",
            false, true};
  if (!braces_balance(code))
    return {"", chosen && !chosen->closed ? "the reply's code block is unterminated and its braces do not balance"
                                          : "the reply's code has unbalanced braces"};
  return {code, ""};
}

ReasoningSplit split_reasoning(const std::string& content) {
  static const std::string open = "<think>", close = "</think>";
  ReasoningSplit out;
  std::string rest = content;
  bool found = false;
  // The chat template opened the block in the prompt: the reply starts inside it.
  if (size_t end = rest.find(close); end != std::string::npos && end < rest.find(open)) {
    out.reasoning = rest.substr(0, end);
    rest.erase(0, end + close.size());
    found = true;
  }
  for (;;) {
    size_t at = rest.find(open);
    if (at == std::string::npos) {
      out.answer += rest;
      break;
    }
    out.answer += rest.substr(0, at);
    found = true;
    size_t end = rest.find(close, at + open.size());
    if (!out.reasoning.empty()) out.reasoning += "\n";
    out.reasoning += rest.substr(at + open.size(),
                                 end == std::string::npos ? std::string::npos : end - at - open.size());
    if (end == std::string::npos) break;  // never closed: everything after it was reasoning
    rest.erase(0, end + close.size());
  }
  if (!found) return out;
  out.answer = trim(out.answer);
  out.reasoning = trim(out.reasoning);
  return out;
}

ParsedIdeas parse_ideas(const std::string& reply) {
  ParsedIdeas parsed;
  auto accept = [&](const std::string& text) {
    // Models write JSON with // and /* */ comments and trailing commas; both are read.
    auto j = nlohmann::json::parse(text, nullptr, false, /*ignore_comments=*/true);
    if (j.is_discarded()) j = nlohmann::json::parse(without_trailing_commas(text), nullptr, false, true);
    if (j.is_discarded()) return false;
    std::vector<ProposedIdea> ideas;
    if (!ideas_from_json(j, ideas)) return false;
    parsed.ideas = std::move(ideas);
    return true;
  };
  for (const auto& b : fenced_blocks(reply))
    if ((b.lang == "json" || b.lang.empty()) && accept(b.text)) return parsed;
  if (accept(reply)) return parsed;
  // JSON inside prose: each bracketed value in turn, the first that is a list of ideas wins.
  int tries = 0;
  for (size_t i = 0; i < reply.size() && tries < 200; ++i)
    if (reply[i] == '[' || reply[i] == '{') {
      ++tries;
      std::string s = balanced_from(reply, i);
      if (!s.empty() && accept(s)) return parsed;
    }
  parsed.failure = "the reply holds no JSON list of ideas";
  return parsed;
}

}  // namespace kb::search
