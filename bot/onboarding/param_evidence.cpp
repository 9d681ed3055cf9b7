#include "bot/onboarding/param_evidence.h"

#include <regex>

#include "cuda_source/reading/param_usage.h"

namespace kb::bot {
namespace {

using cuda_source::ScannedKernel;
using cuda_source::ScannedParam;

bool const_pointer(const std::string& type) {
  // `const T*` / `T const*`: a const before the (only) star. `T* const` is a const pointer to
  // writable data.
  const size_t star = type.find('*');
  if (star == std::string::npos) return false;
  const std::string before = type.substr(0, star);
  static const std::regex word_const(R"((^|\W)const(\W|$))");
  return std::regex_search(before, word_const);
}

const ScannedKernel* definition(const cuda_source::ScanResult& scan, const std::string& name, size_t arity) {
  return cuda_source::kernel_definition(scan, name, arity);  // indexed: a file of N launchers is not N^2
}

// The launcher's pointer parameter an argument passes (`A`, `A + off`, `(float*)A`), if one.
std::optional<std::string> pointer_passed(const std::string& argument, const std::set<std::string>& pointers) {
  static const std::regex word(R"([A-Za-z_]\w*)");
  for (auto it = std::sregex_iterator(argument.begin(), argument.end(), word); it != std::sregex_iterator(); ++it) {
    const size_t after = static_cast<size_t>(it->position() + it->length());
    const bool subscripted = argument.find_first_not_of(' ', after) != std::string::npos &&
                             argument[argument.find_first_not_of(' ', after)] == '[';
    const bool member = it->position() > 0 && argument[static_cast<size_t>(it->position()) - 1] == '.';
    if (pointers.count(it->str()) && !subscripted && !member) return it->str();
  }
  return std::nullopt;
}

std::string described(const cuda_source::BufferAccess& a, const std::string& table_file) {
  return a.file == table_file || a.file.empty() ? a.where()
                                                : a.file + ":" + std::to_string(a.line) + " `" + a.excerpt + "`";
}

}  // namespace

RoleFromUses role_from_uses(const cuda_source::BufferUses& u, const std::string& table_file) {
  RoleFromUses out;
  if (u.unseen) {
    out.why_not = *u.unseen;
    return out;
  }
  if (u.read() && u.written()) {
    out.role = ArgRole::inout;
    out.note = "read and written: " + described(u.read_and_written ? *u.read_and_written : *u.first_read, table_file);
  } else if (u.read()) {
    out.role = ArgRole::input;
    out.note = "read only: " + described(*u.first_read, table_file);
  } else if (u.written()) {
    out.role = ArgRole::output;
    out.note = "written only: " + described(*u.first_write, table_file);
  } else {
    out.why_not = "the kernel neither reads nor writes it, as far as its text tells";
  }
  return out;
}

ParamEvidence read_param_evidence(const cuda_source::ScannedLauncher& l, const cuda_source::ScanResult& scan,
                                  const std::function<const std::string&(const std::string&)>& text_of) {
  ParamEvidence out;
  std::set<std::string> written;  // passed to some kernel's non-const pointer parameter
  std::map<std::string, std::string> const_seen;
  std::set<std::string> pointer_params;
  for (const auto& p : l.params)
    if (!p.name.empty() && p.type.find('*') != std::string::npos) pointer_params.insert(p.name);
  const auto lookup = cuda_source::scanned_function_lookup(scan, text_of);
  for (const auto& launch : l.launches) {
    // Through a helper, the arguments are the helper's names: nothing said about the launcher's.
    if (!launch.in_launcher_scope()) continue;
    const ScannedKernel* k = definition(scan, launch.kernel, launch.arguments.size());
    if (!k) continue;
    const std::string& text = text_of(k->file);
    const std::set<std::string> bounds = k->end <= text.size()
                                             ? cuda_source::bounding_params(text.substr(k->begin, k->end - k->begin),
                                                                            k->params)
                                             : std::set<std::string>{};
    const auto uses = k->end <= text.size()
                          ? cuda_source::buffer_uses({&text, k->file, k->begin, k->end, k->params}, lookup)
                          : std::map<std::string, cuda_source::BufferUses>{};
    for (size_t j = 0; j < launch.arguments.size(); ++j) {
      const std::string& passed = launch.arguments[j];
      const ScannedParam& kp = k->params[j];
      if (auto u = uses.find(kp.name); u != uses.end())
        if (auto buffer = pointer_passed(passed, pointer_params)) cuda_source::merge_uses(out.uses[*buffer], u->second);
      if (kp.type.find('*') != std::string::npos) {
        if (const_pointer(kp.type)) const_seen.emplace(passed, k->name + "(" + kp.type + " " + kp.name + ")");
        else written.insert(passed);
      } else if (bounds.count(kp.name)) {
        out.bounds_in_kernel.emplace(passed, k->name + ": " + kp.name);
      }
    }
  }
  for (const auto& p : l.params) {
    if (p.name.empty() || p.type.find('*') == std::string::npos || const_pointer(p.type)) continue;
    auto seen = const_seen.find(p.name);
    if (seen != const_seen.end() && !written.count(p.name)) out.const_in_kernel[p.name] = seen->second;
  }
  // Only the launcher's own parameters can be bounds or host pointers of the launcher.
  std::set<std::string> names;
  for (const auto& p : l.params) names.insert(p.name);
  for (auto it = out.bounds_in_kernel.begin(); it != out.bounds_in_kernel.end();)
    it = names.count(it->first) ? std::next(it) : out.bounds_in_kernel.erase(it);
  const std::string& text = text_of(l.file);
  if (l.end <= text.size()) out.host_pointers = cuda_source::host_used_pointers(text, l.begin, l.end, l.params);
  if (l.end <= text.size())
    for (const auto& [name, at] : cuda_source::device_set_pointers(text, l.begin, l.end, l.params)) {
      const auto set = cuda_source::access_at_offset(text, l.file, at);
      const int line = set.line;
      bool before_every_launch = true;
      for (const auto& launch : l.launches)
        for (const auto& a : launch.arguments)
          if (pointer_passed(a, pointer_params) == name && (!launch.in_launcher_scope() || launch.line <= line))
            before_every_launch = false;
      if (before_every_launch && !out.host_pointers.count(name)) out.set_by_launcher[name] = set;
    }
  return out;
}

bool workspace_like(const std::string& name) {
  static const std::regex re(
      R"((^|_)(d_)?(scratch|workspace|wspace|ws|tmp|temp|partials?|partial_\w+|flags?|locks?|mutex|counters?|semaphores?|barriers?)(_|$|\d))",
      std::regex::icase);
  static const std::regex camel(R"((scratch|workspace|Workspace|Scratch|Tmp|Partial|Flags|tmp[A-Z]|partial[A-Z]))");
  return std::regex_search(name, re) || std::regex_search(name, camel);
}

}  // namespace kb::bot
