// How the judge turns one job into a result and an exit status, whether it runs one job and
// exits (kernelbot-harness --job) or serves a session of them (--session): the job's text
// parsed, its servers started, run_job, and every way that can end mapped to a verdict and to
// the exit status kernelbot reads (variant_call.h's kExit*).
#pragma once

#include <functional>
#include <string>

#include "core/result_types.h"
#include "profiler/judge/session/job_modes.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

struct JudgedJob {
  int exit_code = kExitOk;
  bool has_result = false;  // false only for an invalid job (kExitUsage): nothing to write
  EvalResult result;        // run_s is the caller's to set, once the servers it ends are gone
};

// Starts the servers a job needs into `processes` (the caller's choice: fresh ones, or a kept
// original). Throws for the judge's own failure.
using StartServers = std::function<void(const DecodedJob&, JobProcesses&)>;

// Parses `job_text` (`origin` names it in errors), starts its servers and runs it. On the
// servers' or the judge's failure `processes` is emptied (the servers asked to quit and reaped);
// otherwise they are left for the caller to end or keep. Writes the judge's own error lines to
// stderr ("kb-harness: invalid job: ...", "kb-harness: error: ... (during ...)").
JudgedJob judge_job(const std::string& job_text, const std::string& origin, JobProcesses& processes,
                    const StartServers& start_servers);

}  // namespace kb::judge
