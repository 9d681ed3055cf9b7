// Commands that would run a kernel (profile, eval, search, run) refuse one whose config still has
// fields written "TODO" (what `kernelbot init` leaves where it could not guess), naming them:
// a guessed-at buffer size would make the harness read or write out of bounds.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace kb::bot {

// Throws UsageError (exit 2) listing every TODO field of `kernels` with its file:line.
void require_finished(const std::vector<const config::KernelSpec*>& kernels);

// The kernels a `--kernel NAME` option picks: all of them when `name` is empty.
std::vector<const config::KernelSpec*> kernels_named(const config::Config& config, const std::string& name);

}  // namespace kb::bot
