// The summary that `run` and `publish` end with: one row per kernel, as a table or as --json.
#pragma once

#include <vector>

#include "bot/job/kernel_outcome.h"

namespace kb::bot {

void print_outcomes(const std::vector<KernelOutcome>& rows, bool json);

bool any_failed(const std::vector<KernelOutcome>& rows);

}  // namespace kb::bot
