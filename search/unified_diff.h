// A unified diff (`diff -u` format, 3 lines of context) computed in-process, so the archive and
// the prompts can show what a candidate changed without spawning git or diff.
#pragma once

#include <string>

#include "profiler/variant.h"

namespace kb::search {

// The diff turning `before` into `after`, with "--- a/<name>" / "+++ b/<name>" headers; empty
// when the texts are equal.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& name,
                         int context = 3);

// What a variant changes against the original source: the source diff, then its extra defines
// and flags as comment lines (a define-only variant has no source diff).
std::string describe_variant_change(const std::string& original_source, const Variant& variant,
                                    const std::string& name);

}  // namespace kb::search
