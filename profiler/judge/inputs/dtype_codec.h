// How the harness reads, writes and poisons launcher buffers of each DType (core/arg_types.h) on
// the host. Half and bfloat16 are converted bit by bit here, so this stays free of CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/arg_type_names.h"
#include "core/arg_types.h"

namespace kb::judge {

// Value of element `i` of a raw buffer, widened to double (exact for every type but int64/uint64
// beyond 2^53, which `load_int` reads exactly).
double load_double(DType t, const void* data, size_t i);
int64_t load_int(DType t, const void* data, size_t i);
// Stores `v` into element `i`, rounding to nearest (floats) or truncating toward zero (integers,
// after clamping to the type's range).
void store_double(DType t, void* data, size_t i, double v);

// The poison pattern written into outputs before every call: a NaN with a payload no arithmetic
// produces (GPU arithmetic makes the canonical NaN), or 0xA5 repeated for integers.
void fill_poison(DType t, void* data, size_t count);
bool is_poison(DType t, const void* data, size_t i);

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);

}  // namespace kb::judge
