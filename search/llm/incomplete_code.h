// Code a model wrote that is not a whole translation unit although the prompt asks for one: a
// unified diff against the seed, or the seed with parts left out ("// ... rest of the file
// unchanged", "/* helpers omitted for brevity */", a line of "..."). Compiled, either only makes
// nvcc say that something is missing; named, it tells the user what the model did.
#pragma once

#include <string>

namespace kb::search {

// Whether `code` reads as a unified diff: a hunk header (@@ -a,b +c,d @@), or ---/+++ file
// headers followed by lines that start with +, - or a space.
bool is_unified_diff(const std::string& code);

// The first line of `code` that stands for code left out, trimmed ("" when there is none). Lines
// that are also in `seed_source` do not count: the original may have such a comment itself.
std::string elided_line(const std::string& code, const std::string& seed_source = "");

}  // namespace kb::search
