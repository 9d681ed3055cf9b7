#include "profiler/gpu_evaluator.h"

#include <stdexcept>

namespace kb::profiler {

std::unique_ptr<Evaluator> make_gpu_evaluator(const config::Config&, int) {
  throw std::runtime_error("the GPU evaluator is not implemented yet (issue #3)");
}

}  // namespace kb::profiler
