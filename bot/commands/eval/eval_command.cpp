// `kernelbot eval --kernel NAME --candidate FILE`: verify and time one hand-written candidate
// against the original on the GPU.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bot/checks/original_compile_failure.h"
#include "bot/cli/cli_checks.h"
#include "bot/cli/temp_dir_check.h"
#include "bot/cli/unfinished_kernel.h"
#include "bot/commands/commands.h"
#include "bot/commands/evaluation_tables.h"
#include "common/file_io.h"
#include "core/errors.h"
#include "profiler/evaluate/arch_verification.h"
#include "profiler/evaluate/gpu_evaluator.h"
#include "profiler/evaluate/original_variant.h"

namespace kb::bot {
namespace {

struct EvalArgs {
  std::string kernel;
  std::string candidate;
  bool sanitize = false;
  bool metrics = false;
  int device = 0;
};

const config::KernelSpec& kernel_or_usage_error(const config::Config& config, const std::string& name) {
  if (const auto* spec = config.find_kernel(name)) return *spec;
  std::string names;
  for (const auto& k : config.kernels) names += (names.empty() ? "" : ", ") + k.name;
  throw UsageError("no [[kernel]] named '" + name + "' in " + config.file.string() +
                   (names.empty() ? " (it has none)" : " (it has: " + names + ")"));
}

void run_eval(CliContext& ctx, const EvalArgs& args) {
  // The candidate is a file a person hands over, like the original: the user's code, not held to
  // the candidate source policy that a search's proposals are (the hostile candidates of the
  // judge's own tests come this way too).
  config::Config config = ctx.config();
  config.verify.source_policy = false;
  const config::KernelSpec& spec = kernel_or_usage_error(config, args.kernel);
  require_finished({&spec});
  const std::string replaces = " (the candidate is one source file that replaces " + spec.source + ")";
  std::optional<std::string> text;
  try {  // one way to read a user's file: a directory, a FIFO or a device is named, never waited on
    text = try_read_text_file(args.candidate);
  } catch (const Error& e) {
    throw UsageError("--candidate " + args.candidate + ": not a file it can read (the candidate: " + e.what() + ")" +
                     replaces);
  }
  if (!text) throw UsageError("--candidate " + args.candidate + ": no such file" + replaces);
  Variant candidate{*text, {}, {}, std::filesystem::path(args.candidate).filename().string()};

  require_writable_temp_dir();
  auto evaluator = profiler::make_gpu_evaluator_for_profile(config, args.device);  // NoDeviceError: exit 1
  spdlog::info("compiling the original {} and the candidate {}", spec.source, args.candidate);
  const Variant original = profiler::original_variant(config, spec);
  CompiledVariant base = evaluator->compile(spec, original);
  if (!base.ok) throw Error(original_compile_failure(config, spec, base.log));
  CompiledVariant cand = evaluator->compile(spec, candidate);
  spdlog::info("verifying and timing on {}", evaluator->device().name);
  EvalOptions options;
  options.sanitize = args.sanitize || config.verify.sanitize;
  options.collect_metrics = args.metrics;
  EvalResult result = evaluator->evaluate(spec, base, cand, options);
  // Every architecture the project builds, as before a PR (profiler/evaluate/arch_verification.h).
  profiler::verify_target_archs(*evaluator, config, spec, original, candidate, result);

  const bool failed = result.verdict == Verdict::infra_error;
  const std::string failure = "the evaluation could not run: " + result.reason;
  if (ctx.options.json) {
    // The result with the envelope of every command's --json answer (bot/failure_report.h).
    nlohmann::json out = result;
    out["ok"] = !failed;
    out["exit_code"] = failed ? 1 : 0;
    if (failed) {
      out["error"] = {{"kind", "failed"}, {"message", failure}};
      std::cerr << "kernelbot: error: " << failure << "\n";
      ctx.exit_code = 1;
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << render_eval_result(result, spec.name, args.candidate);
  if (failed) throw Error(failure);
}

}  // namespace

void register_eval_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("eval", "Verify and time one candidate file against the original kernel");
  cmd->footer("The candidate is a full replacement for the kernel's source file: the same launcher with the same\n"
              "signature, and the kernels it launches. It is compiled with the kernel's flags, verified against the\n"
              "original on fresh random inputs at every configured size, and both are timed interleaved. Then it is\n"
              "compiled and verified for each other GPU architecture the project builds for ([project] target_archs,\n"
              "else its build files), or only compiled where this GPU cannot run that architecture's code.\n\n"
              "Exit status: 0 when the evaluation ran, whatever the verdict (accepted, not_faster, wrong_result,\n"
              "crashed, timed_out, rejected, compile_error); 1 when it could not run (no GPU, the original does not\n"
              "compile, the harness failed); 2 for a bad command line or config.");
  auto args = std::make_shared<EvalArgs>();
  cmd->add_option("--kernel", args->kernel, "The [[kernel]] name in kernelbot.toml")->required();
  cmd->add_option("--candidate", args->candidate, "The candidate source file (replaces the kernel's source)")
      ->required();
  cmd->add_flag("--sanitize", args->sanitize,
                "Also run compute-sanitizer memcheck (with leak check), racecheck, synccheck and initcheck, each on "
                "one call at the smallest and one at the largest configured size set");
  cmd->add_flag("--metrics", args->metrics, "Also collect CUPTI hardware metrics of both (a separate run)");
  cmd->add_option("--device", args->device, "CUDA device index")->capture_default_str()->check(at_least(0));
  cmd->callback([&ctx, args] { run_eval(ctx, *args); });
}

}  // namespace kb::bot
