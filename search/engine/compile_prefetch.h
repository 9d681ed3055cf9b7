// Compiling ahead: while the GPU measures the original (seconds in which the CPU has nothing to
// do), the variants the proposer says it will most likely ask for (Proposer::likely_variants)
// are compiled into the compile cache, so round 1's candidates reach the GPU without waiting for
// nvcc. Only the cache changes: a compile the round asks for while it is still running here is
// shared (the compiler's in-flight table), and one that never comes only cost CPU time.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

#include "config/config.h"
#include "core/variant.h"
#include "profiler/evaluate/evaluator.h"

namespace kb::search {

class CompilePrefetch {
 public:
  // Starts `threads` threads compiling `variants` in order with `evaluator`.
  CompilePrefetch(Evaluator& evaluator, const config::KernelSpec& spec, std::vector<Variant> variants, size_t threads);
  // Stops taking new variants and waits for the compiles under way.
  ~CompilePrefetch();
  CompilePrefetch(const CompilePrefetch&) = delete;
  CompilePrefetch& operator=(const CompilePrefetch&) = delete;

  // No further compile starts (the round's own compiles take over); those under way finish.
  void stop() { stopped_ = true; }
  // How many compiles started (for the log).
  size_t started() const { return next_.load() < variants_.size() ? next_.load() : variants_.size(); }

 private:
  Evaluator& evaluator_;
  const config::KernelSpec& spec_;
  std::vector<Variant> variants_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stopped_{false};
  std::vector<std::thread> threads_;
};

}  // namespace kb::search
