// The real Evaluator: compiles variants with nvcc into shared libraries (cached by a hash of
// source and flags) and runs each evaluation in a sandboxed `kernelbot-harness` child process.
#pragma once

#include <memory>

#include "config/config.h"
#include "profiler/evaluator.h"

namespace kb::profiler {

// `device` is the CUDA device index the child processes use (one evaluator per GPU).
std::unique_ptr<Evaluator> make_gpu_evaluator(const config::Config& config, int device);

}  // namespace kb::profiler
