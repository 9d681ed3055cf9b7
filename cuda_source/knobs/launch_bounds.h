// A controlled source transformation for the builtin tuner: __launch_bounds__ on the kernels a
// launcher launches, so ptxas may budget registers for the actual block size. Applied only when
// the block size is a compile-time expression of the source (a #define'd name, an integer, or
// a dim3 of those), so the bound always matches the launch, whatever -D values are swept.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb::cuda_source {

// "grid, block, smem, stream" -> {"grid", "block", "smem", "stream"} (commas at bracket depth 0).
std::vector<std::string> split_top_level(const std::string& text);

// The block size of a launch's block argument as a constant expression: "SAXPY_BLOCK",
// "(TRANSPOSE_BLOCK_X) * (TRANSPOSE_BLOCK_Y)", "256"; nullopt when it is computed at run time.
std::optional<std::string> constant_block_expression(const std::string& source, const std::string& block_arg);

// The source with __launch_bounds__ added to every kernel `launcher` launches with a constant
// block size and that has none yet; nullopt when no kernel qualifies.
std::optional<std::string> add_launch_bounds(const std::string& source, const std::string& launcher);

}  // namespace kb::cuda_source
