// Which overload of a launcher a [[kernel]] means. The harness's entry shim calls the launcher
// with the spec's argument types, so C++ overload resolution picks the overload whose parameter
// types match them; the tuner must read its knobs from that same overload (softmax_forward(float*,
// ...) and softmax_forward(floatX*, ...) have different block sizes).
#pragma once

#include "config/config.h"
#include "cuda_source/knobs/literal_knobs.h"

namespace kb::search {

// Scores an overload: whether the spec's arguments fill its parameters (trailing defaults may be
// left out), then one point per argument whose parameter type names the argument's C++ type
// (`float`, `__nv_bfloat16`, `cudaStream_t`...). A type hidden behind an alias scores nothing.
cuda_source::OverloadScore spec_overload_score(const config::KernelSpec& spec);

}  // namespace kb::search
