// The element types of launcher buffers, alone: a plain enum that host code, device code and the
// value formulas of input_distribution.h share (dtype_codec.h adds the host-side codec).
#pragma once

namespace kb::judge {

enum class ElemType { float64, float32, float16, bfloat16, int64, int32, uint32, int8, uint8 };

}  // namespace kb::judge
