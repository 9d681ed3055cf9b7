#include "bot/checks/launch_names_check.h"

#include <algorithm>
#include <set>

#include "config/kernel_target.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::bot {
namespace {

// Words of C++ an expression may use that are no names to bind.
bool is_language_word(const std::string& w) {
  static const std::set<std::string> words = {"sizeof",        "alignof",  "static_cast", "reinterpret_cast",
                                              "const_cast",    "int",      "unsigned",    "signed",
                                              "long",          "short",    "char",        "float",
                                              "double",        "bool",     "size_t",      "int64_t",
                                              "int32_t",       "uint32_t", "uint64_t",    "true",
                                              "false",         "dim3",     "decltype",    "const",
                                              "std",           "half",     "__half",      "nv_bfloat16",
                                              "__nv_bfloat16", "float2",   "float4",      "int2",
                                              "int4",          "warpSize"};
  return words.count(w) > 0;
}

}  // namespace

std::vector<std::string> file_scope_names(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  for (const auto& text : texts) {
    for (const auto& d : cuda_source::read_directives(text))
      if (d.keyword == "define" && !d.name.empty()) out.push_back(d.name);
    // `const`/`constexpr` declarations and enumerators at file scope: the shim sees no function's
    // locals, and a namespace's constants only qualified (which is left to the compiler).
    const auto tokens = cuda_source::tokenize_code(text);
    int depth = 0;
    bool in_enum = false, after_constant = false;
    int enum_depth = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const auto& t = tokens[i];
      if (t.text == "{") {
        ++depth;
        continue;
      }
      if (t.text == "}") {
        --depth;
        if (in_enum && depth < enum_depth) in_enum = false;
        continue;
      }
      if (t.text == "enum" && depth == 0) {
        in_enum = true;
        enum_depth = depth + 1;
        continue;
      }
      if (t.text == ";") after_constant = false;
      if ((t.text == "constexpr" || t.text == "const") && depth == 0) after_constant = true;
      if (t.kind != cuda_source::CodeToken::identifier || i + 1 >= tokens.size()) continue;
      const std::string& next = tokens[i + 1].text;
      if (in_enum && depth == enum_depth && (next == "," || next == "=" || next == "}")) out.push_back(t.text);
      else if (after_constant && depth == 0 && (next == "=" || next == "{" || next == "[")) out.push_back(t.text);
    }
  }
  return out;
}

std::vector<LaunchNameProblem> launch_name_problems(const config::KernelSpec& k,
                                                    const std::vector<std::string>& defined,
                                                    const std::string& source_label) {
  std::vector<LaunchNameProblem> out;
  if (!k.is_global()) return out;
  std::set<std::string> bound, sizes, buffers;
  for (const auto& a : k.args) (role_is_buffer(a.role) ? buffers : bound).insert(a.name);
  for (const auto& set : k.sizes)
    for (const auto& [name, value] : set.values) sizes.insert(name);
  const auto& reserved = config::kernel_target_reserved_names();
  const std::set<std::string> known(defined.begin(), defined.end());
  for (const auto& [key, text] :
       {std::pair{"grid", &k.grid}, std::pair{"block", &k.block}, std::pair{"shared_bytes", &k.shared_bytes}}) {
    if (text->empty() || config::expression_reads(*text, config::todo_marker)) continue;  // unfinished: listed
    const auto tokens = cuda_source::tokenize_code(*text);
    std::set<std::string> reported;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const auto& t = tokens[i];
      if (t.kind != cuda_source::CodeToken::identifier) continue;
      // A qualified name or a member (`std::min`, `dims.x`) is the compiler's to judge.
      const bool qualified = (i > 0 && (tokens[i - 1].text == "::" || tokens[i - 1].text == ".")) ||
                             (i + 1 < tokens.size() && tokens[i + 1].text == "::");
      if (qualified || is_language_word(t.text) || bound.count(t.text) || known.count(t.text) ||
          std::find(reserved.begin(), reserved.end(), t.text) != reserved.end() || !reported.insert(t.text).second)
        continue;
      std::string why = "which is not an argument, a size or a macro of " + source_label;
      if (buffers.count(t.text)) why = "a buffer (a device pointer), not a number the launch can use";
      else if (sizes.count(t.text))
        why = "a size of the size sets that no [[kernel.arg]] passes: the launch binds only the arguments (add a "
              "size argument named " +
              t.text + ")";
      out.push_back({key, "\"" + *text + "\" names " + t.text + ", " + why});
    }
  }
  return out;
}

}  // namespace kb::bot
