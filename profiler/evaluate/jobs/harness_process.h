// Running `kernelbot-harness` (the judge) as a sandboxed child: where to find it and
// compute-sanitizer, one job in, one result out, and the device calibration cache.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/harness_job.h"
#include "core/result_types.h"
#include "profiler/evaluate/verdict/evaluation_outcome.h"
#include "profiler/sandbox/gpu_confinement.h"
#include "profiler/sandbox/sandbox_launcher.h"

namespace kb::profiler {

// $KERNELBOT_HARNESS, else kernelbot-harness next to the running executable (/proc/self/exe),
// in ../profiler/ of it (the build tree) or ../libexec/kernelbot/, else PATH. Throws
// kb::Error naming the places searched when it is nowhere.
std::string find_harness();

// What to do about a GPU part kernelbot did not find (the harness, the injection library): put it
// next to kernelbot or name it in `override_var`; a build without CUPTI has none, so there the
// answer is to install CUPTI and rebuild.
std::string missing_gpu_part_advice(const std::string& override_var);

// A file shipped with kernelbot (the injection library): next to the executable, ../lib/,
// ../profiler/<subdir>/. Empty when not found.
std::string find_kernelbot_file(const std::string& name, const std::string& build_subdir);

// compute-sanitizer in $CUDA_HOME/bin, /usr/local/cuda/bin or PATH; empty when not found.
std::string find_compute_sanitizer();

struct HarnessLimits {
  double timeout_s = 120;
  int64_t max_memory_mb = 0;
  // Where the harness (and so the candidate's code it loads) runs, and what it must not see.
  SandboxKind sandbox = SandboxKind::namespaces;
  std::vector<std::filesystem::path> hidden;  // repository_secrets()
  // Also readable in the namespace sandbox: where the project's link_libs live (a variant's
  // library loads them from there, as in the application).
  std::vector<std::filesystem::path> library_dirs;
  // The one GPU the job's processes may see (gpu_confinement.h); the job's device is numbered as
  // they see it (0 when confined).
  GpuConfinement gpu;
};

// What the harness may see in the namespace sandbox: the system, the toolkit and library path,
// the harness and the wrapper (compute-sanitizer) with their directories, the libraries it loads
// (their cache entries), the GPU, and `job_dir`, the only place it may write.
FilesystemView harness_view(const std::string& harness, const std::filesystem::path& job_dir,
                            const std::vector<std::string>& libraries, const std::vector<std::string>& wrapper,
                            const std::vector<std::filesystem::path>& hidden);

// Every string of a result the harness wrote, redacted and bounded (untrusted_text): reasons,
// failures, notes and reports are text a candidate sharing the harness's sandbox could have written.
void redact_result_strings(nlohmann::json& j);

// Writes `job` to <dir>/job.json, runs `wrapper... harness --job <dir>/job.json --out
// <dir>/result.json` sandboxed (scrubbed environment, limits, limits.sandbox), reads the result.
// The result file was written by a process that ran candidate code: every string in it is
// redacted and bounded (untrusted_text) before anything else sees it.
HarnessRun run_harness_job(const std::string& harness, const HarnessJob& job, const std::filesystem::path& dir,
                           const HarnessLimits& limits, const std::vector<std::string>& wrapper = {});

// The device with its measured ceilings: from <cache_dir>/device-<uuid>.json (machine_cache.h's
// device_cache_dir) when that file describes the same GPU and driver, else `calibrate()` (then
// saved there for later runs; a folder that cannot be written only costs the next run a
// calibration, with a warning).
DeviceInfo calibrated_device(const DeviceInfo& queried, const std::filesystem::path& cache_dir,
                             const std::function<DeviceInfo()>& calibrate);

// Runs `harness --calibrate --device N --out FILE` sandboxed; throws kb::Error when it fails.
DeviceInfo run_calibration(const std::string& harness, int device, const std::filesystem::path& dir,
                           const HarnessLimits& limits);

}  // namespace kb::profiler
