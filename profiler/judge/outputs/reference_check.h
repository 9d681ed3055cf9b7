// Whether the original's output, after a main trial, can prove anything about a candidate. An
// output the original never wrote (every element still the poison the judge filled it with: a
// buffer it only reads, configured as "output") or one with no finite value anywhere (NaN and Inf
// only) holds any candidate that leaves it alone, or writes any NaN, to nothing: such a reference
// is an error naming the buffer, never an accepted verdict. An output that holds one value at every
// element proves little and is a warning: some honest kernels write a constant on ordinary inputs
// (a mask of finite values), so it is not an error. Host-only, unit-tested without a GPU; the
// judge counts on the GPU (device_checks.h) and applies reference_finding.
#pragma once

#include <cstddef>
#include <string>

#include "core/arg_types.h"

namespace kb::judge {

struct ReferenceFinding {
  std::string error;    // the reason the reference proves nothing, or empty
  std::string warning;  // the reason it proves little, or empty
};

// What the rule reads of the output's elements: counted on the host here, or on the GPU where the
// judge runs it (device_checks.h: launch_reference_counts, the same counts without reading the
// buffer back).
struct ReferenceCounts {
  size_t count = 0;   // elements
  size_t poison = 0;  // still the judge's poison (counted for role "output" only)
  size_t finite = 0;  // of the others, finite values
  size_t differ = 0;  // of the others, values other than element 0's (NaN equal to NaN)
  double first = 0;   // element 0, as a double
};

// `data`: output `name`'s `count` elements of type `t`, as the original left them in a main trial
// at size `size_label`; `role`: its configured role ("output" or "inout").
ReferenceFinding check_reference(DType t, ArgRole role, const std::string& name, const std::string& size_label,
                                 const void* data, size_t count);

// The counts check_reference reads, on the host, element by element: the reading the GPU's count
// must match (tests/profiler/judge/device_checks_gpu_test.cpp).
ReferenceCounts count_reference(DType t, ArgRole role, const void* data, size_t count);

// The finding from counts, however they were taken.
ReferenceFinding reference_finding(DType t, const std::string& name, const std::string& size_label,
                                   const ReferenceCounts& c);

}  // namespace kb::judge
