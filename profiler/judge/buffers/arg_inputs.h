// What an input argument holds in one call: the values of its range = [lo, hi] when it has one
// (indices: a gather's original must never read out of bounds), else its own distribution, else
// the trial's. Every host fill of an input goes through here, so none can forget the range; the
// judge's device fills (judge_timing.cpp) make the same choice with the same formulas.
#pragma once

#include <cstddef>
#include <cstdint>

#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// The distribution input `a` is drawn from when the trial's is `trial` (unused with a range).
Distribution input_distribution(const DecodedArg& a, Distribution trial);

// Fills `count` elements of input `a` at size set `size_index` on the host, element i a pure
// function of (seed, stream, i) as fill_random and fill_range define it.
void fill_input(const DecodedArg& a, size_t size_index, Distribution trial, uint64_t seed, uint64_t stream, void* data,
                size_t count);

}  // namespace kb::judge
