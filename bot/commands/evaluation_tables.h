// Terminal output of `kernelbot eval` and `kernelbot profile`: the verdict, timing tables,
// worst errors, metrics and the workload ranking, from the shared result types. Plain text for
// people; --json prints the result types themselves.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result_types.h"
#include "profiler/workload/workload_profile.h"

namespace kb::bot {

// One evaluated candidate: verdict and reason, the per-size timing table, verification
// evidence, worst errors per output, sanitizer report, metrics, and the compile log when it
// failed to compile.
std::string render_eval_result(const EvalResult& result, const std::string& kernel, const std::string& candidate);

// The originals timed alone: one row per kernel and size, with metrics when collected.
std::string render_kernel_profiles(const std::vector<std::pair<std::string, EvalResult>>& profiles);

// The ranking of a workload's kernels by total GPU time.
std::string render_workload_ranking(const profiler::WorkloadRanking& ranking, const std::string& command,
                                    double wall_s);
nlohmann::json workload_ranking_json(const profiler::WorkloadRanking& ranking, const std::string& command,
                                     double wall_s, int exit_code);

}  // namespace kb::bot
