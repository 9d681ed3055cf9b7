// `kernelbot check --compile [--kernel NAME]...`: what a GPU run does first, on a machine without
// a GPU (CI): for every kernel, the entry shim is generated and the original compiled exactly as a
// run compiles it (the repository's flags, include dirs, defines, extra_sources, link_libs; -arch
// from [project].cuda_arch, else the GPU's, else sm_90), then loaded as a variant server loads it
// (dlopen RTLD_NOW in kernelbot-harness, sandboxed). A missing link_libs entry then shows as the
// undefined symbol and the library that probably provides it, and a compile error with the
// kernel's file and line.
#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bot/checks/compile_hints.h"
#include "bot/checks/config_validation.h"
#include "bot/checks/original_compile_failure.h"
#include "bot/cli/cli_checks.h"
#include "bot/cli/temp_dir_check.h"
#include "bot/commands/commands.h"
#include "common/ordered_parallel.h"
#include "profiler/evaluate/gpu_evaluator.h"
#include "profiler/evaluate/original_variant.h"

namespace kb::bot {
namespace {

struct CheckArgs {
  bool compile = false;
  std::vector<std::string> kernels;
  int64_t jobs = 0;  // kernels compiled at once; 0: one per core
};

// One kernel's outcome.
struct KernelCheck {
  std::string kernel;
  bool compiled = false;
  bool loaded = false;
  std::string compile_log;         // when it did not compile, with the kernel's own file:line
  std::vector<std::string> hints;  // what to change, where nvcc's or the loader's words point elsewhere
  profiler::LoadCheck load;
  bool ok() const { return compiled && loaded; }
};

std::vector<const config::KernelSpec*> selected_kernels(const config::Config& config,
                                                        const std::vector<std::string>& names) {
  std::vector<const config::KernelSpec*> out;
  if (names.empty()) {
    for (const auto& k : config.kernels) out.push_back(&k);
    return out;
  }
  for (const auto& name : names) {
    const auto* spec = config.find_kernel(name);
    if (!spec) {
      std::string all;
      for (const auto& k : config.kernels) all += (all.empty() ? "" : ", ") + k.name;
      throw UsageError("no [[kernel]] named '" + name + "' in " + config.file.string() +
                       (all.empty() ? " (it has none)" : " (it has: " + all + ")"));
    }
    out.push_back(spec);
  }
  return out;
}

KernelCheck check_kernel(profiler::GpuEvaluator& evaluator, const config::Config& config,
                         const config::KernelSpec& spec) {
  KernelCheck c;
  c.kernel = spec.name;
  const CompiledVariant compiled = evaluator.compile(spec, profiler::original_variant(config, spec));
  c.compiled = compiled.ok;
  if (!compiled.ok) {
    c.compile_log = with_source_names(compiled.log, spec.source);
    c.hints = compile_error_hints(c.compile_log, config);
    return c;
  }
  c.load = evaluator.check_load(spec, compiled);
  c.loaded = c.load.loaded;
  if (!c.loaded && !c.load.undefined_symbol.empty())
    if (std::string hint = undefined_symbol_hint(c.load.undefined_symbol, config, spec); !hint.empty())
      c.hints.push_back(hint);
  return c;
}

void print_text(const KernelCheck& c, const std::string& arch) {
  std::cout << "kernel " << c.kernel << ": ";
  if (!c.compiled) {
    std::cout << "COMPILE ERROR (-arch=" << arch << ")\n";
    for (const auto& hint : c.hints) std::cout << "  hint: " << hint << "\n";
    std::cout << c.compile_log;
    if (!c.compile_log.empty() && c.compile_log.back() != '\n') std::cout << "\n";
    return;
  }
  std::cout << "compiled (-arch=" << arch << ")";
  if (c.loaded) {
    std::cout << ", loaded\n";
    return;
  }
  std::cout << ", NOT LOADED";
  if (!c.load.undefined_symbol.empty()) {
    std::cout << ": undefined symbol " << c.load.undefined_symbol;
    // The repository's own definition (or the setup's kb_setup) says more than a library search.
    if (!c.hints.empty()) std::cout << "\n  hint: " << c.hints.front();
    else
      std::cout << (c.load.provider.empty() ? " (no library found that defines it: add the one that does to link_libs)"
                                            : ", probably from " + c.load.provider);
  }
  std::cout << "\n  " << c.load.message << "\n";
}

nlohmann::json to_json(const KernelCheck& c) {
  nlohmann::json j{{"kernel", c.kernel}, {"compiled", c.compiled}, {"loaded", c.loaded}};
  if (!c.compiled) j["compile_log"] = c.compile_log;
  if (!c.hints.empty()) j["hints"] = c.hints;
  if (c.compiled && !c.loaded) {
    j["load_error"] = c.load.message;
    j["undefined_symbol"] = c.load.undefined_symbol;
    j["provider"] = c.load.provider;
  }
  return j;
}

void run_check(CliContext& ctx, const CheckArgs& args) {
  const config::Config& config = validated_config(ctx);  // what `config check` checks, first
  // A --kernel that names no kernel is an error with or without --compile, never an "ok".
  const std::vector<const config::KernelSpec*> kernels = selected_kernels(config, args.kernels);
  if (!args.compile) {
    // Without --compile there is only the config to check, which loading it just did.
    if (ctx.options.json) {
      std::cout << nlohmann::json{{"ok", true},
                                  {"exit_code", 0},
                                  {"file", config.file.string()},
                                  {"kernels", config.kernels.size()},
                                  {"compiled", false}}
                       .dump(2)
                << "\n";
      return;
    }
    std::cout << config.file.string() << ": ok (" << config.kernels.size() << " kernel"
              << (config.kernels.size() == 1 ? "" : "s") << "); add --compile to compile and load every kernel\n";
    return;
  }
  if (kernels.empty()) throw UsageError(config.file.string() + " has no [[kernel]] to compile");
  require_writable_temp_dir();  // before any kernel is blamed for it
  std::unique_ptr<profiler::GpuEvaluator> evaluator;
  try {
    evaluator = profiler::make_gpu_evaluator_for_check(config);
  } catch (const std::runtime_error& e) {  // no kernelbot-harness, no bubblewrap for the sandbox
    throw Error(std::string("cannot check without the GPU runner's parts: ") + e.what());
  }
  // Compiles run side by side (each nvcc is one process); the report keeps the config's order.
  const size_t jobs = args.jobs > 0 ? static_cast<size_t>(args.jobs)
                                    : std::max<size_t>(1, std::thread::hardware_concurrency());
  spdlog::info("checking {} kernel(s), {} at a time", kernels.size(), std::min(jobs, kernels.size()));
  const std::vector<KernelCheck> results = run_ordered_parallel<KernelCheck>(
      kernels.size(), jobs,
      [&](size_t i) {
        spdlog::info("{}: compiling {} and loading it as the harness would", kernels[i]->name, kernels[i]->source);
        return check_kernel(*evaluator, config, *kernels[i]);
      },
      [&](size_t, const KernelCheck& c) {
        if (!ctx.options.json) print_text(c, evaluator->arch());
      });
  size_t failed = 0;
  for (const auto& r : results) failed += r.ok() ? 0 : 1;
  if (ctx.options.json) {
    // The failure envelope of every command (bot/failure_report.h), with the per-kernel report beside it.
    nlohmann::json out{{"ok", failed == 0}, {"exit_code", failed == 0 ? 0 : 1}};
    if (failed > 0)
      out["error"] = {{"kind", "failed"},
                      {"message", std::to_string(failed) + " of " + std::to_string(results.size()) +
                                      " kernel(s) did not compile or load"}};
    out["arch"] = evaluator->arch();
    out["kernels"] = nlohmann::json::array();
    for (const auto& r : results) out["kernels"].push_back(to_json(r));
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << results.size() - failed << " of " << results.size() << " kernel" << (results.size() == 1 ? "" : "s")
              << " compiled and loaded\n";
  }
  if (failed > 0) ctx.exit_code = 1;
}

}  // namespace

void register_check_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("check",
                                 "Check that every kernel compiles and loads as a GPU run needs (no GPU needed)");
  cmd->footer(
      "With --compile, each kernel's original is compiled exactly as a GPU run compiles it (the project's\n"
      "flags, include_dirs, defines, extra_sources and link_libs; -arch from [project].cuda_arch, else the\n"
      "GPU's, else sm_90), then loaded the way the harness loads it (dlopen RTLD_NOW in kernelbot-harness,\n"
      "inside the [verify].sandbox). A library that does not load is reported with its undefined symbol and\n"
      "the library that probably provides it (add that to link_libs); a compile error with the kernel's\n"
      "file and line. Kernels compile in parallel (-j N; default one per core), reported in the config's order.\n\n"
      "Exit status: 0 when every kernel compiled and loaded; 1 when any did not (or the check could not run);\n"
      "2 for a bad command line or config.");
  auto args = std::make_shared<CheckArgs>();
  cmd->add_flag("--compile", args->compile, "Compile and load every kernel's original (the point of this command)");
  cmd->add_option("--kernel", args->kernels, "Only this [[kernel]] (repeatable); default: every kernel");
  cmd->add_option("-j,--jobs", args->jobs,
                  "Kernels compiled at once (default: one per core); the report keeps the "
                  "config's order")
      ->check(at_least(1));
  cmd->callback([&ctx, args] { run_check(ctx, *args); });
}

}  // namespace kb::bot
