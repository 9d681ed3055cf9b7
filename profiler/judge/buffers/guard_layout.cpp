#include "profiler/judge/buffers/guard_layout.h"

namespace kb::judge {
namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The index of the element holding byte `distance` of the zone on `side`, as the kernel would
// have written it (negative before the start).
std::string element_at(const GuardViolation& v, uint64_t distance) {
  const auto e = static_cast<uint64_t>(v.element_bytes == 0 ? 1 : v.element_bytes);
  if (v.side == GuardSide::after_end) return v.name + "[" + std::to_string(v.elements + distance / e) + "]";
  return v.name + "[-" + std::to_string((distance + e - 1) / e) + "]";
}

}  // namespace

GuardedLayout guarded_layout(size_t data_bytes, size_t shift) {
  GuardedLayout l;
  l.data_offset = kGuardBeforeBytes + shift % kDataAlignment;
  l.data_bytes = data_bytes;
  l.allocation_bytes = round_up(l.after_offset() + kGuardAfterBytes, kGuardGranule);
  return l;
}

std::string describe_guard_violation(const GuardViolation& v) {
  const bool after = v.side == GuardSide::after_end;
  std::string s = "writes outside " + v.buffer + ": " + std::to_string(v.changed_bytes) +
                  (v.changed_bytes == 1 ? " byte" : " bytes") + " changed " +
                  (after ? "after its end, " : "before its start, ");
  s += v.nearest == v.farthest ? std::to_string(v.nearest)
                               : std::to_string(v.nearest) + " to " + std::to_string(v.farthest);
  s += after ? " bytes past it" : " bytes before it";
  const std::string first = element_at(v, v.nearest), last = element_at(v, v.farthest);
  s += first == last ? " (element " + first + ")" : " (elements " + first + " to " + last + ")";
  return s;
}

}  // namespace kb::judge
