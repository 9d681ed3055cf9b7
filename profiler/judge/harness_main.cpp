// kernelbot-harness: the judge that verifies, times and profiles compiled kernel variants on the
// GPU, and the variant servers it starts (one per variant, each loading only that variant).
//
//   kernelbot-harness --job job.json --out result.json [--seal-key-stdin] [--verbose]   the judge
//   kernelbot-harness --session DIR [--private-tmp]   the judge of a whole search: a key, then
//                     jobs on descriptor 3, sealed replies on descriptor 4, the original's server
//                     kept between jobs (judge_session.h)
//   kernelbot-harness --serve --fd 3 --device N   a server (started by the judge; the job, and
//                     with it the library to load, comes over the socket; it is not told whose)
//   kernelbot-harness --calibrate --out device.json [--device N] [--verbose]
//   kernelbot-harness --load-check lib.so     dlopen it as a server would (no GPU needed): exit 0
//                                            when it loads and exports kb_launch, else 1 with the
//                                            loader's message (`kernelbot check --compile`)
//
// Exit codes: 0 a result was written (whatever the verdict); 1 the harness itself failed (no
// device, out of memory, CUPTI missing; result.json holds verdict infra_error when it could be
// written); 2 usage error or invalid job; 3 the candidate's server died (a sticky CUDA error, a
// signal, exit() from its launcher: its stderr has "kb-harness: candidate crashed: ..." and
// result.json verdict crashed); 4 the same for the original's server.
//
// --seal-key-stdin: the first line of stdin is a key (hex) that only kernelbot and this judge know;
// result.json then carries an HMAC of the result, so a result written by anyone else (a candidate
// shares the job directory) is recognised as forged.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "common/clock.h"
#include "common/sealed_text.h"
#include "profiler/judge/library/variant_library.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/server/variant_server.h"
#include "profiler/judge/session/job_modes.h"
#include "profiler/judge/session/judge_session.h"
#include "profiler/judge/session/judged_job.h"
#include "profiler/judge/timing/calibration.h"
#include "profiler/judge/wire/job_io.h"
#include "profiler/judge/wire/variant_process.h"

namespace {

using namespace kb;
using namespace kb::judge;

// Writes the result (sealed when there is a key), or says on stderr why it could not.
bool try_write(const std::string& path, const EvalResult& result, const std::string& key) {
  try {
    if (key.empty()) {
      write_result(path, result);
    } else {
      const std::string text = nlohmann::json(result).dump();
      write_json_file(path, sealed_envelope(key, text));
    }
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kb-harness: cannot write the result: %s\n", e.what());
    return false;
  }
}

// Ends the process without running CUDA/CUPTI teardown in a context that may be lost.
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

int run_server(int device, int fd) {
  install_crash_guard();
  end_now(serve_variant(fd, device));
}

// The load a variant server makes (load_variant_library: dlopen RTLD_NOW), without a GPU or a
// job: every undefined symbol and missing dependency shows here as it would at the first run.
int run_load_check(const std::string& library) {
  try {
    load_variant_library(library);
  } catch (const LibraryError& e) {
    std::fprintf(stderr, "kb-harness: %s\n", e.what());
    return kExitHarnessError;
  }
  std::printf("loaded %s\n", library.c_str());
  return kExitOk;
}

int run_judge(const std::string& job_path, const std::string& out, const std::string& key, bool verbose) {
  const auto start = std::chrono::steady_clock::now();
  install_crash_guard();
  std::string job_text;
  try {
    job_text = read_job_text(job_path);
  } catch (const JobError& e) {
    std::fprintf(stderr, "kb-harness: invalid job: %s\n", e.what());
    end_now(kExitUsage);
  }
  // The job file holds the judging (seeds, trials, mode) and lies in the job directory, the
  // servers' working directory: it goes before any server exists, so no variant can read it.
  if (::unlink(job_path.c_str()) != 0)
    spdlog::warn("could not remove the job file {} before starting the servers: {}", job_path, std::strerror(errno));
  JobProcesses processes;
  JudgedJob judged = judge_job(job_text, "the job file " + job_path, processes,
                               [&](const DecodedJob& job, JobProcesses& p) {
                                 p = start_job_processes(job.raw.device, !job.raw.under_sanitizer,
                                                         !job.raw.candidate_library.empty(), verbose);
                               });
  if (!judged.has_result) end_now(judged.exit_code);
  // The servers end before the result exists (quit, then waited for): no variant code runs on
  // once the verdict is written, and under compute-sanitizer the candidate's destroys its CUDA
  // context before it answers the quit (memcheck's leak check reports then).
  const auto ending = std::chrono::steady_clock::now();
  processes = {};
  // Under the tools the end is memcheck's leak check and the tools' reports: worth its own line.
  if (judged.result.phase_s.count(kCallsUnderTheTool) != 0)
    judged.result.phase_s["the servers' end under the tool"] += seconds_since(ending);
  judged.result.run_s = seconds_since(start);
  if (!try_write(out, judged.result, key) && judged.exit_code == kExitOk) end_now(kExitHarnessError);
  if (judged.exit_code == kExitOk) spdlog::info("{}: {}", to_string(judged.result.verdict), judged.result.reason);
  end_now(judged.exit_code);
}

}  // namespace

// Only building the CLI runs outside a try, and a throw there is a bug in the harness that
// std::terminate reports well enough.
// NOLINTNEXTLINE(bugprone-exception-escape)
int main(int argc, char** argv) {
  // No process of this user may read this one's memory or descriptors (/proc/<pid>/mem, fd/,
  // ptrace): a candidate's server runs as the same user, beside the judge and the original.
  prctl(PR_SET_DUMPABLE, 0);
  CLI::App app{"kernelbot-harness: verifies, times and profiles compiled kernel variants on the GPU "
               "(run by kernelbot in a child process)"};
  std::string job_path, out, load_check, session_dir;
  bool calibrate = false, verbose = false, seal = false, serve = false, private_tmp = false;
  int device = 0, fd = -1;
  app.add_option("--job", job_path, "HarnessJob JSON written by kernelbot")->check(CLI::ExistingFile);
  app.add_option("--out", out, "where to write the EvalResult (or DeviceInfo with --calibrate) JSON");
  app.add_flag("--seal-key-stdin", seal, "read a key from stdin's first line and seal the result with it (HMAC)");
  app.add_flag("--calibrate", calibrate, "measure the device's copy bandwidth and FP32 rate instead of running a job");
  app.add_option("--device", device, "CUDA device for --calibrate and --serve (a job names its own)");
  app.add_option("--session", session_dir,
                 "serve a session of jobs (a key, then jobs as frames on descriptor 3; sealed replies on "
                 "descriptor 4) with DIR as the working directory, emptied after every job")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--private-tmp", private_tmp,
               "with --session: /tmp, /dev/shm and System V IPC are the sandbox's own; clear them after every job");
  app.add_flag("--serve", serve, "serve a variant to the judge (internal: the judge starts it)");
  app.add_option("--fd", fd, "with --serve: the socket to the judge");
  app.add_option("--load-check", load_check,
                 "only load this variant library as a server would (dlopen RTLD_NOW, kb_launch) and exit: 0 when "
                 "it loads, 1 with the loader's message when not; needs no GPU");
  app.add_flag("-v,--verbose", verbose, "log every trial");
  try {
    app.parse(argc, argv);
    if (!load_check.empty()) {
      // Nothing else applies.
    } else if (serve) {
      if (fd < 0) throw CLI::ValidationError("--serve needs --fd");
    } else if (!session_dir.empty()) {
      if (calibrate || !job_path.empty() || !out.empty())
        throw CLI::ValidationError("--session takes no --job, --out or --calibrate");
    } else {
      if (calibrate == !job_path.empty()) throw CLI::ValidationError("give exactly one of --job and --calibrate");
      if (out.empty()) throw CLI::ValidationError("--out is required");
    }
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (!load_check.empty()) return run_load_check(load_check);
  auto logger = spdlog::stderr_color_mt("kb-harness");
  // A server's lines carry its process id: the judge logs which process serves which variant.
  logger->set_pattern(!serve ? "kb-harness [%l] %v" : "kb-harness server %P [%l] %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
  if (serve) return run_server(device, fd);
  if (calibrate) return run_calibration(out, device);
  if (!session_dir.empty()) end_now(run_session({session_dir, private_tmp, verbose}));
  std::string key;
  if (seal) {
    std::getline(std::cin, key);
    if (key.size() < 32) {
      std::fprintf(stderr, "kb-harness: --seal-key-stdin: no key on stdin\n");
      return kExitUsage;
    }
  }
  return run_judge(job_path, out, key, verbose);
}
