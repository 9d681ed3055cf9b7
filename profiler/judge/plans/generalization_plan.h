// The host-side decisions of the generalization pass (generalization_check.h): which call each
// verification-only size set gets, how a reason names the set, and when the GPU has no room for
// it. Kept apart from the GPU code so it is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// Whether size set `s` is one of the job's generalization sets (not configured, verified once).
bool is_generalization_size(const DecodedJob& job, size_t s);

// The one call at generalization set `s`: a seed of its own (derived from the job's seed, so a
// job with a fixed seed repeats) and one of the job's distributions.
struct GeneralizationCall {
  uint64_t seed = 0;
  Distribution distribution = Distribution::uniform;
};
GeneralizationCall generalization_call(const DecodedJob& job, size_t s);

// "generalization size n=1000003 (not one of the configured sizes)".
std::string describe_generalization_size(const DecodedJob& job, size_t s);

// The same with the call: "... (not one of the configured sizes; distribution normal, seed 42)".
std::string describe_generalization_call(const DecodedJob& job, size_t s, const GeneralizationCall& c);

// Device bytes the pass needs for set `s`: both variants' buffers and the judge's pristine copies
// of the inputs (and its error-scale copies of the outputs when `scaled`).
size_t generalization_bytes(const DecodedJob& job, size_t s, bool scaled);

// Whether `needed` bytes fit in `free_bytes` with room left for the judge's and the servers' own
// allocations (a quarter of what is free, at least 256 MiB).
bool fits_free_memory(size_t needed, size_t free_bytes);

}  // namespace kb::judge
