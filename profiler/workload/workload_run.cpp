#include "profiler/workload/workload_run.h"

#include <spdlog/spdlog.h>

#include "core/errors.h"
#include "profiler/evaluate/jobs/harness_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;

std::string find_inject_library() {
  if (const char* env = std::getenv("KERNELBOT_INJECT_LIBRARY"); env && *env) {
    if (!fs::exists(env)) throw UsageError(std::string("KERNELBOT_INJECT_LIBRARY=") + env + " does not exist");
    return env;
  }
  std::string found = find_kernelbot_file("libkernelbot_inject.so", "profiler/workload/inject");
  if (found.empty())
    throw Error("libkernelbot_inject.so (the CUPTI injection library) not found next to kernelbot or in "
                "../lib; " +
                missing_gpu_part_advice("KERNELBOT_INJECT_LIBRARY"));
  return fs::absolute(found).string();
}

WorkloadRun run_workload(const std::vector<std::string>& command, const std::string& inject_library,
                         const fs::path& out_dir, double timeout_s) {
  fs::create_directories(out_dir);
  for (const auto& e : fs::directory_iterator(out_dir))
    if (e.path().filename().string().starts_with("profile-")) fs::remove(e.path());
  SandboxCommand cmd;
  cmd.argv = command;
  cmd.scrub_env = false;
  cmd.extra_env["CUDA_INJECTION64_PATH"] = inject_library;
  cmd.extra_env["KERNELBOT_PROFILE_OUT"] = (fs::absolute(out_dir) / "profile-%p.json").string();
  cmd.limits.wall_time_s = timeout_s;
  cmd.limits.max_output_bytes = 4 << 20;
  WorkloadRun run;
  run.process = run_sandboxed(cmd);
  for (const auto& e : fs::directory_iterator(out_dir)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("profile-") || e.path().extension() != ".json") continue;
    try {
      run.recordings.push_back(read_workload_recording(e.path()));
    } catch (const std::exception& ex) {
      spdlog::warn("{}", ex.what());
    }
  }
  return run;
}

}  // namespace kb::profiler
