#include "bot/commands/init/starter_roles.h"

#include <algorithm>

namespace kb::bot {

StarterRoles starter_roles(const std::vector<cuda_source::ScannedParam>& params, const std::vector<ParamType>& types,
                           const ParamEvidence& evidence, const std::string& table_file) {
  StarterRoles out;
  out.roles.assign(params.size(), ArgRole::input);
  out.by_use.resize(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (types[i].kind != ParamKind::pointer) continue;
    const std::string& name = params[i].name;
    RoleFromUses& use = out.by_use[i];
    if (auto u = evidence.uses.find(name); u != evidence.uses.end()) use = role_from_uses(u->second, table_file);
    // What the kernels read of a buffer the launcher set first is the launcher's, not the caller's.
    if (auto set = evidence.set_by_launcher.find(name);
        set != evidence.set_by_launcher.end() && use.role && *use.role != ArgRole::output) {
      use.role = ArgRole::output;
      use.note = "set by the launcher first: " + set->second.where() + "; then " + use.note;
    }
    ArgRole& role = out.roles[i];
    if (use.role) role = *use.role;
    else if (!types[i].const_pointee && !evidence.const_in_kernel.count(name)) role = ArgRole::output;
    if (role != ArgRole::input && workspace_like(name)) role = ArgRole::workspace;
  }
  const auto compared = [](ArgRole r) { return r == ArgRole::output || r == ArgRole::inout; };
  if (std::none_of(out.roles.begin(), out.roles.end(), compared))
    for (size_t i = 0; i < params.size(); ++i)
      if (out.roles[i] == ArgRole::workspace)
        out.roles[i] = out.by_use[i].role && *out.by_use[i].role == ArgRole::inout ? ArgRole::inout : ArgRole::output;
  return out;
}

}  // namespace kb::bot
