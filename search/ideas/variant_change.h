// What a variant changes against the original source, as the archive stores it and the prompts
// show it: its extra defines and flags, then the source diff.
#pragma once

#include <string>

#include "core/variant.h"

namespace kb::search {

// The source diff, after its extra defines and flags as comment lines (a define-only variant has
// no source diff).
std::string describe_variant_change(const std::string& original_source, const Variant& variant,
                                    const std::string& name);

}  // namespace kb::search
