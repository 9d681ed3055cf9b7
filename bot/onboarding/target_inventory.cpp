#include "bot/onboarding/target_inventory.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>

#include "bot/onboarding/kernel_target_table.h"
#include "config/config.h"
#include "cuda_source/reading/include_dirs_guess.h"

namespace kb::bot {

std::string TargetInventory::counts() const {
  return std::to_string(launchers.size()) + " launcher(s) and " + std::to_string(kernel_targets.size()) +
         " kernel target(s)";
}

bool launches_itself(const cuda_source::ScannedLauncher& l) {
  return std::any_of(l.launches.begin(), l.launches.end(),
                     [](const cuda_source::ScannedLaunch& s) { return s.in_launcher_scope(); });
}

TargetInventory take_inventory(const cuda_source::ScanResult& scan, const AliasesOf& aliases_of) {
  TargetInventory out;
  for (const auto& launcher : scan.launchers) {
    // Device-side launches are no host entry points.
    if (launcher.is_kernel || !launches_itself(launcher)) continue;
    // main() and functions with a parameter no role drives: their inline launches are kernel targets.
    if (undrivable_launcher(launcher, aliases_of(launcher.file))) {
      std::set<std::string> done;
      for (const auto& launch : launcher.launches) {
        // A helper's launch is the helper's to describe: it is a launcher of its own.
        if (!launch.in_launcher_scope() || !done.insert(launch.kernel).second) continue;
        const cuda_source::ScannedKernel* kernel = nullptr;
        for (const auto& k : scan.kernels)
          if (k.is_definition && cuda_source::unqualified_name(k.name) == cuda_source::unqualified_name(launch.kernel))
            kernel = &k;
        if (!kernel) continue;  // defined where the scan did not look: nothing to write
        auto sites = cuda_source::kernel_launch_sites(scan, launch.kernel);
        if (sites.empty()) continue;
        out.kernel_targets.push_back({&launcher, kernel, std::move(sites)});
      }
    }
    if (cuda_source::unqualified_name(launcher.name) != "main") out.launchers.push_back(&launcher);
  }
  return out;
}

TargetInventory take_inventory(const cuda_source::ScanResult& scan, const std::filesystem::path& root) {
  const std::vector<std::string> include_dirs =
      cuda_source::guess_include_dirs(root, scan.files, config::ProjectConfig{}.discover_exclude);
  std::map<std::string, cuda_source::TypeAliases> aliases;
  return take_inventory(scan, [&](const std::string& file) -> const cuda_source::TypeAliases& {
    auto it = aliases.find(file);
    if (it == aliases.end())
      it = aliases.emplace(file, cuda_source::collect_type_aliases(root, file, include_dirs)).first;
    return it->second;
  });
}

bool name_matches(const std::string& name, const std::string& pattern) {
  if (pattern.find_first_of("*?[") != std::string::npos)
    return fnmatch(pattern.c_str(), name.c_str(), 0) == 0 ||
           fnmatch(pattern.c_str(), cuda_source::unqualified_name(name).c_str(), 0) == 0;
  return name.find(pattern) != std::string::npos;
}

}  // namespace kb::bot
