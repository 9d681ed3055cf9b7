// The original kernel as a Variant: its source file's text, no extra defines or flags. The
// baseline every candidate is verified and timed against.
#pragma once

#include "config/config.h"
#include "core/variant.h"

namespace kb::profiler {

// Reads [[kernel]].source (relative to the config's root). Throws kb::Error naming the
// file when it cannot be read.
Variant original_variant(const config::Config& config, const config::KernelSpec& spec);

}  // namespace kb::profiler
