// kernelbot-harness --session DIR: one judge for a whole search on one GPU. kernelbot sends jobs
// on the judge's stdin and reads each result on its stdout (frames, common/frame_io.h); the judge
// keeps its own CUDA context and the original's server from one job to the next, and starts a
// fresh server for every candidate, so a job costs one process and one context instead of a
// sandbox and three. What the verdicts rest on does not change: the candidate's code still runs
// only in a process of its own that ends with its job, and what the judge reports travels on a
// pipe only the judge holds (no result file a candidate could rewrite, so no seal).
//
// Between jobs the judge clears what the candidate could leave for the next one
// (session_sweep.h): processes it started, files in DIR, and with --private-tmp (the namespace
// sandbox's own /tmp, /dev/shm and IPC namespace) those too. The reply frame is JSON:
// {"exit_code": N, "result": EvalResult} with the exit status the one-job judge would have ended
// with (variant_call.h), "result" absent for an invalid job, and "session_ended": why, when the
// judge stops after this reply (its own failure, or something it could not clear).
#pragma once

#include <filesystem>

namespace kb::harness {

struct SessionOptions {
  std::filesystem::path dir;  // the session's working directory, emptied after every job
  bool private_tmp = false;   // /tmp, /dev/shm and System V IPC are the sandbox's own: clear them too
  bool verbose = false;
};

// Serves jobs until stdin closes (exit 0) or the judge must stop (its exit status).
int run_session(const SessionOptions& options);

}  // namespace kb::harness
