// Seeded random inputs for verification and timing. Every element is a pure function of
// (seed, stream, index), so a failing trial can be reproduced from the seed in the report, and
// large buffers are filled in parallel without changing the numbers. No distribution yields zero:
// zeros hide unwritten outputs and wrong indexing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "profiler/harness/dtype_codec.h"

namespace kb::harness {

enum class Distribution {
  uniform,     // floats in [0.01, 1); integers in [1, 100]
  normal,      // N(0, 1) with |x| >= 1e-3; integers round(N(0, 20)), never 0
  large,       // magnitudes 1e3..1e6 (float16: 1e2..1e3); integers 1000..1e6 clamped to the type
  mixed_sign,  // both signs, |x| in [0.01, 10); integers in [-100, 100] \ {0} (unsigned: [1, 100])
};

std::optional<Distribution> parse_distribution(const std::string& name);
const char* to_string(Distribution d);

// Fills `count` elements of type `t` at `data`. `stream` separates the buffers of one call.
void fill_random(ElemType t, Distribution d, uint64_t seed, uint64_t stream, void* data, size_t count);

// One random scalar argument (a launcher parameter the spec leaves to the harness): floats
// magnitude in [0.5, 2] (negative half the time for normal and mixed_sign), integers in [1, 16].
double random_scalar(ElemType t, Distribution d, uint64_t seed, uint64_t stream);

// The uniform double in [0, 1) that element `index` of stream `stream` draws (exposed for tests).
double unit_random(uint64_t seed, uint64_t stream, uint64_t index);

}  // namespace kb::harness
