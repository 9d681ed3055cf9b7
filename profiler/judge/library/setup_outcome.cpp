#include "profiler/judge/library/setup_outcome.h"

#include "core/setup_contract.h"

namespace kb::judge {

std::string setup_failure_text(int returned, const std::string& cuda_error) {
  const std::string call = std::string(kSetupSymbol) + "()";
  if (returned != 0)
    return call + " returned " + std::to_string(returned) + " (the setup source's one-time setup failed" +
           (cuda_error.empty() ? "" : "; CUDA error: " + cuda_error) + ")";
  if (!cuda_error.empty()) return call + " left a CUDA error: " + cuda_error + " (the setup source's one-time setup)";
  return "";
}

}  // namespace kb::judge
