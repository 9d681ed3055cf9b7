#include "profiler/evaluate/jobs/judge_client.h"

#include <spdlog/spdlog.h>

#include "common/hmac_sha256.h"
#include "common/sealed_text.h"
#include "core/errors.h"
#include "profiler/evaluate/compile/variant_compiler.h"

namespace kb::profiler {
namespace fs = std::filesystem;

std::string session_key(const HarnessJob& job) {
  return std::to_string(job.device) + "\n" + job.kernel + "\n" + job.baseline_library;
}

JudgeClient::JudgeClient(const std::string& harness, const HarnessJob& job, const fs::path& dir,
                         const HarnessLimits& limits)
    : key_(session_key(job)),
      seal_key_(random_key_hex()),
      dir_(dir),
      libraries_(dir.string() + "-libraries"),
      gpu_(limits.gpu) {
  fs::create_directories(dir_);
  fs::create_directories(libraries_);
  SandboxCommand cmd;
  cmd.argv = {harness, "--session", dir_.string()};
  // Only the namespace sandbox's /tmp, /dev/shm and IPC namespace are the session's own to clear.
  if (limits.sandbox == SandboxKind::namespaces) cmd.argv.push_back("--private-tmp");
  cmd.working_dir = dir_;
  // Each job's time is bounded by its exchange; the session itself lives as long as the search.
  cmd.limits.wall_time_s = 7 * 24 * 3600.0;
  cmd.limits.max_cpu_s = 7 * 24 * 3600.0;
  cmd.limits.max_rss_mb = limits.max_memory_mb;
  cmd.limits.max_output_bytes = 512 * 1024;
  cmd.kind = limits.sandbox;
  cmd.view = harness_view(harness, dir_, {job.baseline_library}, {}, limits.hidden);
  cmd.view.read_only.push_back(libraries_);
  for (const auto& d : limits.library_dirs) cmd.view.read_only.push_back(d);
  apply_confinement(limits.gpu, cmd);
  spdlog::debug("starting a judge's session for '{}' on GPU {} in {}", job.kernel, job.device, dir_.string());
  session_ = std::make_unique<SandboxedService>(cmd);
  session_->post(seal_key_);
}

JudgeClient::~JudgeClient() {
  session_.reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
  fs::remove_all(libraries_, ec);
}

bool JudgeClient::serves(const HarnessJob& job) const { return alive() && session_key(job) == key_; }

HarnessRun JudgeClient::run(const HarnessJob& job, double timeout_s) {
  HarnessRun run;
  HarnessJob sent = job;
  sent.device = device_index_inside(gpu_, job.device);
  const uint64_t seq = jobs_;  // the judge numbers the jobs it receives
  fs::path copy;
  if (!job.candidate_library.empty()) {
    copy = libraries_ / std::to_string(seq) / fs::path(job.candidate_library).filename();
    std::error_code ec;
    fs::create_directories(copy.parent_path(), ec);
    if (!ec) fs::copy_file(job.candidate_library, copy, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      run.process.start_error = "cannot copy the candidate's library for the judge's session: " + ec.message();
      return run;
    }
    sent.candidate_library = copy.string();
  }
  ++jobs_;
  SandboxedService::Exchange x = session_->exchange(nlohmann::json(sent).dump(), timeout_s);
  if (!copy.empty()) {
    std::error_code ec;
    fs::remove_all(copy.parent_path(), ec);
  }
  run.process = std::move(x.process);
  if (!x.reply) {
    run.result_error = x.protocol_error.empty() ? "the judge's session ended without a result" : x.protocol_error;
    return run;
  }
  nlohmann::json reply;
  try {
    const std::optional<std::string> text = open_sealed(seal_key_, *x.reply);
    if (!text) throw Error("its seal does not verify");
    reply = nlohmann::json::parse(*text);
    if (reply.at("seq").get<uint64_t>() != seq) throw Error("it answers another job");
  } catch (const std::exception& e) {
    // Only the judge holds the key; anything else on the channel came from inside the sandbox.
    run.forged = true;
    run.result_error = std::string("a reply that is not the judge's: ") + e.what();
    spdlog::debug("a reply that is not the judge's ({}); the judge's stderr: {}", e.what(), run.process.err);
    session_->close();
    return run;
  }
  try {
    run.process.exit_code = reply.at("exit_code").get<int>();
    if (reply.contains("result")) {
      nlohmann::json result = reply.at("result");
      redact_result_strings(result);
      run.result = result.get<EvalResult>();
    } else {
      run.result_error = "no result (the judge refused the job)";
    }
    if (reply.contains("session_ended")) {
      spdlog::debug("the judge's session for '{}' ended: {}", job.kernel, reply.at("session_ended").dump());
      session_->close();
    }
  } catch (const std::exception& e) {
    // Sealed by the judge, yet unreadable: the judge's failure.
    run.process.exit_code = 1;
    run.result = std::nullopt;
    run.result_error = std::string("unreadable reply from the judge's session: ") + e.what();
    session_->close();
  }
  return run;
}

}  // namespace kb::profiler
