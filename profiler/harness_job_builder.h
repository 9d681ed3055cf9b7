// The bot's side of the harness contract: a [[kernel]] spec turned into a HarnessJob.
#pragma once

#include "config/config.h"
#include "core/harness_job.h"

namespace kb {

// Builds the job for one spec from the config: evaluates every count/value/flops/bytes
// expression on every size set. Throws config::ExpressionError on a bad expression.
HarnessJob make_harness_job(const config::Config& config, const config::KernelSpec& spec);

}  // namespace kb
