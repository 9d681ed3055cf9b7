// Which misalignments the alignment pass (alignment_check.h) tries, and how a reason names one.
// A caller may hand a launcher any pointer its element type allows: a slice `x + 1` of a float
// array is 4 bytes past a 16-byte boundary. The judge's own buffers all start on a 256-byte
// boundary, so a candidate that assumes 16-byte alignment (float4 loads without a check) passes
// every main trial; the pass lends the buffers shifted instead. Host-only, unit-tested.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// The shifts tried, in bytes past a 256-byte boundary: 4 breaks 8- and 16-byte vector accesses,
// 8 breaks 16-byte ones, 16 breaks 32-byte and wider ones (and 128-byte TMA tiles).
inline constexpr size_t kAlignmentShifts[] = {4, 8, 16};

// One case of the pass: every buffer's shift (0 for arguments that are not buffers). A buffer's
// shift is the case's, rounded up to a multiple of its element size (float64: 8 for the 4-byte case).
struct AlignmentCase {
  size_t shift = 0;
  std::vector<size_t> shifts;  // per argument
};

// The cases for `job`, in kAlignmentShifts' order; a case whose shifts equal an earlier one's is
// left out (a job of float64 buffers only gets 8 and 16). Empty when the job has no buffer.
std::vector<AlignmentCase> alignment_cases(const DecodedJob& job);

// "every buffer 4 bytes past a 256-byte boundary" (", x 8 bytes" for buffers whose element size
// rounded the shift up).
std::string describe_alignment_case(const DecodedJob& job, const AlignmentCase& c);

// The size set the pass runs at: the one whose buffers take the fewest bytes (the cheapest).
size_t smallest_size_index(const DecodedJob& job);
// The bytes of size set `s`'s buffers together (what smallest_size_index compares).
unsigned long long size_set_bytes(const DecodedJob& job, size_t s);

}  // namespace kb::judge
