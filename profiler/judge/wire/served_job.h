// What a variant server is told: the least it needs to lend its variant the judge's buffers and
// call it (docs/verdicts.md, "What a candidate learns"). A server runs the variant's code in its
// own process, so anything it holds, the variant can read: the job's seeds, trials, input
// distributions, mode (verify, time, strict, sanitizer), tolerances, the other variant's library
// and the kernel's roofline numbers never reach it. Both servers of a job get the same text but
// for the library, which is their own, in `baseline_library`: the candidate's server cannot tell
// from its job that it serves a candidate, or what it is compared with.
#pragma once

#include <cstdint>
#include <string>

#include "core/harness_job.h"

namespace kb::judge {

// The job as a server sees it: the argument layout (names, roles, dtypes, counts, literal values
// and integer ranges per configured size set: not verification's own generalization sizes, which
// reach a server only as the counts of a bind), the size labels, the device, whether the L2 is flushed
// between timed samples, and `library`. Everything else is the default of an empty HarnessJob,
// in a mode that compares nothing (time_baseline).
HarnessJob served_job(const HarnessJob& job, const std::string& library);
std::string served_job_text(const HarnessJob& job, const std::string& library);

// A seed from the OS's random source, for a server that fills buffers of its own (hardware
// metrics, compute-sanitizer runs): related to no seed the verification uses.
uint64_t fresh_server_seed();

}  // namespace kb::judge
