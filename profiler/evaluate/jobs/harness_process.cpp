#include "profiler/evaluate/jobs/harness_process.h"
#include "common/file_io.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/file_write.h"
#include "common/hmac_sha256.h"
#include "common/sealed_text.h"
#include "common/secret_redactor.h"
#include "core/errors.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

fs::path self_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

bool executable(const fs::path& p) { return access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

std::string absolute(const std::string& p) { return p.empty() ? p : fs::absolute(p).lexically_normal().string(); }

}  // namespace

void redact_result_strings(nlohmann::json& j) {
  if (j.is_string()) j = untrusted_text(j.get<std::string>(), 16 * 1024);
  else if (j.is_structured())
    for (auto& item : j) redact_result_strings(item);
}

FilesystemView harness_view(const std::string& harness, const fs::path& job_dir,
                            const std::vector<std::string>& libraries, const std::vector<std::string>& wrapper,
                            const std::vector<fs::path>& hidden) {
  FilesystemView view;
  view.gpu = true;
  view.hidden = hidden;
  view.writable = {job_dir};
  add_toolchain(view, find_nvcc());
  // The harness's directory: the build tree keeps its shared libraries beside it.
  view.read_only.push_back(fs::path(absolute(harness)).parent_path());
  // compute-sanitizer lives in <toolkit>/compute-sanitizer/ behind a link in <toolkit>/bin/.
  if (!wrapper.empty()) {
    std::error_code ec;
    fs::path tool = fs::canonical(wrapper.front(), ec);
    if (!ec) view.read_only.push_back(tool.parent_path().parent_path());
  }
  for (const auto& lib : libraries)
    if (!lib.empty()) view.read_only.push_back(fs::path(absolute(lib)).parent_path());
  return view;
}

std::string find_harness() {
  if (const char* env = std::getenv("KERNELBOT_HARNESS"); env && *env) {
    if (!executable(env)) throw UsageError(std::string("KERNELBOT_HARNESS=") + env + " is not an executable");
    return env;
  }
  const fs::path dir = self_dir();
  std::vector<fs::path> places = {dir / "kernelbot-harness", dir / ".." / "profiler" / "kernelbot-harness",
                                  dir / ".." / "libexec" / "kernelbot" / "kernelbot-harness"};
  for (const auto& p : places)
    if (executable(p)) return p.lexically_normal().string();
  const char* path = std::getenv("PATH");
  std::string found = find_executable("kernelbot-harness", path ? path : "");
  if (!found.empty()) return found;
  std::string searched;
  for (const auto& p : places) {
    searched += ' ';
    searched += p.lexically_normal().string();
  }
  throw Error("kernelbot-harness (the judge) not found; looked in" + searched + " and PATH; " +
              missing_gpu_part_advice("KERNELBOT_HARNESS"));
}

std::string missing_gpu_part_advice(const std::string& override_var) {
  if (KB_HAVE_CUPTI) return "install it next to kernelbot or set " + override_var;
  return "this kernelbot was built without CUPTI, so it has none: install the CUDA toolkit's cuda-cupti-dev package "
         "and rebuild";
}

std::string find_kernelbot_file(const std::string& name, const std::string& build_subdir) {
  const fs::path dir = self_dir();
  for (const auto& p : {dir / name, dir / ".." / "lib" / name, dir / ".." / "lib" / "kernelbot" / name,
                        dir / ".." / build_subdir / name})
    if (fs::exists(p)) return p.lexically_normal().string();
  return "";
}

std::string find_compute_sanitizer() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root && executable(fs::path(root) / "bin" / "compute-sanitizer"))
      return (fs::path(root) / "bin" / "compute-sanitizer").string();
  if (executable("/usr/local/cuda/bin/compute-sanitizer")) return "/usr/local/cuda/bin/compute-sanitizer";
  const char* path = std::getenv("PATH");
  return find_executable("compute-sanitizer", path ? path : "");
}

HarnessRun run_harness_job(const std::string& harness, const HarnessJob& job, const fs::path& dir,
                           const HarnessLimits& limits, const std::vector<std::string>& wrapper) {
  fs::create_directories(dir);
  const fs::path job_file = dir / "job.json", result_file = dir / "result.json";
  fs::remove(result_file);
  HarnessJob sent = job;
  sent.device = device_index_inside(limits.gpu, job.device);
  write_file_atomically(job_file, nlohmann::json(sent).dump(1));

  // The judge seals its result with a key handed over on stdin; the candidate's server shares the
  // sandbox and the job directory, but never sees the key (the judge reads it before starting any
  // server, and no process of the sandbox can read the judge's memory).
  const std::string key = random_key_hex();
  SandboxCommand cmd;
  cmd.argv = wrapper;
  for (const auto& a : {harness, std::string("--job"), job_file.string(), std::string("--out"), result_file.string(),
                        std::string("--seal-key-stdin")})
    cmd.argv.push_back(a);
  cmd.stdin_data = key + "\n";
  cmd.working_dir = dir;
  cmd.limits.wall_time_s = limits.timeout_s;
  cmd.limits.max_rss_mb = limits.max_memory_mb;
  cmd.limits.max_output_bytes = 512 * 1024;
  cmd.kind = limits.sandbox;
  cmd.view = harness_view(harness, dir, {job.baseline_library, job.candidate_library}, wrapper, limits.hidden);
  for (const auto& d : limits.library_dirs) cmd.view.read_only.push_back(d);
  apply_confinement(limits.gpu, cmd);
  spdlog::debug("running {} job for '{}' in {} ({} sandbox)", to_string(job.mode), job.kernel, dir.string(),
                to_string(limits.sandbox));

  HarnessRun run;
  run.process = run_sandboxed(cmd);
  if (!fs::exists(result_file)) {
    run.result_error = "no result file";
  } else {
    try {
      const std::optional<std::string> text = open_sealed(key, read_text_file(result_file));
      if (!text) {
        run.forged = true;
        run.result_error = "the result's seal does not verify";
      } else {
        nlohmann::json parsed = nlohmann::json::parse(*text);
        redact_result_strings(parsed);
        run.result = parsed.get<EvalResult>();
      }
    } catch (const std::exception& e) {
      // Unsealed or unreadable: the judge always writes a sealed, complete file (atomically).
      run.forged = true;
      run.result_error = std::string("unreadable or unsealed result file: ") + e.what();
    }
  }
  if (!run.process.err.empty()) spdlog::debug("harness stderr:\n{}", run.process.err);
  return run;
}

DeviceInfo calibrated_device(const DeviceInfo& queried, const fs::path& cache_dir,
                             const std::function<DeviceInfo()>& calibrate) {
  // The file keeps the device as this process saw it (uuid, name, driver) beside what the
  // harness measured: the harness may spell the driver differently (NVML's release string).
  const fs::path file = cache_dir /
                        ("device-" + (queried.uuid.empty() ? std::to_string(queried.index) : queried.uuid) + ".json");
  if (fs::exists(file)) {
    try {
      nlohmann::json j = nlohmann::json::parse(read_text_file(file));
      DeviceInfo cached = j.at("measured").get<DeviceInfo>();
      if (j.at("uuid") == queried.uuid && j.at("name") == queried.name && j.at("driver") == queried.driver_version &&
          cached.copy_bandwidth_gbps > 0 && cached.fp32_tflops > 0) {
        cached.index = queried.index;  // CUDA_VISIBLE_DEVICES may number it differently this time
        spdlog::debug("device ceilings from {}", file.string());
        return cached;
      }
      spdlog::info("{} describes another GPU or driver; measuring again", file.string());
    } catch (const std::exception& e) {
      spdlog::warn("{}: unreadable ({}); measuring the device again", file.string(), e.what());
    }
  }
  spdlog::info("measuring {} (copy bandwidth, FP32 rate); once per device and driver", queried.name);
  DeviceInfo measured = calibrate();
  measured.index = queried.index;
  if (measured.uuid.empty()) measured.uuid = queried.uuid;
  if (measured.name.empty()) measured.name = queried.name;
  if (measured.driver_version.empty()) measured.driver_version = queried.driver_version;
  nlohmann::json j{{"uuid", queried.uuid},
                   {"name", queried.name},
                   {"driver", queried.driver_version},
                   {"measured", measured}};
  try {
    fs::create_directories(cache_dir);
    write_file_atomically(file, j.dump(2));
  } catch (const std::exception& e) {
    spdlog::warn("the device's ceilings were measured but not saved ({}): the next run measures them again", e.what());
  }
  return measured;
}

DeviceInfo run_calibration(const std::string& harness, int device, const fs::path& dir, const HarnessLimits& limits) {
  fs::create_directories(dir);
  const fs::path out = dir / "calibration.json";
  fs::remove(out);
  SandboxCommand cmd;
  cmd.argv = {harness, "--calibrate", "--device", std::to_string(device_index_inside(limits.gpu, device)),
              "--out", out.string()};
  cmd.working_dir = dir;
  cmd.limits.wall_time_s = limits.timeout_s;
  cmd.kind = limits.sandbox;
  cmd.view = harness_view(harness, dir, {}, {}, limits.hidden);
  apply_confinement(limits.gpu, cmd);
  SandboxResult r = run_sandboxed(cmd);
  if (!r.succeeded() || !fs::exists(out))
    throw Error("device calibration (kernelbot-harness --calibrate) failed: " + r.describe() + "\n" + r.err);
  nlohmann::json parsed = nlohmann::json::parse(read_text_file(out));
  redact_result_strings(parsed);
  return parsed.get<DeviceInfo>();
}

}  // namespace kb::profiler
