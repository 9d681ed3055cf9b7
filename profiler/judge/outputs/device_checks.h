// The judge's own device code for timed samples: fresh inputs from a seed on the GPU (the same
// formulas as the host's fill_random, input_distribution.h), and comparisons that count how many
// output elements of a variant differ from the original's, or how many bytes of two buffers
// differ. Cheap enough to run around every timed sample, so no sample escapes checking.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kb::judge {

// Fills `count` elements of type `elem_type` (a DType as int) at `dst` with distribution
// `distribution` (a Distribution as int), element i drawn as fill_random draws it for (seed, stream).
cudaError_t launch_fill_random(void* dst, int elem_type, int distribution, uint64_t seed, uint64_t stream, size_t count,
                               cudaStream_t s);

// Fills `count` elements of the integer type `elem_type` at `dst` as fill_range does: an input
// with range = [lo, hi], element i drawn from lo <= v < hi for (seed, stream).
cudaError_t launch_fill_range(void* dst, int elem_type, int64_t lo, int64_t hi, uint64_t seed, uint64_t stream,
                              size_t count, cudaStream_t s);

// Adds to counters[0] the elements of `got` that fail the tolerance rule of compare_output
// against `ref` (elements where `ref` holds the poison pattern are ignored, `got` holding it is a
// failure), for `count` elements of `elem_type`. `poison_bits` is the dtype's poison pattern.
cudaError_t launch_count_mismatches(const void* ref, const void* got, int elem_type, size_t count, double rtol,
                                    double atol, uint64_t poison_bits, unsigned long long* counters, cudaStream_t s);

// What compare_output (output_comparator.h) reports, computed on the GPU: the counts are added
// and the maxima raised (as the bits of non-negative doubles), so zero it before the first launch.
struct DeviceOutputStats {
  unsigned long long elements = 0;    // compared (the original wrote them)
  unsigned long long mismatches = 0;  // outside the tolerance, unwritten or non-finite
  unsigned long long max_abs_bits = 0, max_rel_bits = 0, max_ref_bits = 0;
};

// Compares `count` elements of `got` with `ref` by compare_output's rules, `scale` (may be null)
// widening the tolerance per element as ErrorScale::abs_inputs does, into `stats` (device memory).
// Only when it finds mismatches does the judge read the buffers back to describe them.
cudaError_t launch_output_stats(const void* ref, const void* got, const void* scale, int elem_type, size_t count,
                                double rtol, double atol, uint64_t poison_bits, DeviceOutputStats* stats,
                                cudaStream_t s);

// check_reference's counts (reference_check.h: ReferenceCounts) of `count` elements of `elem_type`
// at `data`, added to `counts` (device memory, zeroed before the launch): [0] elements holding
// `poison_bits` (counted, and left out of the rest, only when `count_poison`), [1] finite values,
// [2] values other than element 0's (NaN equal to NaN). The judge reads back three numbers instead
// of the original's whole output.
cudaError_t launch_reference_counts(const void* data, int elem_type, size_t count, bool count_poison,
                                    uint64_t poison_bits, unsigned long long* counts, cudaStream_t s);

// Clears the sign bit of every element of a floating-point type (abs_in_place on the GPU).
cudaError_t launch_abs_in_place(void* data, int elem_type, size_t count, cudaStream_t s);

// Adds to counters[0] the 4-byte words (and trailing bytes) that differ between `a` and `b`.
cudaError_t launch_count_differences(const void* a, const void* b, size_t bytes, unsigned long long* counters,
                                     cudaStream_t s);

}  // namespace kb::judge
