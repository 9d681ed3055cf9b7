// What `init` can write a [[kernel]] table for in a scanned tree, found and counted in one place:
// launcher targets (host functions that launch a kernel themselves, main() excepted) and kernel
// targets (kernels launched inline where no launcher can drive the launch). discover, init and
// config check report these counts, so one tree has one number whichever command asks and however
// `--kernel`/`--file` narrow init's choice; one matcher decides what a pattern chooses.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cuda_source/knobs/kernel_launch_sites.h"
#include "cuda_source/reading/type_aliases.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

struct FoundKernelTarget {
  const cuda_source::ScannedLauncher* launcher = nullptr;  // the function that launches it inline
  const cuda_source::ScannedKernel* kernel = nullptr;      // its definition
  std::vector<cuda_source::KernelLaunchSite> sites;        // every launch of it; the first is described
};

struct TargetInventory {
  std::vector<const cuda_source::ScannedLauncher*> launchers;  // launcher targets, in scan order
  std::vector<FoundKernelTarget> kernel_targets;               // in scan order of their launchers
  // "3 launcher(s) and 2 kernel target(s)": the words every command prints.
  std::string counts() const;
};

using AliasesOf = std::function<const cuda_source::TypeAliases&(const std::string& file)>;

// A function that launches only through helpers it calls (a test, a program, a wrapper) is no
// target of its own unless asked for by name: the helpers are launchers of their own.
bool launches_itself(const cuda_source::ScannedLauncher& launcher);

// The targets of `scan`, with parameter types resolved through `aliases_of` as init resolves them.
TargetInventory take_inventory(const cuda_source::ScanResult& scan, const AliasesOf& aliases_of);

// The same, with the aliases read through the include directories init guesses for `root`.
TargetInventory take_inventory(const cuda_source::ScanResult& scan, const std::filesystem::path& root);

// Whether `name` (a launcher's or a __global__'s, maybe qualified) matches `pattern`: a glob
// ("*gemm*", against the name or its unqualified form) or a substring.
bool name_matches(const std::string& name, const std::string& pattern);

}  // namespace kb::bot
