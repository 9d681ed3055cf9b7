#include "cuda_source/reading/param_usage.h"

#include <algorithm>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

// The tokens with `<=`, `>=`, `<<` and `>>` joined where written together, so that a shift is not
// read as two comparisons.
std::vector<CodeToken> joined_tokens(const std::string& text, size_t begin, size_t end) {
  std::vector<CodeToken> out;
  for (auto& t : tokenize_code(text, begin, end)) {
    if (!out.empty() && t.kind == CodeToken::punct && out.back().kind == CodeToken::punct &&
        out.back().end == t.begin) {
      const std::string pair = out.back().text + t.text;
      if (pair == "<=" || pair == ">=" || pair == "<<" || pair == ">>") {
        out.back().text = pair;
        out.back().end = t.end;
        continue;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool comparison(const std::string& t) { return t == "<" || t == "<=" || t == ">" || t == ">="; }

bool is_integer_type(const std::string& type) {
  if (type.find_first_of("*&") != std::string::npos) return false;
  static const char* ints[] = {"int",     "unsigned", "long",     "short",     "size_t",  "int64_t",
                               "int32_t", "uint32_t", "uint64_t", "ptrdiff_t", "index_t", "unsigned int"};
  const size_t space = type.find_last_of(' ');
  const std::string last = space == std::string::npos ? type : type.substr(space + 1);
  return std::any_of(std::begin(ints), std::end(ints), [&](const char* i) { return last == i; });
}

// Where a member access or a scope makes `name` another thing than the parameter.
bool qualified(const std::vector<CodeToken>& t, size_t i) {
  return i > 0 && (t[i - 1].text == "." || t[i - 1].text == "->" || t[i - 1].text == "::");
}

// The arguments of the call whose '(' is at `open`, as token ranges, and the index past ')'.
std::vector<std::pair<size_t, size_t>> call_arguments(const std::vector<CodeToken>& t, size_t open, size_t& close) {
  std::vector<std::pair<size_t, size_t>> args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "(" || x == "[" || x == "{") ++depth;
    else if (x == ")" || x == "]" || x == "}") {
      if (--depth == 0) {
        args.push_back({start, i});
        close = i;
        return args;
      }
    } else if (x == "," && depth == 1) {
      args.push_back({start, i});
      start = i + 1;
    }
  }
  close = t.size();
  return args;
}

bool range_names(const std::vector<CodeToken>& t, std::pair<size_t, size_t> r, const std::string& name) {
  for (size_t i = r.first; i < r.second; ++i)
    if (t[i].text == name && !qualified(t, i)) return true;
  return false;
}

}  // namespace

std::set<std::string> bounding_params(const std::string& body, const std::vector<ScannedParam>& params) {
  std::set<std::string> ints;
  for (const auto& p : params)
    if (!p.name.empty() && is_integer_type(p.type)) ints.insert(p.name);
  const auto t = joined_tokens(body, 0, body.size());
  std::set<std::string> out;
  int subscript = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "[") ++subscript;
    else if (x == "]" && subscript > 0) --subscript;
    if (t[i].kind != CodeToken::identifier || !ints.count(x) || qualified(t, i)) continue;
    // Compared with something that varies (an index), not with a literal: `mode > 0` tests a
    // flag, `k < K` bounds a loop.
    const bool compared = (i >= 2 && comparison(t[i - 1].text) && t[i - 2].kind != CodeToken::number) ||
                          (i + 2 < t.size() && comparison(t[i + 1].text) && t[i + 2].kind != CodeToken::number);
    if (compared || subscript > 0) out.insert(x);
  }
  return out;
}

std::map<std::string, std::string> host_used_pointers(const std::string& text, size_t begin, size_t end,
                                                      const std::vector<ScannedParam>& params) {
  std::set<std::string> pointers;
  for (const auto& p : params)
    if (!p.name.empty() && p.type.find('*') != std::string::npos) pointers.insert(p.name);
  auto t = joined_tokens(text, begin, end);
  // The body: from the first '{' outside the parameter list's parentheses.
  size_t body = 0;
  for (int depth = 0; body < t.size(); ++body) {
    if (t[body].text == "(") ++depth;
    else if (t[body].text == ")") --depth;
    else if (t[body].text == "{" && depth == 0) break;
  }
  std::map<std::string, std::string> out;
  auto note = [&](const std::string& name, const std::string& how, size_t at) {
    if (!out.count(name)) out[name] = how + " at line " + std::to_string(line_of(text, t[at].begin));
  };
  for (size_t i = body; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if ((x == "cudaMemcpy" || x == "cudaMemcpyAsync") && i + 1 < t.size() && t[i + 1].text == "(") {
      size_t close = 0;
      const auto args = call_arguments(t, i + 1, close);
      if (args.size() < 4) continue;
      const bool to_device = range_names(t, args[3], "cudaMemcpyHostToDevice");
      const bool to_host = range_names(t, args[3], "cudaMemcpyDeviceToHost");
      for (const auto& p : pointers) {
        if (to_device && range_names(t, args[1], p)) note(p, "the source of " + x + "(..., cudaMemcpyHostToDevice)", i);
        if (to_host && range_names(t, args[0], p))
          note(p, "the destination of " + x + "(..., cudaMemcpyDeviceToHost)", i);
      }
      continue;
    }
    if (t[i].kind != CodeToken::identifier || !pointers.count(x) || qualified(t, i)) continue;
    const std::string next = i + 1 < t.size() ? t[i + 1].text : "";
    const std::string prev = i > body ? t[i - 1].text : "";
    // `*p` as a unary operator: after an operator or an opening bracket, not after a value.
    const bool unary_star = prev == "*" && i >= 2 &&
                            (t[i - 2].kind == CodeToken::punct && t[i - 2].text != ")" && t[i - 2].text != "]");
    if (next == "[" && prev != "&") note(x, "subscripted on the host (" + x + "[...])", i);
    else if (next == "->") note(x, "dereferenced on the host (" + x + "->...)", i);
    else if (unary_star) note(x, "dereferenced on the host (*" + x + ")", i);
  }
  return out;
}

std::map<std::string, size_t> device_set_pointers(const std::string& text, size_t begin, size_t end,
                                                  const std::vector<ScannedParam>& params) {
  std::set<std::string> pointers;
  for (const auto& p : params)
    if (!p.name.empty() && p.type.find('*') != std::string::npos) pointers.insert(p.name);
  const auto t = joined_tokens(text, begin, end);
  std::map<std::string, size_t> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const std::string& x = t[i].text;
    const bool sets = x == "cudaMemset" || x == "cudaMemsetAsync" || x == "cudaMemcpy" || x == "cudaMemcpyAsync";
    if (!sets || t[i + 1].text != "(") continue;
    size_t close = 0;
    const auto args = call_arguments(t, i + 1, close);
    if (args.empty()) continue;
    for (const auto& p : pointers)
      if (range_names(t, args[0], p)) out.emplace(p, t[i].begin);
  }
  return out;
}

}  // namespace kb::cuda_source
