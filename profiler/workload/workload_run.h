// Runs the user's own program with the kernelbot injection library loaded (CUDA_INJECTION64_PATH)
// and collects the per-process profiles it writes. The program is the user's, not a candidate's:
// it keeps its environment, but still runs in its own process group with a time limit.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "profiler/sandbox/sandbox_process.h"
#include "profiler/workload/workload_profile.h"

namespace kb::profiler {

struct WorkloadRun {
  SandboxResult process;
  std::vector<WorkloadRecording> recordings;  // one per CUDA process that exited normally
};

// `inject_library` is libkernelbot_inject.so; `out_dir` receives profile-<pid>.json files.
WorkloadRun run_workload(const std::vector<std::string>& command, const std::string& inject_library,
                         const std::filesystem::path& out_dir, double timeout_s);

// libkernelbot_inject.so as installed or built beside kernelbot, or $KERNELBOT_INJECT_LIBRARY.
// Throws kb::Error when it is nowhere.
std::string find_inject_library();

}  // namespace kb::profiler
