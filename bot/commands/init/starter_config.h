// Writes the starter kernelbot.toml of `kernelbot init`: the commented global sections and one
// [[kernel]] table per chosen target that `discover` found (bot/onboarding/target_inventory.h). Roles come from the parameter types
// (through the aliases the source can see), counts from the indices the launched kernel uses,
// launch-configuration parameters from the <<<...>>> they stand in; every guess carries a
// `# check:` note, and what cannot be guessed is written "TODO" (which `config check` lists).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

struct StarterOptions {
  std::vector<std::string> kernel_patterns;  // glob ("*gemm*") or substring of the launcher's name
  std::vector<std::string> files;            // source files (relative to the root) to take launchers from
};

struct StarterConfig {
  std::string text;
  int tables = 0;         // [[kernel]] tables written
  int commented_out = 0;  // of those, written commented out (a parameter no role can drive)
  int candidates = 0;     // what the tree has a table for, whatever was chosen: launcher targets and kernel
                          // targets (bot/onboarding/target_inventory.h)
  int launchers = 0;      // of those, launcher targets
  std::string found;      // "3 launcher(s) and 2 kernel target(s)", as discover and config check say it
  // Files the tables point at, relative to the root, with their text: setup source stubs
  // (bot/commands/init/starter_sources.h). init writes each where no file is yet, never over one.
  std::vector<std::pair<std::string, std::string>> files;
  int kernel_targets = 0;  // of the tables, kernel targets (global = ...): bot/onboarding/kernel_target_table.h
};

StarterConfig render_starter_config(const cuda_source::ScanResult& scan, const std::filesystem::path& root,
                                    const StarterOptions& options = {});

}  // namespace kb::bot
