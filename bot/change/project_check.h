// Runs the repository's own build and test commands ([project] build / test) on a copy of the
// tree with the change applied, before a PR is opened: a change that breaks the project's build
// or tests is reported, never proposed.
#pragma once

#include <filesystem>
#include <string>

#include "bot/change/source_splicer.h"
#include "config/config.h"

namespace kb::bot {

struct ProjectCheck {
  bool ran = false;  // false when neither command is configured
  bool passed = true;
  std::string summary;  // "build and test passed in 41 s" / "build failed (exit code 2): <tail of output>"
};

ProjectCheck check_project(const config::Config& config, const SourceChange& change, double timeout_s = 1800);

}  // namespace kb::bot
