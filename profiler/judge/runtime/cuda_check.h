// Errors of the harness's own CUDA work. A failing CUDA call in the harness itself (not in a
// variant's launcher) is an infrastructure failure: exit code 1, never blamed on a candidate.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace kb::judge {

// The harness could not do its job (no device, out of memory, CUPTI missing...).
struct HarnessError : Error {
  using Error::Error;
};

// "an illegal memory access was encountered (cudaErrorIllegalAddress)"
inline std::string describe_cuda_error(cudaError_t e) {
  return std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
}

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw HarnessError(std::string(what) + ": " + describe_cuda_error(e));
}

}  // namespace kb::judge
