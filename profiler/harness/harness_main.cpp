// kernelbot-harness: the child process that runs untrusted variant code on the GPU.
//
//   kernelbot-harness --job job.json --out result.json [--verbose]
//   kernelbot-harness --calibrate --out device.json [--device N] [--verbose]
//
// Exit codes: 0 a result was written (whatever the verdict); 1 the harness itself failed (no
// device, out of memory, CUPTI missing; result.json holds verdict infra_error when it could be
// written); 2 usage error or invalid job; 3 the candidate crashed the process (a sticky CUDA
// error, a signal, exit() from its launcher: stderr has "kb-harness: candidate crashed: ..."
// and result.json, when it could be written, verdict crashed); 4 the same for the baseline.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "profiler/harness/calibration.h"
#include "profiler/harness/cuda_check.h"
#include "profiler/harness/job_io.h"
#include "profiler/harness/job_runner.h"
#include "profiler/harness/variant_call.h"

namespace {

using namespace kb;
using namespace kb::harness;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Writes the result, or says on stderr why it could not.
bool try_write(const std::string& path, const EvalResult& result) {
  try {
    write_result(path, result);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kb-harness: cannot write the result: %s\n", e.what());
    return false;
  }
}

// Ends the process without running CUDA/CUPTI teardown in a context that is already lost.
[[noreturn]] void end_now(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

int run_calibration(const std::string& out, int device) {
  try {
    const DeviceInfo info = calibrate_device(device);
    write_json_file(out, nlohmann::json(info));
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kb-harness: calibration failed: %s\n", e.what());
    return kExitHarnessError;
  }
}

int run_harness(const std::string& job_path, const std::string& out) {
  const auto start = std::chrono::steady_clock::now();
  RunnerJob job;
  try {
    job = load_job(job_path);
  } catch (const JobError& e) {
    std::fprintf(stderr, "kb-harness: invalid job: %s\n", e.what());
    return kExitUsage;
  }
  install_crash_guard();
  EvalResult result;
  try {
    run_job(job, result);
  } catch (const VariantFault& f) {
    result.run_s = seconds_since(start);
    if (f.who == Who::candidate) {
      result.verdict = Verdict::crashed;
      result.reason = std::string("the candidate crashed: ") + f.what() + " during " + current_phase();
    } else {
      result.verdict = Verdict::infra_error;
      result.reason = std::string("the original kernel failed: ") + f.what() + " during " + current_phase();
    }
    try_write(out, result);
    print_crash_line(f.who, f.what());
    if (f.who == Who::baseline) end_now(kExitBaselineCrashed);
    if (f.sticky) end_now(kExitCandidateCrashed);
    return kExitOk;  // a launch the driver refused: the process is fine and the verdict says it
  } catch (const std::exception& e) {
    result.run_s = seconds_since(start);
    result.verdict = Verdict::infra_error;
    result.reason = std::string("the harness failed: ") + e.what();
    try_write(out, result);
    std::fprintf(stderr, "kb-harness: error: %s (during %s)\n", e.what(), current_phase().c_str());
    end_now(kExitHarnessError);
  }
  result.run_s = seconds_since(start);
  if (!try_write(out, result)) return kExitHarnessError;
  spdlog::info("{}: {}", to_string(result.verdict), result.reason);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernelbot-harness: verifies, times and profiles compiled kernel variants on the GPU "
               "(run by kernelbot in a child process)"};
  std::string job_path, out;
  bool calibrate = false, verbose = false;
  int device = 0;
  app.add_option("--job", job_path, "HarnessJob JSON written by kernelbot")->check(CLI::ExistingFile);
  app.add_option("--out", out, "where to write the EvalResult (or DeviceInfo with --calibrate) JSON")->required();
  app.add_flag("--calibrate", calibrate, "measure the device's copy bandwidth and FP32 rate instead of running a job");
  app.add_option("--device", device, "CUDA device for --calibrate (a job names its own)");
  app.add_flag("-v,--verbose", verbose, "log every trial");
  try {
    app.parse(argc, argv);
    if (calibrate == !job_path.empty()) throw CLI::ValidationError("give exactly one of --job and --calibrate");
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  auto logger = spdlog::stderr_color_mt("kb-harness");
  logger->set_pattern("kb-harness [%l] %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
  return calibrate ? run_calibration(out, device) : run_harness(job_path, out);
}
