// Reads the resource report that `nvcc -Xptxas -v` prints (registers, spills, stack, shared
// memory per kernel): compiler facts that explain a variant's speed without any device time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result_types.h"

namespace kb::profiler {

// One entry function (__global__ kernel) as ptxas compiled it.
struct PtxasFunction {
  std::string mangled;
  std::string name;  // demangled when possible
  std::string arch;  // "sm_90"
  int registers = 0;
  int barriers = 0;
  int64_t shared_bytes = 0;  // static shared memory (smem)
  int64_t local_bytes = 0;   // lmem (older ptxas) or the stack frame (local memory per thread)
  int64_t stack_frame_bytes = 0;
  int64_t spill_stores_bytes = 0;
  int64_t spill_loads_bytes = 0;
};

// Every entry function in the report, in the order ptxas printed them. Lines it does not know
// are ignored (device functions, compile times, gmem totals).
std::vector<PtxasFunction> parse_ptxas_report(const std::string& log);

// The compiler facts of a variant in KernelMetrics form: those of its heaviest kernel (most
// spilled bytes, then most registers), with `values["ptxas_kernels"]` = how many kernels the
// report had. status says "ok" or why nothing was found.
KernelMetrics summarize_ptxas(const std::vector<PtxasFunction>& functions);

// "_Z12saxpy_kernelPKfPffi" -> "saxpy_kernel(float const*, float*, float, int)"; unchanged when
// it is not a mangled name.
std::string demangle(const std::string& mangled);

}  // namespace kb::profiler
