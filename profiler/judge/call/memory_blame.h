// Whose GPU memory it was, when the judge runs short of it during a verdict. A candidate's process
// can take the device's memory (a pool reserved at load, a workspace that grows with every call),
// and then the judge's own allocation fails, or a size it would have verified no longer fits and
// is skipped: a check lost to something the candidate's process did. Failing closed, that is the
// candidate's failure, never an evaluation that "could not run" or a skip.
//
// The evidence is causal, not a guess: the judge ends both servers, one after the other, and
// reads how much device memory each one's end gave back (memory_audit.h). This file holds the
// host-only rule over those two numbers, unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kb::judge {

// Device memory each server gave back when it ended (context, modules, everything it held).
struct MemoryHeld {
  int64_t candidate_bytes = 0;
  int64_t original_bytes = 0;
};

// How much more than the original's process the candidate's may hold before a shortage is laid at
// its door: a candidate's module or a small static table costs a few MiB; this is far above that.
inline constexpr int64_t kMemoryBlameSlackBytes = 128ll << 20;

// The candidate's extra memory, when it is past the slack (else 0).
int64_t candidate_excess_bytes(const MemoryHeld& held);

// The reason for a `rejected` verdict when the judge's work failed for lack of GPU memory
// (`what_failed`, the judge's error) and the candidate's process held more than the slack beyond
// the original's; nullopt when it did not (the shortage is not the candidate's: infra_error).
std::optional<std::string> memory_shortage_blame(const MemoryHeld& held, const std::string& what_failed);

// The same for sizes verification skipped because they did not fit: `needed` bytes with `free_bytes`
// free then. The candidate's when its extra memory would have made the size fit (by the same
// margin, generalization_plan.h's fits_free_memory).
std::optional<std::string> memory_skip_blame(const MemoryHeld& held, const std::string& size, int64_t needed,
                                             int64_t free_bytes);

// Whether a judge's error reads as a lack of GPU memory ("out of memory", cudaErrorMemoryAllocation).
bool is_out_of_memory(const std::string& error);

// A size verification skipped for want of GPU memory (generalization_check.h records them).
struct MemorySkip {
  std::string size;  // "size n=... (unconfigured)", as the skip names it
  int64_t needed = 0, free_bytes = 0;
};

}  // namespace kb::judge
