#include "cuda_source/reading/buffer_extents.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

using Tokens = std::vector<std::string>;
using SizeSet = std::optional<std::set<std::string>>;  // nothing: cannot tell

// The body's tokens as text (cuda_source/tokens/code_tokens), with the two-character operators the
// guesser reads as one (`i <= n`, `x += off`) joined.
Tokens tokenize_body(const std::string& s) {
  static const std::set<std::string> two = {"<=", ">=", "==", "!=", "&&", "||", "<<",
                                            ">>", "++", "--", "+=", "-=", "*=", "/="};
  Tokens out;
  size_t previous_end = std::string::npos;
  bool previous_punct = false;
  for (const auto& t : tokenize_code(s)) {
    const bool punct = t.kind == CodeToken::punct;
    if (punct && previous_punct && t.begin == previous_end && two.count(out.back() + t.text)) out.back() += t.text;
    else out.push_back(t.text);
    previous_end = t.end;
    previous_punct = punct;
  }
  return out;
}

bool is_ident(const std::string& t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}

// Names that stand in index expressions without bounding anything: types in casts, the
// thread/block built-ins, qualifiers.
bool neutral(const std::string& t) {
  static const std::set<std::string> names = {"int",
                                              "unsigned",
                                              "long",
                                              "short",
                                              "char",
                                              "signed",
                                              "size_t",
                                              "int64_t",
                                              "int32_t",
                                              "uint32_t",
                                              "uint64_t",
                                              "ptrdiff_t",
                                              "float",
                                              "double",
                                              "const",
                                              "auto",
                                              "threadIdx",
                                              "blockIdx",
                                              "blockDim",
                                              "gridDim",
                                              "warpSize",
                                              "static_cast",
                                              "reinterpret_cast",
                                              "__restrict__",
                                              "volatile"};
  return names.count(t) > 0;
}

bool integer_type(const std::string& type) {
  if (type.find('*') != std::string::npos || type.find('&') != std::string::npos) return false;
  static const char* ints[] = {"int",     "unsigned", "long",     "short",     "size_t", "int64_t",
                               "int32_t", "uint32_t", "uint64_t", "ptrdiff_t", "index_t"};
  std::string last = type.substr(type.find_last_of(' ') == std::string::npos ? 0 : type.find_last_of(' ') + 1);
  return std::any_of(std::begin(ints), std::end(ints), [&](const char* i) { return last == i; });
}

class ExtentGuesser {
 public:
  ExtentGuesser(Tokens t, std::set<std::string> sizes) : t_(std::move(t)), sizes_(std::move(sizes)) {
    read_definitions();
    read_bounds();
  }

  // The union of the extents of every subscript of `name`, and of the pointers defined from it
  // (`const float* row = x + r * cols;` then `row[c]`: offset and index together), each
  // shifted by the offsets `name += ...` moves it by. Nothing when some index is unbounded.
  SizeSet extent_of_buffer(const std::string& name, int depth = 0) {
    if (depth > 4) return std::nullopt;
    std::set<std::string> total;
    bool any = false;
    SizeSet shift = std::set<std::string>{};
    for (size_t i = 0; i + 1 < t_.size(); ++i)
      if (t_[i] == name && t_[i + 1] == "+=" && !member_access(i)) {
        // A pointer moved by `blockIdx.y * K` reaches as many rows as there are blocks: known
        // only where the block index is bounded (`if (blockIdx.y >= M) return;`).
        SizeSet e = expand(i + 2, statement_end(i + 2), 0, true);
        if (!e) return std::nullopt;
        shift->insert(e->begin(), e->end());
      }
    for (size_t i = 0; i + 1 < t_.size(); ++i) {
      if (t_[i] != name || t_[i + 1] != "[" || member_access(i)) continue;
      size_t close = closing(i + 1);
      if (close >= t_.size()) return std::nullopt;
      SizeSet e = expand(i + 2, close, 0);
      if (!e || e->empty()) return std::nullopt;  // an index nothing bounds
      total.insert(e->begin(), e->end());
      any = true;
    }
    for (const auto& [view, offset] : views_of(name)) {
      SizeSet o = expand(offset.first, offset.second, 0);
      SizeSet v = extent_of_buffer(view, depth + 1);
      if (!o || !v) return std::nullopt;
      total.insert(o->begin(), o->end());
      total.insert(v->begin(), v->end());
      any = true;
    }
    if (!any) return std::nullopt;
    total.insert(shift->begin(), shift->end());
    return total;
  }

 private:
  size_t closing(size_t open) const {
    const std::string& o = t_[open];
    std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
    int depth = 0;
    for (size_t i = open; i < t_.size(); ++i) {
      if (t_[i] == o) ++depth;
      else if (t_[i] == c && --depth == 0) return i;
    }
    return t_.size();
  }

  size_t statement_end(size_t from) const {
    int depth = 0;
    for (size_t i = from; i < t_.size(); ++i) {
      if (t_[i] == "(" || t_[i] == "[") ++depth;
      else if ((t_[i] == ")" || t_[i] == "]") && --depth < 0) return i;
      else if ((t_[i] == ";" || t_[i] == ",") && depth == 0) return i;
    }
    return t_.size();
  }

  // Locals defined as `name + offset` or `&name[offset]`, with the offset's token range.
  std::vector<std::pair<std::string, std::pair<size_t, size_t>>> views_of(const std::string& name) const {
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> out;
    for (const auto& [local, ranges] : definitions_)
      for (const auto& [b, e] : ranges) {
        if (b + 2 < e && t_[b] == name && t_[b + 1] == "+") out.push_back({local, {b + 2, e}});
        else if (b + 3 < e && t_[b] == "&" && t_[b + 1] == name && t_[b + 2] == "[" && t_[e - 1] == "]")
          out.push_back({local, {b + 3, e - 1}});
      }
    return out;
  }

  bool member_access(size_t i) const { return i > 0 && (t_[i - 1] == "." || t_[i - 1] == "->"); }

  // `name = expr` (declarations and plain assignments; not `x.y =`, not `a[i] =`).
  void read_definitions() {
    for (size_t i = 1; i + 1 < t_.size(); ++i) {
      if (t_[i] != "=" || !is_ident(t_[i - 1]) || member_access(i - 1)) continue;
      size_t end = i + 1;
      int depth = 0;
      for (; end < t_.size(); ++end) {
        const std::string& x = t_[end];
        if (x == "(" || x == "[" || x == "{") ++depth;
        else if (x == ")" || x == "]" || x == "}") {
          if (--depth < 0) break;
        } else if ((x == ";" || x == ",") && depth == 0) break;
      }
      definitions_[t_[i - 1]].push_back({i + 1, end});
    }
  }

  // `i < n`, `i <= n`, `i >= n` (an early return), `n > i`: the names bounding an index.
  void read_bounds() {
    for (size_t i = 1; i + 1 < t_.size(); ++i) {
      const std::string& op = t_[i];
      if (op != "<" && op != "<=" && op != ">" && op != ">=") continue;
      // `blockIdx.y >= M`: a bound on the built-in index, by its name with the component.
      const std::string builtin = i >= 3 ? builtin_index(i - 3) : "";
      if (builtin.empty() && (!is_ident(t_[i - 1]) || member_access(i - 1) || neutral(t_[i - 1]))) continue;
      const std::string bounded = builtin.empty() ? t_[i - 1] : builtin;
      size_t end = i + 1;
      int depth = 0;
      for (; end < t_.size(); ++end) {
        const std::string& x = t_[end];
        if (x == "(" || x == "[") ++depth;
        else if (x == ")" || x == "]") {
          if (--depth < 0) break;
        } else if (depth == 0 && (x == "&&" || x == "||" || x == ";" || x == "?" || x == "," || x == "{")) break;
      }
      if (op == ">") {  // n > i: i is bounded by n
        if (builtin.empty() && end == i + 2 && is_ident(t_[i + 1])) bounds_[t_[i + 1]].push_back({i - 1, i});
      } else {
        bounds_[bounded].push_back({i + 1, end});
      }
    }
  }

  // `blockIdx.y` / `threadIdx.x` at i: the built-in with its component, for the bounds read on it.
  std::string builtin_index(size_t i) const {
    if (i + 2 >= t_.size() || (t_[i] != "blockIdx" && t_[i] != "threadIdx") || t_[i + 1] != ".") return "";
    return t_[i] + "." + t_[i + 2];
  }

  // The size names the tokens [begin, end) range over; a size right after '/' divides out. With
  // `strict`, a block or thread index nothing bounds makes the range unknown instead of neutral.
  SizeSet expand(size_t begin, size_t end, int depth, bool strict = false) {
    if (depth > 8) return std::nullopt;
    // `i % C` (the whole index, `bias[i % C]`): whatever i is, the index stays below C.
    if (end >= begin + 2 && t_[end - 2] == "%" && sizes_.count(t_[end - 1])) return std::set<std::string>{t_[end - 1]};
    std::set<std::string> out, divisors;
    for (size_t i = begin; i < end; ++i) {
      const std::string& x = t_[i];
      if (const std::string b = builtin_index(i); !b.empty()) {
        if (auto bound = bounds_.find(b); bound != bounds_.end()) {
          SizeSet e = union_of(bound->second, depth + 1);
          if (!e) return std::nullopt;
          out.insert(e->begin(), e->end());
        } else if (strict) {
          return std::nullopt;
        }
        continue;
      }
      if (!is_ident(x) || member_access(i) || neutral(x)) continue;
      if (i + 1 < end && (t_[i + 1] == "(" || t_[i + 1] == "<")) continue;  // a function or a cast
      if (i > begin && t_[i - 1] == "/" && sizes_.count(x)) {
        divisors.insert(x);
        continue;
      }
      SizeSet e = extent_of_name(x, depth + 1);
      if (!e) return std::nullopt;
      out.insert(e->begin(), e->end());
    }
    for (const auto& d : divisors) out.erase(d);
    return out;
  }

  SizeSet extent_of_name(const std::string& name, int depth) {
    if (sizes_.count(name)) return std::set<std::string>{name};
    if (!visiting_.insert(name).second) return std::nullopt;  // i = i + stride
    SizeSet result = std::nullopt;
    auto b = bounds_.find(name);
    auto d = definitions_.find(name);
    if (b != bounds_.end()) result = union_of(b->second, depth);
    else if (d != definitions_.end()) result = union_of(d->second, depth);
    visiting_.erase(name);
    return result;
  }

  SizeSet union_of(const std::vector<std::pair<size_t, size_t>>& ranges, int depth) {
    std::set<std::string> out;
    for (const auto& [b, e] : ranges) {
      SizeSet s = expand(b, e, depth);
      if (!s) return std::nullopt;
      out.insert(s->begin(), s->end());
    }
    return out;
  }

  Tokens t_;
  std::set<std::string> sizes_;
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> definitions_, bounds_;
  std::set<std::string> visiting_;
};

}  // namespace

std::map<std::string, BufferExtent> buffer_extents(const std::string& body, const std::vector<ScannedParam>& params) {
  std::set<std::string> sizes;
  for (const auto& p : params)
    if (!p.name.empty() && integer_type(p.type)) sizes.insert(p.name);
  ExtentGuesser guesser(tokenize_body(body), sizes);
  std::map<std::string, BufferExtent> out;
  for (const auto& p : params) {
    if (p.name.empty() || p.type.find('*') == std::string::npos) continue;
    BufferExtent e;
    if (SizeSet s = guesser.extent_of_buffer(p.name)) {
      e.known = true;
      for (const auto& q : params)  // in parameter order
        if (s->count(q.name)) e.sizes.push_back(q.name);
    }
    out[p.name] = e;
  }
  return out;
}

}  // namespace kb::cuda_source
