// The device half of memory_blame.h: ends a job's servers one after the other and reads how much
// device memory each one's end gave back. Used only when the job is over for them anyway (the
// judge ran short of GPU memory, or skipped a size for want of it): it costs a session a fresh
// server for the original's next job.
#pragma once

#include "profiler/judge/call/memory_blame.h"
#include "profiler/judge/session/job_modes.h"

namespace kb::judge {

// Ends the candidate's server, then the original's, each waited for. A server that is not there
// holds 0 bytes; a free-memory reading the device refuses gives 0 for both (no blame).
MemoryHeld end_servers_measuring_memory(JobProcesses& processes);

}  // namespace kb::judge
