// `kernelbot profile`: time the configured kernels' originals (with hardware metrics), or, with
// `-- <command...>`, rank the kernels of the user's own workload by GPU time.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "bot/checks/config_validation.h"
#include "bot/checks/original_compile_failure.h"
#include "bot/cli/cli_checks.h"
#include "bot/cli/temp_dir_check.h"
#include "bot/cli/unfinished_kernel.h"
#include "bot/commands/commands.h"
#include "bot/commands/evaluation_tables.h"
#include "config/config_loader.h"
#include "profiler/device_query.h"
#include "profiler/evaluate/gpu_evaluator.h"
#include "profiler/evaluate/original_variant.h"
#include "profiler/workload/workload_run.h"

namespace kb::bot {
namespace {

struct ProfileArgs {
  std::string kernel;
  bool no_metrics = false;
  int device = 0;
  double timeout_s = 1800;
  std::vector<std::string> command;
};

void profile_kernels(CliContext& ctx, const ProfileArgs& args) {
  const config::Config& config = validated_config(ctx);
  std::vector<const config::KernelSpec*> specs;
  for (const auto& k : config.kernels)
    if (args.kernel.empty() || k.name == args.kernel) specs.push_back(&k);
  if (specs.empty())
    throw UsageError(args.kernel.empty()
                         ? "no [[kernel]] in " + config.file.string() + " (add one, or see `kernelbot discover`)"
                         : "no [[kernel]] named '" + args.kernel + "' in " + config.file.string());
  require_finished(specs);
  require_writable_temp_dir();
  auto evaluator = profiler::make_gpu_evaluator_for_profile(config, args.device);
  std::vector<std::pair<std::string, EvalResult>> profiles;
  bool failed = false;
  for (const auto* spec : specs) {
    spdlog::info("profiling {} ({})", spec->name, spec->source);
    CompiledVariant base = evaluator->compile(*spec, profiler::original_variant(config, *spec));
    EvalResult r = evaluator->profile_baseline(*spec, base, !args.no_metrics);
    if (!base.ok) r.reason = original_compile_failure(config, *spec, base.log);
    failed |= r.verdict != Verdict::pending && !verdict_is_correct(r.verdict);
    profiles.emplace_back(spec->name, std::move(r));
  }
  const std::string failure = "some kernels could not be profiled (see above)";
  if (ctx.options.json) {
    // One object (bot/failure_report.h's envelope) with the profiles, also when a kernel failed.
    auto j = nlohmann::json::array();
    for (const auto& [name, r] : profiles) j.push_back({{"kernel", name}, {"result", r}});
    nlohmann::json out{{"ok", !failed}, {"exit_code", failed ? 1 : 0}};
    if (failed) out["error"] = {{"kind", "failed"}, {"message", failure}};
    out["kernels"] = j;
    std::cout << out.dump(2) << "\n";
    if (failed) {
      std::cerr << "kernelbot: error: " << failure << "\n";
      ctx.exit_code = 1;
    }
    return;
  }
  std::cout << render_kernel_profiles(profiles);
  if (failed) throw Error(failure);
}

// The workload's program is a file that exists, or a name on PATH: checked before the GPU, so that
// a typo is not reported as "no CUDA device".
void require_program(const std::string& program) {
  namespace fs = std::filesystem;
  if (program.find('/') != std::string::npos) {
    if (fs::is_regular_file(program) && access(program.c_str(), X_OK) == 0) return;
    throw UsageError("profile -- " + program + ": " +
                     (!fs::exists(program)        ? "no such file"
                      : fs::is_directory(program) ? "a directory, not a program"
                                                  : "not executable"));
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t begin = 0; begin <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = dirs.substr(begin, end - begin);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (fs::is_regular_file(candidate) && access(candidate.c_str(), X_OK) == 0) return;
    begin = end + 1;
  }
  throw UsageError("profile -- " + program + ": no such program on PATH (give its path, e.g. ./" + program + ")");
}

void profile_workload(CliContext& ctx, const ProfileArgs& args) {
  std::string command;
  for (const auto& a : args.command) command += (command.empty() ? "" : " ") + a;
  // The workload runs anywhere; the config (if any) only names kernels in the ranking.
  const auto config_file = config::find_config_file(ctx.options.config_path, std::filesystem::current_path());
  const config::Config* config = config_file.empty() ? nullptr : &ctx.config();
  require_program(args.command.front());
  profiler::query_devices();  // a clear NoDeviceError (exit 1) instead of an empty profile
  const std::string inject = profiler::find_inject_library();
  const auto out_dir = std::filesystem::absolute(config ? config->resolve(config->search.work_dir) / "workload"
                                                        : std::filesystem::path(".kernelbot/work/workload"));
  spdlog::info("running `{}` with kernel tracing", command);
  profiler::WorkloadRun run = profiler::run_workload(args.command, inject, out_dir, args.timeout_s);
  if (!run.process.out.empty()) std::cerr << run.process.out;
  if (!run.process.err.empty()) std::cerr << run.process.err;
  if (!run.process.started) throw Error("could not run `" + command + "`: " + run.process.start_error);
  if (!run.process.succeeded()) spdlog::warn("`{}` ended with {}", command, run.process.describe());
  if (run.recordings.empty())
    throw Error("no kernel profile was written by `" + command + "` (" + run.process.describe() +
                "): it ran no CUDA code, or it did not exit normally (a crash or a kill skips the "
                "profile's exit handler)");
  const auto root = config ? config->root : ctx.scan_root("");
  auto exclude = config ? config->project.discover_exclude : config::ProjectConfig{}.discover_exclude;
  profiler::WorkloadRanking ranking = profiler::rank_workload(run.recordings, cuda_source::scan_tree(root, exclude),
                                                              config);
  if (ctx.options.json)
    std::cout << workload_ranking_json(ranking, command, run.process.wall_s, run.process.exit_code).dump(2) << "\n";
  else std::cout << render_workload_ranking(ranking, command, run.process.wall_s);
}

}  // namespace

void register_profile_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("profile",
                                 "Profile the configured kernels, or a workload: kernelbot profile -- <command...>");
  cmd->footer("Without a command: compiles each configured kernel's original source, times it on every size set\n"
              "(median, noise, % of the roofline floor from the measured copy bandwidth and FP32 rate) and collects\n"
              "CUPTI hardware metrics in a separate run.\n"
              "With `-- <command...>`: runs the command with kernelbot's CUPTI injection library, records every\n"
              "kernel it launches and ranks them by total GPU time, mapped to the source files and launchers.\n\n"
              "Exit status: 0 done; 1 no GPU, a kernel could not be profiled, or the workload recorded nothing;\n"
              "2 bad command line or config.");
  auto args = std::make_shared<ProfileArgs>();
  cmd->add_option("--kernel", args->kernel, "Profile only this [[kernel]]");
  cmd->add_flag("--no-metrics", args->no_metrics, "Skip the CUPTI metrics run");
  cmd->add_option("--device", args->device, "CUDA device index")->capture_default_str()->check(at_least(0));
  cmd->add_option("--timeout", args->timeout_s, "Time limit for the workload command, seconds")
      ->capture_default_str()
      ->check(above_zero());
  cmd->add_option("command", args->command, "The workload to run, after --");
  cmd->callback([&ctx, args] {
    if (args->command.empty()) profile_kernels(ctx, *args);
    else profile_workload(ctx, *args);
  });
}

}  // namespace kb::bot
