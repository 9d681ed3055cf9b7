// Splitting a list whose items may hold the separator inside brackets: "f(a, b), c[1, 2]" at its
// top-level commas. The readers of launch configurations (a kernel target's grid and block in
// config/, `__launch_bounds__` and launch sites in cuda_source/) share it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb {

// The pieces of `text` between the `separator`s that are outside every (), [] and {}, trimmed.
// An empty text gives one empty piece, as common/text.h's split does; callers decide what an
// empty piece means.
std::vector<std::string> split_outside_brackets(std::string_view text, char separator);

}  // namespace kb
