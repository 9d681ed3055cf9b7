#include "search/engine/compile_prefetch.h"

#include "search/engine/compile_priority.h"

namespace kb::search {

CompilePrefetch::CompilePrefetch(Evaluator& evaluator, const config::KernelSpec& spec, std::vector<Variant> variants,
                                 size_t threads)
    : evaluator_(evaluator), spec_(spec), variants_(std::move(variants)) {
  threads = std::min(threads, variants_.size());
  for (size_t t = 0; t < threads; ++t)
    threads_.emplace_back([this] {
      // Below everything else (nvcc inherits it): the GPU is measuring the original meanwhile, and
      // its host side must not wait for a core.
      lower_this_thread_priority(kSpeculativeCompileNice);
      for (;;) {
        if (stopped_) return;
        const size_t i = next_++;
        if (i >= variants_.size()) return;
        try {
          evaluator_.compile(spec_, variants_[i]);  // the result lands in the cache; a failure is the round's to see
        } catch (const std::exception&) {
          // Compiling ahead is an optimisation: the round compiles (and reports) it again.
        }
      }
    });
}

CompilePrefetch::~CompilePrefetch() {
  stopped_ = true;
  for (auto& t : threads_) t.join();
}

}  // namespace kb::search
