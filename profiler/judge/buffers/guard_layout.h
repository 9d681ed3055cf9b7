// Where a buffer the judge lends sits inside its allocation, and how a write outside it is told.
// Every buffer lies between guard zones the judge filled with bytes from the OS's random source:
// a variant that writes before its start (a `y[i-1]`) or past its end (a last block without a
// bounds check) changes bytes it cannot put back, since it cannot predict them. The guards are
// what a bounds bug hits first: without them such a write lands in the allocation's slack (or in
// another buffer) and nothing notices. Host-only arithmetic, unit-tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kb::judge {

// Before a buffer's first byte: a y[i-1], a stencil's halo, a negative index of up to a block.
inline constexpr size_t kGuardBeforeBytes = size_t{64} << 10;
// After its last byte, at least: a last block without a bounds check writes up to a block of
// vectors past the end (1024 threads x 16 bytes x 4 per thread = 64 KiB).
inline constexpr size_t kGuardAfterBytes = size_t{64} << 10;
// Allocations are rounded up to this; the rounding is guarded too, so that no byte of the
// allocation outside the buffer is unwatched.
inline constexpr size_t kGuardGranule = size_t{64} << 10;
// A buffer's first byte lies on this boundary (cudaMalloc's own alignment) plus the shift the
// alignment pass asks for: kGuardBeforeBytes is a multiple of it.
inline constexpr size_t kDataAlignment = 256;

// One buffer's place in its allocation, in bytes from the allocation's base.
struct GuardedLayout {
  size_t data_offset = 0;  // the buffer's first byte; everything before it is guard
  size_t data_bytes = 0;
  size_t allocation_bytes = 0;
  size_t after_offset() const { return data_offset + data_bytes; }  // the first guard byte after it
  size_t after_bytes() const { return allocation_bytes - after_offset(); }
};

// The layout of a buffer of `data_bytes`, its first byte `shift` bytes past a kDataAlignment
// boundary (0 outside the alignment pass; less than kDataAlignment).
GuardedLayout guarded_layout(size_t data_bytes, size_t shift = 0);

// What a check of one guard zone found: how many bytes changed, and the nearest and farthest of
// them, as distances from the buffer (1 = the byte just before its start; 0 = the byte just
// after its end).
enum class GuardSide { before_start, after_end };
struct GuardViolation {
  std::string buffer;  // "output y"
  std::string name;    // "y"
  size_t element_bytes = 1;
  uint64_t elements = 0;
  GuardSide side = GuardSide::after_end;
  uint64_t changed_bytes = 0;
  uint64_t nearest = 0, farthest = 0;
};

// "writes outside output y: 4 bytes changed after its end, 0 to 3 bytes past it (element y[1000])",
// for a reason a reviewer and a model repairing its kernel understand.
std::string describe_guard_violation(const GuardViolation& v);

}  // namespace kb::judge
