// Where a kernel target's winner is spliced into its file. The splicer (bot/change/source_splicer.h)
// replaces a launcher and the kernels it launches; a kernel target has no launcher of its own, so
// the function that launches its kernel stands in: the one launch site's function ("main",
// "gelu_forward"), whose literal block knobs the tuner edits and whose launched kernels (the
// target's among them) a replacement kernel is spliced over.
#pragma once

#include <string>

#include "config/config.h"

namespace kb::bot {

// The spec's launcher; for a kernel target, the function of its kernel's launch site in
// `original_text`. Throws kb::Error naming the kernel and file when there is no single one.
std::string splice_function(const config::KernelSpec& spec, const std::string& original_text);

// The same, for naming what a PR edits (its tuned literals): never throws; the kernel target's
// kernel name when no single function launches it.
std::string edited_function(const config::KernelSpec& spec, const std::string& original_text) noexcept;

}  // namespace kb::bot
