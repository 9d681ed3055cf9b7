#include "profiler/judge/plans/alignment_cases.h"

#include "profiler/judge/buffers/guard_layout.h"

namespace kb::judge {

std::vector<AlignmentCase> alignment_cases(const DecodedJob& job) {
  std::vector<AlignmentCase> cases;
  bool any_buffer = false;
  for (const auto& a : job.args) any_buffer = any_buffer || a.is_buffer();
  if (!any_buffer) return cases;
  for (const size_t shift : kAlignmentShifts) {
    AlignmentCase c;
    c.shift = shift;
    for (const auto& a : job.args) {
      const size_t e = a.is_buffer() ? dtype_size(a.type) : 0;
      c.shifts.push_back(e == 0 ? 0 : (shift + e - 1) / e * e % kDataAlignment);
    }
    bool seen = false;
    for (const auto& earlier : cases) seen = seen || earlier.shifts == c.shifts;
    if (!seen) cases.push_back(std::move(c));
  }
  return cases;
}

std::string describe_alignment_case(const DecodedJob& job, const AlignmentCase& c) {
  std::string s = "every buffer " + std::to_string(c.shift) + " bytes past a " + std::to_string(kDataAlignment) +
                  "-byte boundary";
  for (size_t i = 0; i < job.args.size() && i < c.shifts.size(); ++i)
    if (job.args[i].is_buffer() && c.shifts[i] != c.shift)
      s += ", " + job.args[i].name + " " + std::to_string(c.shifts[i]) + " bytes (its elements are " +
           std::to_string(dtype_size(job.args[i].type)) + " bytes)";
  return s;
}

unsigned long long size_set_bytes(const DecodedJob& job, size_t s) {
  unsigned long long bytes = 0;
  for (const auto& a : job.args)
    if (a.is_buffer() && s < a.counts.size())
      bytes += static_cast<unsigned long long>(a.counts[s]) * dtype_size(a.type);
  return bytes;
}

size_t smallest_size_index(const DecodedJob& job) {
  size_t best = 0;
  unsigned long long best_bytes = 0;
  for (size_t s = 0; s < job.size_count(); ++s) {
    const unsigned long long bytes = size_set_bytes(job, s);
    if (s == 0 || bytes < best_bytes) {
      best = s;
      best_bytes = bytes;
    }
  }
  return best;
}

}  // namespace kb::judge
