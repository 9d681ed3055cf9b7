// Content hashes for the archive's keys and for spotting a variant already tried (SHA-256 as
// lowercase hex, common/sha256.h).
#pragma once

#include <string>
#include <string_view>

#include "config/config.h"
#include "core/variant.h"

namespace kb::search {

// The identity of a variant: its source, its defines (order-insensitive) and its flags (in order).
std::string variant_hash(const Variant& variant);

// The [[kernel]] fields (and project-wide settings) that change what "correct" and "fast" mean
// for a kernel: launcher, arguments, sizes, tolerances, compile settings. Not its name or tunables.
std::string spec_hash(const config::Config& config, const config::KernelSpec& spec);

}  // namespace kb::search
