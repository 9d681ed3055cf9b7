// The bot's side of the harness contract: a [[kernel]] spec turned into a HarnessJob.
#pragma once

#include "config/config.h"
#include "core/harness_job.h"

namespace kb {

// Builds the job for one spec from the config: evaluates every count/value/flops/bytes
// expression on every size set. Throws config::ExpressionError on a bad expression.
HarnessJob make_harness_job(const config::Config& config, const config::KernelSpec& spec);

// The short measurement a screening asks for ([search] screen_* keys).
struct ScreeningBench {
  int64_t max_samples = 30;
  double min_time_s = 0.05;
};

// Turns a full job into a screening: one verification trial per size set, the cycle of
// distributions started at the harshest ones the job allows, and a short timing of the main
// (first) size set only. Still one job: one harness call, the candidate in its own process.
void make_screening_job(HarnessJob& job, const ScreeningBench& bench);

// Where the one-trial-per-size cycle starts so that the size sets see as many of the harshest
// distributions ("offset", "extreme") as `distributions` holds, the first size set one of them.
int64_t harshest_distribution_start(const std::vector<std::string>& distributions, size_t size_sets);

}  // namespace kb
