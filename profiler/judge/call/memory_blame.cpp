#include "profiler/judge/call/memory_blame.h"

#include "profiler/judge/plans/generalization_plan.h"

namespace kb::judge {
namespace {

std::string mib(int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::string held_text(const MemoryHeld& held) {
  return "the candidate's process held " + mib(held.candidate_bytes) + " of GPU memory, " +
         mib(held.candidate_bytes - held.original_bytes) + " more than the original's (" + mib(held.original_bytes) +
         "; measured by ending each process)";
}

}  // namespace

int64_t candidate_excess_bytes(const MemoryHeld& held) {
  const int64_t excess = held.candidate_bytes - held.original_bytes;
  return excess > kMemoryBlameSlackBytes ? excess : 0;
}

std::optional<std::string> memory_shortage_blame(const MemoryHeld& held, const std::string& what_failed) {
  if (candidate_excess_bytes(held) == 0) return std::nullopt;
  return "GPU memory taken: " + held_text(held) + ", and the judge's own work then failed for lack of it (" +
         what_failed + "); a caller's program loses that memory too";
}

std::optional<std::string> memory_skip_blame(const MemoryHeld& held, const std::string& size, int64_t needed,
                                             int64_t free_bytes) {
  const int64_t excess = candidate_excess_bytes(held);
  if (excess == 0 || needed < 0 || free_bytes < 0 ||
      !fits_free_memory(static_cast<size_t>(needed), static_cast<size_t>(free_bytes + excess)))
    return std::nullopt;
  return "GPU memory taken: " + held_text(held) + ", so " + size + " (" + mib(needed) + " needed, " + mib(free_bytes) +
         " free) could not be verified; beside the original's process it would have fit";
}

bool is_out_of_memory(const std::string& error) {
  return error.find("out of memory") != std::string::npos ||
         error.find("cudaErrorMemoryAllocation") != std::string::npos;
}

}  // namespace kb::judge
