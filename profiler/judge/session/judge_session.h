// kernelbot-harness --session DIR: one judge for a whole search on one GPU. kernelbot sends jobs
// on the judge's descriptor 3 and reads each reply on its descriptor 4 (frames, common/frame_io.h;
// not stdin/stdout, which bubblewrap's pid 1 keeps open where any process of the sandbox can reach
// them through /proc/1/fd). The first frame is a key; every reply is sealed with it (HMAC) and
// carries the job's sequence number, so a reply from anything but the judge is recognised. The
// judge keeps its own CUDA context and the original's server from one job to the next, and
// starts a fresh server for every candidate, so a job costs one process and one context instead
// of a sandbox and three. The candidate's code still runs only in a process of its own that ends
// with its job.
//
// Between jobs the judge clears what the candidate could leave for the next one
// (session_sweep.h): processes it started, files in DIR, the user keyrings and, with
// --private-tmp (the namespace sandbox's own /tmp, /dev/shm and IPC namespace), those too; a
// judge whose priority, CPUs or limits changed ends the session, a changed original is replaced,
// and after a metrics job the original is not kept (CUPTI's profiler state). The reply's text is
// JSON: {"seq": N, "exit_code": N, "result": EvalResult} with the exit status the one-job judge
// would have ended with (variant_call.h), "result" absent for an invalid job, and
// "session_ended": why, when the judge stops after this reply; the frame is {"result_text":
// <that text>, "seal": HMAC-SHA256(key, text)}.
#pragma once

#include <filesystem>

namespace kb::judge {

struct SessionOptions {
  std::filesystem::path dir;  // the session's working directory, emptied after every job
  bool private_tmp = false;   // /tmp, /dev/shm and System V IPC are the sandbox's own: clear them too
  bool verbose = false;
};

// Serves jobs until kernelbot closes descriptor 3 (exit 0) or the judge must stop (its exit status).
int run_session(const SessionOptions& options);

}  // namespace kb::judge
