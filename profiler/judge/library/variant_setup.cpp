#include "profiler/judge/library/variant_setup.h"

#include <cuda_runtime_api.h>

#include "profiler/judge/library/setup_outcome.h"
#include "profiler/judge/runtime/cuda_check.h"

namespace kb::judge {

std::string run_library_setup(SetupFn setup, Who who) {
  if (!setup) return "";
  int returned = 0;
  cudaError_t error = cudaSuccess;
  {
    CallScope scope(who, std::string("running ") + kSetupSymbol);
    returned = setup();
    error = cudaDeviceSynchronize();
  }
  if (error == cudaSuccess) error = cudaGetLastError();
  else (void)cudaGetLastError();
  return setup_failure_text(returned, error == cudaSuccess ? "" : describe_cuda_error(error));
}

}  // namespace kb::judge
