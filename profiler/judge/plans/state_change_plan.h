// The plan of the state-independence check (state_independence_check.h): which few elements of
// an input change between two calls on the same buffers, where each new value comes from, and the
// words a reason uses for them. Host-only and deterministic per seed (the judge draws the seed
// from the OS's random source), so the choices are unit-tested on a CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kb::judge {

// Elements changed per input buffer between two calls of a sequence.
inline constexpr size_t kChangedElementsPerInput = 5;

// How many leading elements of a buffer of `count` elements never change: a cache keyed on the
// first elements of an input (a hash of a prefix) must see the same key while the answer changes.
// Half the buffer up to 256 elements, at least 1; all of a buffer of fewer than 2 elements.
size_t kept_prefix(size_t count);

// Up to `how_many` distinct positions in [kept_prefix(count), count), sorted (all of them when
// fewer are there), drawn from `seed`.
std::vector<size_t> pick_change_positions(size_t count, size_t how_many, uint64_t seed);

// Where the new value of `position` comes from on attempt `attempt` (0, 1, ...): another element
// of the same buffer, drawn from `seed`, never `position` itself. A value taken from the buffer
// keeps whatever the buffer's values obey (a range of indices, a distribution's per-buffer mean);
// the judge tries again when the two elements happen to hold the same bits. Needs count >= 2.
size_t pick_source_position(size_t count, size_t position, uint64_t seed, int attempt);

// "5 elements of input x changed (at 183741, 402113, 611000, 700001, 999999)"; the first 8
// positions are listed, then "...".
std::string describe_changed_elements(const std::string& role, const std::string& name,
                                      const std::vector<size_t>& positions);

// "call 2 of 3 on the same buffers at size n=1000".
std::string describe_sequence_call(int call, int calls, const std::string& size_label);

}  // namespace kb::judge
