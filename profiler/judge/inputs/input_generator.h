// Seeded random inputs for verification and timing. Every element is a pure function of
// (seed, stream, index), so a failing trial can be reproduced from the seed in the report, and
// large buffers are filled in parallel without changing the numbers. No distribution yields zero:
// zeros hide unwritten outputs and wrong indexing. The per-element formulas (and the Distribution
// enum) live in input_distribution.h, which CUDA device code can include too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "profiler/judge/inputs/dtype_codec.h"
#include "profiler/judge/inputs/input_distribution.h"

namespace kb::judge {

// "uniform", "normal", "large", "mixed_sign", "offset", "extreme".
std::optional<Distribution> parse_distribution(const std::string& name);
const char* to_string(Distribution d);

// Fills `count` elements of type `t` at `data` with element_value(t, d, seed, stream, i), rounded
// to the type. `stream` separates the buffers of one call.
void fill_random(DType t, Distribution d, uint64_t seed, uint64_t stream, void* data, size_t count);

// Fills `count` elements of the integer type `t` with range_value(lo, hi, seed, stream, i): the
// values of an input declared with range = [lo, hi] (indices), lo <= v < hi.
void fill_range(DType t, int64_t lo, int64_t hi, uint64_t seed, uint64_t stream, void* data, size_t count);

}  // namespace kb::judge
