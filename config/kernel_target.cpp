#include "config/kernel_target.h"

#include <algorithm>
#include <cctype>

#include "common/bracket_split.h"
#include "common/text.h"

namespace kb::config {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), ident_char);
}

// The key words of C++ that cannot name a variable the shim declares (the ones a parameter name
// from real code could plausibly be).
bool is_keyword(const std::string& s) {
  static const std::vector<std::string> words = {"auto",     "bool",     "break",   "case",     "char",   "class",
                                                 "const",    "default",  "delete",  "do",       "double", "else",
                                                 "enum",     "float",    "for",     "if",       "int",    "long",
                                                 "new",      "operator", "private", "public",   "return", "short",
                                                 "signed",   "sizeof",   "static",  "struct",   "switch", "template",
                                                 "this",     "typename", "union",   "unsigned", "using",  "void",
                                                 "volatile", "while"};
  return std::find(words.begin(), words.end(), s) != words.end();
}

}  // namespace

const std::vector<std::string>& kernel_target_reserved_names() {
  static const std::vector<std::string> names = {"block_x", "block_y", "block_z", "ceil_div", "min", "max"};
  return names;
}

std::vector<std::string> launch_components(const std::string& expression) {
  if (trim(expression).empty()) return {};
  return split_outside_brackets(expression, ',');
}

bool expression_reads(const std::string& expression, const std::string& name) {
  for (size_t at = expression.find(name); at != std::string::npos; at = expression.find(name, at + 1)) {
    bool starts = at == 0 || !ident_char(expression[at - 1]);
    bool ends = at + name.size() >= expression.size() || !ident_char(expression[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

std::vector<TargetProblem> kernel_target_problems(const KernelSpec& spec) {
  std::vector<TargetProblem> out;
  const bool launcher = !spec.launcher.empty(), global = !spec.global.empty();
  if (launcher && global)
    out.push_back({"global",
                   "give either 'launcher' (a host function that launches the kernel) or 'global' (the __global__ "
                   "function, launched by the harness), not both"});
  if (!launcher && !global)
    out.push_back({"launcher",
                   "missing required field 'launcher' (the host function that launches the kernel), or 'global' "
                   "(the __global__ function itself, with grid and block)"});
  if (!global) {
    for (const auto& [key, value] :
         {std::pair{"grid", &spec.grid}, std::pair{"block", &spec.block}, std::pair{"shared_bytes", &spec.shared_bytes},
          std::pair{"template_args", &spec.template_args}})
      if (!value->empty() && launcher)
        out.push_back({key, std::string("'") + key +
                                "' applies to kernel targets (global = \"...\"); a launcher chooses its own launch"});
    return out;
  }
  for (const auto& [key, value] : {std::pair{"grid", &spec.grid}, std::pair{"block", &spec.block}}) {
    auto parts = launch_components(*value);
    if (parts.empty())
      out.push_back({key, std::string("missing required field '") + key +
                              "' (a kernel target's launch: 1-3 expressions \"x, y, z\" over the kernel's arguments)"});
    else if (parts.size() > 3)
      out.push_back({key, "expected 1-3 components \"x, y, z\", got " + std::to_string(parts.size())});
    else if (std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); }))
      out.push_back({key, "a component is empty (expected \"x\", \"x, y\" or \"x, y, z\")"});
  }
  if (launch_components(spec.shared_bytes).size() > 1)
    out.push_back({"shared_bytes", "expected one expression (bytes of dynamic shared memory)"});
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const ArgSpec& a = spec.args[i];
    const std::string field = "arg[" + std::to_string(i) + "]";
    if (a.role == ArgRole::stream)
      out.push_back({field + ".role",
                     "a kernel target takes no stream argument: the harness launches the kernel on its own stream"});
    if (a.name.empty()) continue;  // reported as a missing name
    const auto& reserved = kernel_target_reserved_names();
    if (!is_identifier(a.name) || is_keyword(a.name) || a.name.starts_with("kb_") ||
        std::find(reserved.begin(), reserved.end(), a.name) != reserved.end())
      out.push_back({field + ".name", "'" + a.name +
                                          "' cannot name an argument of a kernel target: the launch expressions "
                                          "read the arguments by name, so each must be a C++ identifier other "
                                          "than block_x, block_y, block_z, ceil_div, min, max, kb_*"});
  }
  return out;
}

}  // namespace kb::config
