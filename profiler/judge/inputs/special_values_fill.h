// Mixes the special values of special_values.h into a float buffer on the GPU, in place.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kb::judge {

// Overwrites every element of `data` (`count` elements of the float type `elem_type`, a DType as
// int) that special_kind picks for (seed, stream) with its special_value, asynchronously on `s`.
// Other elements, and buffers of integer types, are left alone.
cudaError_t launch_mix_special_values(void* data, int elem_type, size_t count, uint64_t seed, uint64_t stream,
                                      cudaStream_t s);

}  // namespace kb::judge
