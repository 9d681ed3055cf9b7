// The two facts about a launcher parameter that the config, the bot and the judge all speak of:
// its role and its element type (dtype). Declared once here, for both sides of the process
// boundary. The judge's device code includes this header, so it holds only the enums and
// constexpr questions about them, callable on the GPU as well: no standard-library containers,
// no nlohmann, no spdlog. Names <-> enums are in arg_type_names.h, the job's JSON in harness_job.h.
#pragma once

#include <stddef.h>

// Host and device, where nvcc compiles this; plain host code elsewhere.
#ifndef KB_HOST_DEVICE
#if defined(__CUDACC__)
#define KB_HOST_DEVICE __host__ __device__
#else
#define KB_HOST_DEVICE
#endif
#endif

namespace kb {

// stream: a `cudaStream_t` parameter; the judge passes its own stream (timing, verification and
// the escape checks follow it). It has no dtype, count or value.
// workspace: a buffer the kernel writes that is no result (scratch space, partial sums, flags):
// lent and poisoned before every call like an output, never filled, never compared; a candidate
// may use it differently or not at all. Appended: the names, not the numbers, cross the wire.
enum class ArgRole { input, output, inout, scalar, size, stream, workspace };

// The element type of a buffer, or the type of a scalar or size. The order is the wire's
// (device code receives a DType as int): append, never reorder.
enum class DType { float64, float32, float16, bfloat16, int64, int32, uint32, int8, uint8 };

inline constexpr int kDTypeCount = 9;

KB_HOST_DEVICE constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::float64:
    case DType::int64: return 8;
    case DType::float32:
    case DType::int32:
    case DType::uint32: return 4;
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::int8:
    case DType::uint8: return 1;
  }
  return 0;
}

KB_HOST_DEVICE constexpr bool dtype_is_float(DType t) {
  return t == DType::float64 || t == DType::float32 || t == DType::float16 || t == DType::bfloat16;
}

KB_HOST_DEVICE constexpr bool dtype_is_unsigned(DType t) { return t == DType::uint32 || t == DType::uint8; }

// A buffer is passed as a device pointer; the other roles as a host value (or the stream).
KB_HOST_DEVICE constexpr bool role_is_buffer(ArgRole r) {
  return r == ArgRole::input || r == ArgRole::output || r == ArgRole::inout || r == ArgRole::workspace;
}

// What the judge does with each buffer role; every pass asks these rather than naming roles.
// Filled with generated inputs before a call:
KB_HOST_DEVICE constexpr bool role_is_filled(ArgRole r) { return r == ArgRole::input || r == ArgRole::inout; }
// Poisoned before a call (what the kernel must write, or may use as it likes):
KB_HOST_DEVICE constexpr bool role_is_poisoned(ArgRole r) { return r == ArgRole::output || r == ArgRole::workspace; }
// Compared with the original's after a call, within the tolerance (the results):
KB_HOST_DEVICE constexpr bool role_is_compared(ArgRole r) { return r == ArgRole::output || r == ArgRole::inout; }
// Must hold the same bytes in both variants after a call (read only: a change is a failure):
KB_HOST_DEVICE constexpr bool role_must_stay_unchanged(ArgRole r) { return r == ArgRole::input; }

}  // namespace kb
