#include "cuda_source/tokens/helper_launches.h"

#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace kb::cuda_source {
namespace {

// One launch site as a launcher reaches it: the same site reached along two paths is one launch.
using LaunchKey = std::tuple<std::string, int, std::string, std::string, std::string, std::string>;
LaunchKey key_of(const ScannedLaunch& l) { return {l.file, l.line, l.kernel, l.launch_config, l.via, l.api}; }

std::string scope_of(const std::string& qualified) {
  const size_t at = qualified.rfind("::");
  return at == std::string::npos ? "" : qualified.substr(0, at);
}

bool ends_with_name(const std::string& name, const std::string& written) {
  if (name == written) return true;
  return name.size() > written.size() + 2 && name.ends_with("::" + written);
}

// The identifiers of an argument as written ("&tiled<float, 64>" -> tiled, float).
std::vector<std::string> identifiers(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!std::isalpha(c) && c != '_') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

// Launches of function pointers: one per kernel among the names assigned to the variable, or the
// variable's own name when none is a kernel (a parameter, a pointer from elsewhere).
std::vector<ScannedLaunch> expand_variables(const std::vector<ScannedLaunch>& launches,
                                            const std::set<std::string>& kernels) {
  std::vector<ScannedLaunch> out;
  std::set<LaunchKey> sites;
  for (const auto& l : launches) {
    if (l.variable.empty()) {
      out.push_back(l);
      continue;
    }
    ScannedLaunch site = l;
    site.kernel = l.variable;
    if (!sites.insert(key_of(site)).second) continue;  // expanded already, by an earlier run
    bool any = false;
    for (const auto& name : l.assigned)
      if (kernels.count(name)) {
        ScannedLaunch one = site;
        one.kernel = name;
        out.push_back(one);
        any = true;
      }
    if (!any) out.push_back(site);
  }
  return out;
}

struct Reached {
  ScannedLaunch launch;
  size_t site;  // the function whose body holds the site
};

// The functions by qualified and by unqualified name, kernels left out: a call is looked up in
// a few map searches, not a pass over every function.
struct FunctionIndex {
  std::map<std::string, std::vector<size_t>> by_name, by_last;
  explicit FunctionIndex(const std::vector<ScannedLauncher>& functions) {
    for (size_t i = 0; i < functions.size(); ++i)
      if (!functions[i].is_kernel) {
        by_name[functions[i].name].push_back(i);
        by_last[unqualified_name(functions[i].name)].push_back(i);
      }
  }
};

std::vector<size_t> look_up(const FunctionIndex& index, const std::vector<ScannedLauncher>& functions,
                            const std::string& caller, const std::string& callee) {
  const bool global = callee.starts_with("::");
  const std::string written = global ? callee.substr(2) : callee;
  auto named = [&](const std::string& name) {
    auto it = index.by_name.find(name);
    return it == index.by_name.end() ? std::vector<size_t>{} : it->second;
  };
  if (!global)
    for (std::string scope = scope_of(caller); !scope.empty(); scope = scope_of(scope))
      if (auto found = named(scope + "::" + written); !found.empty()) return found;
  if (auto found = named(written); !found.empty()) return found;
  std::vector<size_t> out;
  if (auto it = index.by_last.find(unqualified_name(written)); it != index.by_last.end())
    for (size_t i : it->second)
      if (ends_with_name(functions[i].name, written)) out.push_back(i);
  return out;
}

}  // namespace

std::vector<size_t> called_functions(const std::vector<ScannedLauncher>& functions, const std::string& caller,
                                     const std::string& callee) {
  return look_up(FunctionIndex(functions), functions, caller, callee);
}

void resolve_launches(ScanResult& result) {
  std::set<std::string> kernels;
  for (const auto& k : result.kernels) kernels.insert(unqualified_name(k.name));
  // From the sites themselves: what an earlier run added through helpers goes.
  std::vector<ScannedLauncher> own;
  for (auto& l : result.launchers) {
    std::vector<ScannedLaunch> direct;
    for (const auto& launch : l.launches)
      if (launch.via.empty()) direct.push_back(launch);
    l.launches = expand_variables(direct, kernels);
    if (!l.launches.empty()) own.push_back(std::move(l));
  }
  const auto& functions = result.functions;
  const size_t n = functions.size();
  // A launcher is the function defined at the same place.
  std::map<std::pair<std::string, size_t>, size_t> own_at;
  for (size_t o = 0; o < own.size(); ++o) own_at.emplace(std::make_pair(own[o].file, own[o].begin), o);
  std::vector<std::vector<Reached>> reach(n);
  std::vector<std::set<LaunchKey>> keys(n);
  std::vector<const ScannedLauncher*> entry(n, nullptr);
  std::vector<bool> matched(own.size(), false);
  for (size_t i = 0; i < n; ++i) {
    auto it = own_at.find({functions[i].file, functions[i].begin});
    if (it == own_at.end() || matched[it->second] || own[it->second].name != functions[i].name) continue;
    matched[it->second] = true;
    entry[i] = &own[it->second];
    for (const auto& launch : own[it->second].launches)
      if (keys[i].insert(key_of(launch)).second) reach[i].push_back({launch, i});
  }
  // Who calls whom, once.
  std::vector<std::vector<std::pair<const ScannedCall*, size_t>>> callees(n);
  const FunctionIndex index(functions);
  for (size_t i = 0; i < n; ++i)
    for (const auto& call : functions[i].calls)
      for (size_t j : look_up(index, functions, functions[i].name, call.callee))
        if (j != i) callees[i].emplace_back(&call, j);
  // To a fixpoint: every pass adds what the callees reached in the last one; sets only grow and
  // are bounded by the sites and the names written, so recursion ends it too.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < n; ++i)
      for (const auto& [call, j] : callees[i])
        for (size_t r = 0; r < reach[j].size(); ++r) {
          const Reached got = reach[j][r];
          if (got.site == i) continue;  // its own site, reached back through a recursion
          ScannedLaunch launch = got.launch;
          launch.via = functions[got.site].name;
          // A kernel the helper was given as an argument: the site launches its parameter.
          std::vector<std::string> names{launch.kernel};
          if (!kernels.count(launch.kernel)) {
            const auto& params = functions[j].params;
            for (size_t p = 0; p < params.size() && p < call->arguments.size(); ++p) {
              if (params[p].name != launch.kernel) continue;
              names.clear();
              for (const auto& id : identifiers(call->arguments[p]))
                if (kernels.count(id)) names.push_back(id);
              const auto ids = identifiers(call->arguments[p]);
              if (names.empty() && ids.size() == 1) names.push_back(ids[0]);  // passed on from the caller's own
              if (names.empty()) names.push_back(launch.kernel);
              break;
            }
          }
          for (const auto& name : names) {
            ScannedLaunch one = launch;
            one.kernel = name;
            if (keys[i].insert(key_of(one)).second) {
              reach[i].push_back({one, got.site});
              changed = true;
            }
          }
        }
  }
  std::vector<ScannedLauncher> launchers;
  for (size_t i = 0; i < n; ++i) {
    if (reach[i].empty()) continue;
    ScannedLauncher l = entry[i] ? *entry[i] : functions[i];
    l.launches.clear();
    for (const auto& r : reach[i]) l.launches.push_back(r.launch);
    launchers.push_back(std::move(l));
  }
  for (size_t o = 0; o < own.size(); ++o)
    if (!matched[o]) launchers.push_back(std::move(own[o]));  // not among the functions: kept as read
  result.launchers = std::move(launchers);
  result.definitions_by_name.clear();
  for (size_t i = 0; i < result.kernels.size(); ++i)
    if (result.kernels[i].is_definition) result.definitions_by_name.emplace(result.kernels[i].name, i);
  result.functions_by_short_name.clear();
  for (size_t i = 0; i < result.functions.size(); ++i)
    result.functions_by_short_name.emplace(unqualified_name(result.functions[i].name), i);
}

}  // namespace kb::cuda_source
