#include "profiler/evaluate/compile/variant_compiler.h"
#include "common/file_io.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>

#include "common/file_write.h"
#include "common/secret_redactor.h"
#include "common/sha256.h"
#include "core/errors.h"
#include "profiler/evaluate/compile/arch_flags.h"
#include "profiler/evaluate/compile/compile_commands.h"
#include "profiler/evaluate/compile/compile_dependencies.h"
#include "profiler/evaluate/compile/compile_log_order.h"
#include "profiler/evaluate/compile/entry_shim.h"
#include "profiler/evaluate/compile/nvcc_flag_paths.h"
#include "profiler/evaluate/compile/nvcc_phase_times.h"
#include "profiler/evaluate/compile/ptxas_report.h"
#include "profiler/evaluate/compile/setup_source.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

// What ran out, when nvcc was stopped by one of the compile's limits; empty otherwise. An
// allocation refused by the address-space backstop ends the compiler with its own message.
std::string compile_limit_reason(const SandboxResult& run, const std::string& log, const CompilerOptions& options) {
  auto gib = [](int64_t mb) { return fmt::format("{:g} GiB", static_cast<double>(mb) / 1024); };
  if (run.timed_out)
    return fmt::format("the compile ran out of its time limit ({:g} s, [verify] compile_timeout_s)", options.timeout_s);
  const bool memory_message = log.find("out of memory") != std::string::npos ||
                              log.find("memory exhausted") != std::string::npos ||
                              log.find("bad_alloc") != std::string::npos ||
                              log.find("Cannot allocate memory") != std::string::npos ||
                              log.find("MemoryError") != std::string::npos;
  if (run.killed_for_memory || (options.max_memory_mb > 0 && run.started && run.exit_code != 0 && memory_message))
    return "the compile ran out of its memory limit (" + gib(options.max_memory_mb) +
           " of host memory, [verify] compile_memory_gib)";
  return {};
}

std::vector<std::string> link_arguments(const config::Config& config, const std::vector<std::string>& libs) {
  std::vector<std::string> out;
  for (const auto& lib : libs) {
    if (lib.starts_with("-")) out.push_back(lib);
    else if (lib.find('/') != std::string::npos || lib.find(".so") != std::string::npos ||
             (lib.size() > 2 && lib.substr(lib.size() - 2) == ".a"))
      out.push_back(config.resolve(lib).string());
    else out.push_back("-l" + lib);
  }
  return out;
}

// The library's other translation units: extra_sources, then the setup source.
std::vector<fs::path> extra_sources(const config::Config& config, const config::KernelSpec& spec) {
  std::vector<fs::path> out;
  for (const auto& s : config.project.extra_sources) out.push_back(config.resolve(s));
  for (const auto& s : spec.extra_sources) out.push_back(config.resolve(s));
  if (const std::string& setup = config.setup_source_for(spec); !setup.empty()) out.push_back(config.resolve(setup));
  return out;
}

// The entry shim, with the reference to kb_setup when the library carries a setup source.
std::string entry_shim_text(const config::Config& config, const config::KernelSpec& spec, const std::string& include,
                            const std::string& source) {
  std::string shim = generate_entry_shim(spec, include, source);
  if (!config.setup_source_for(spec).empty()) shim += setup_reference();
  return shim;
}

}  // namespace

FilesystemView compile_view(const std::vector<std::string>& argv, const fs::path& build_dir,
                            const std::vector<fs::path>& hidden) {
  FilesystemView view;
  view.hidden = hidden;
  view.writable = {build_dir};
  if (!argv.empty()) add_toolchain(view, argv.front());
  static const char* const kPathFlags[] = {"-isystem",        "-iquote",         "-idirafter", "-include",
                                           "--include-path=", "--library-path=", "-I",         "-L"};
  std::string pending;  // a flag whose path is the next argument ("-isystem DIR")
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string arg = argv[i];
    if (!pending.empty()) {
      pending.clear();
    } else {
      for (const char* flag : kPathFlags)
        if (arg.starts_with(flag)) {
          arg = arg.substr(std::string(flag).size());
          if (arg.empty()) pending = flag;
          break;
        }
      if (!pending.empty()) continue;
    }
    if (arg.empty() || arg[0] != '/') continue;
    std::error_code ec;
    if (fs::exists(arg, ec) && !fs::path(arg).lexically_normal().string().starts_with(build_dir.string()))
      view.read_only.push_back(arg);
  }
  return view;
}

std::string resolve_cuda_arch(const std::string& configured, int cc_major, int cc_minor) {
  if (!configured.empty()) {
    std::string a = configured;
    if (a.starts_with("sm_")) return a;
    if (a.starts_with("compute_")) return "sm_" + a.substr(8);
    a.erase(std::remove(a.begin(), a.end(), '.'), a.end());
    return "sm_" + a;
  }
  if (cc_major > 0) return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  return "sm_90";
}

std::string find_nvcc() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var);
        root && *root && access((std::string(root) + "/bin/nvcc").c_str(), X_OK) == 0)
      return std::string(root) + "/bin/nvcc";
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  const char* path = std::getenv("PATH");
  std::string found = find_executable("nvcc", path ? path : "");
  // A symlink such as /usr/local/bin/nvcc: the toolkit (its lib64 for the rpath) is where it points.
  std::error_code ec;
  if (!found.empty())
    if (fs::path real = fs::canonical(found, ec); !ec) return real.string();
  return found;
}

bool variant_flag_allowed(const std::string& flag) {
  static const char* const kExact[] = {"--use_fast_math",
                                       "-use_fast_math",
                                       "-lineinfo",
                                       "--restrict",
                                       "-restrict",
                                       "--expt-relaxed-constexpr",
                                       "--extended-lambda",
                                       "--extra-device-vectorization",
                                       "-extra-device-vectorization"};
  for (const char* e : kExact)
    if (flag == e) return true;
  static const char* const kPrefixes[] = {
      "-O",           "-Xptxas=", "--ptxas-options=", "-maxrregcount=", "--maxrregcount=",
      "-ftz=",        "--ftz=",   "-prec-div=",       "--prec-div=",    "-prec-sqrt=",
      "--prec-sqrt=", "-fmad=",   "--fmad=",          "-std=",          "--default-stream="};
  for (const char* p : kPrefixes)
    if (flag.starts_with(p) && flag.size() > std::string(p).size()) {
      // -O takes a level only; ptxas options must not smuggle in an output file.
      if (std::string(p) == "-O") return flag.size() == 3 && std::isdigit(static_cast<unsigned char>(flag[2]));
      const std::string value = flag.substr(std::string(p).size());
      return value.find(' ') == std::string::npos && !value.starts_with("-o") &&
             value.find(",-o") == std::string::npos && value.find("--output") == std::string::npos;
    }
  return false;
}

VariantCompiler::VariantCompiler(const config::Config& config, CompilerOptions options)
    : config_(config), options_(std::move(options)) {
  if (options_.nvcc.empty()) options_.nvcc = find_nvcc();
  if (options_.nvcc.empty())
    throw Error("nvcc not found: set CUDA_HOME or put the CUDA toolkit's bin directory on PATH");
  SandboxCommand cmd;
  cmd.argv = {options_.nvcc, "--version"};
  cmd.limits.wall_time_s = 60;
  SandboxResult r = run_sandboxed(cmd);
  if (!r.succeeded()) throw Error(options_.nvcc + " --version failed: " + r.describe() + "\n" + r.err);
  nvcc_version_ = r.out;
  fs::create_directories(options_.work_dir / "cache");
}

std::vector<std::string> VariantCompiler::arch_or_default(const std::vector<std::string>& arch_flags) const {
  return arch_flags.empty() ? std::vector<std::string>{"-arch=" + options_.arch} : arch_flags;
}

std::vector<std::string> VariantCompiler::flags(const config::KernelSpec& spec, const Variant& variant,
                                                const std::vector<std::string>& arch_flags) const {
  std::vector<std::string> f = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared"};
  for (const auto& a : arch_or_default(arch_flags)) f.push_back(a);
  for (const char* a : {"-O3", "-lineinfo", "-Xptxas", "-v"}) f.emplace_back(a);
  // The library finds the toolkit's libcudart when dlopen()ed from anywhere.
  const fs::path cuda_lib = fs::path(options_.nvcc).parent_path().parent_path() / "lib64";
  if (fs::exists(cuda_lib)) f.push_back("-Xlinker=-rpath," + cuda_lib.lexically_normal().string());
  const auto shared = unit_flags(spec, variant, true);
  f.insert(f.end(), shared.begin(), shared.end());
  return f;
}

std::vector<std::string> VariantCompiler::extra_source_flags(const config::KernelSpec& spec, const Variant& variant,
                                                             const std::vector<std::string>& arch_flags) const {
  // An object for the library: no ptxas report (the kernel's own is the one anyone reads).
  std::vector<std::string> f = {"-c", "-Xcompiler", "-fPIC"};
  for (const auto& a : arch_or_default(arch_flags)) f.push_back(a);
  for (const char* a : {"-O3", "-lineinfo"}) f.emplace_back(a);
  const auto shared = unit_flags(spec, variant, false);
  f.insert(f.end(), shared.begin(), shared.end());
  return f;
}

std::vector<std::string> VariantCompiler::unit_flags(const config::KernelSpec& spec, const Variant& variant,
                                                     bool kernel_unit) const {
  std::vector<std::string> f;
  const fs::path source = config_.resolve(spec.source);
  {
    // The repository's own flags for this file (-I/-D/-std) come first: the config's may add to them.
    std::lock_guard lock(mutex_);
    auto it = compile_db_flags_.find(source.string());
    if (it == compile_db_flags_.end()) {
      std::vector<std::string> found;
      if (auto db = lookup_compile_flags(config_.root.empty() ? fs::current_path() : config_.root,
                                         config_.project.compile_commands, source)) {
        spdlog::debug("{}: using the flags of {} from {}", spec.name, source.string(), db->database.string());
        found = db->flags;
      }
      it = compile_db_flags_.emplace(source.string(), found).first;
    }
    f.insert(f.end(), it->second.begin(), it->second.end());
  }
  for (const auto& d : config_.project.include_dirs) f.push_back("-I" + config_.resolve(d).string());
  for (const auto& d : spec.include_dirs) f.push_back("-I" + config_.resolve(d).string());
  // Quoted #includes of the original resolve against its directory; the variant lives elsewhere.
  f.push_back("-I" + source.parent_path().lexically_normal().string());
  for (const auto& d : config_.project.defines) f.push_back("-D" + d);
  for (const auto& d : spec.defines) f.push_back("-D" + d);
  // The prelude goes into every translation unit, first; nvcc runs in the cache, so every path is absolute.
  for (const auto& p : config_.project.prelude) {
    f.push_back("-include");
    f.push_back(config_.resolve(p).lexically_normal().string());
  }
  std::vector<std::string> own = config_.project.nvcc_flags;
  own.insert(own.end(), spec.nvcc_flags.begin(), spec.nvcc_flags.end());
  // The project's architecture flags are its target architectures, each compiled on its own
  // (target_archs.h); left in, they would add to (or, a second -arch, replace) this compile's.
  own = resolve_flag_paths(without_arch_flags(own), config_.root);
  // A forced include in nvcc_flags is the kernel's: in an extra source it would define twice what
  // the kernel's unit defines (the link's "multiple definition" errors). The prelude is for all.
  if (!kernel_unit) own = split_forced_includes(own).rest;
  f.insert(f.end(), own.begin(), own.end());
  for (const auto& d : variant.defines) f.push_back("-D" + d);
  f.insert(f.end(), variant.nvcc_flags.begin(), variant.nvcc_flags.end());
  return f;
}

CompiledVariant VariantCompiler::compile_for(const config::KernelSpec& spec, const Variant& variant,
                                             const std::vector<std::string>& arch_flags, bool retry) {
  for (const auto& flag : variant.nvcc_flags)
    if (!variant_flag_allowed(flag)) {
      CompiledVariant refused;
      refused.log = "the variant's nvcc flag '" + flag +
                    "' is not allowed (allowed: -O<n>, --use_fast_math, -Xptxas=..., -maxrregcount=..., -ftz=, "
                    "-prec-div=, -prec-sqrt=, -fmad=, -std=, --restrict, -lineinfo, --extra-device-vectorization)";
      return refused;
    }
  const auto f = flags(spec, variant, arch_flags);
  if (options_.source_policy)
    if (auto violations = policy_violations(spec, variant, f); !violations.empty()) {
      CompiledVariant refused;
      refused.log = untrusted_text(cuda_source::policy_refusal_log(violations), 64 * 1024);
      refused.failure_reason = untrusted_text("refused by the candidate source policy before compiling: " +
                                                  violations.front().describe(),
                                              1024);
      spdlog::debug("{}: {} {}", spec.name, variant.label.empty() ? "a variant" : variant.label,
                    refused.failure_reason);
      return refused;
    }
  Sha256 h;
  h.field("kernelbot-variant-v1")
      .field(nvcc_version_)
      .field(entry_shim_text(config_, spec, "variant.cu", variant.source));
  h.field(variant.source);
  for (const auto& x : f) h.field(x);
  for (const auto& src : extra_sources(config_, spec))
    h.field(src.string()).field(try_read_text_file(src).value_or(""));
  for (const auto& p : config_.project.prelude) h.field(try_read_text_file(config_.resolve(p)).value_or(""));
  for (const auto& l : link_arguments(config_, config_.project.link_libs)) h.field(l);
  for (const auto& l : link_arguments(config_, spec.link_libs)) h.field(l);
  const std::string key1 = h.hex();

  std::promise<CompiledVariant> promise;
  {
    std::unique_lock lock(mutex_);
    if (auto it = in_flight_.find(key1); it != in_flight_.end()) {
      auto future = it->second;
      lock.unlock();
      CompiledVariant shared = future.get();
      // A failure of the machine's (nvcc killed for time or memory, or not started: a compile run
      // ahead at low priority while others ran, say) is not the variant's: each waiter tries once
      // more on its own. nvcc's own errors are the variant's, and shared.
      if (!shared.ok && shared.machine_failure) return retry ? compile_for(spec, variant, arch_flags, false) : shared;
      shared.from_cache = true;
      shared.compile_s = 0;
      return shared;
    }
    in_flight_.emplace(key1, promise.get_future().share());
  }

  CompiledVariant result;
  try {
    const fs::path cache = options_.work_dir / "cache";
    const fs::path manifest = cache / (key1 + ".deps");
    bool hit = false;
    if (fs::exists(manifest)) {
      std::vector<std::string> deps;
      std::istringstream lines(try_read_text_file(manifest).value_or(""));
      const auto roots = dependency_roots(spec);
      for (std::string line; std::getline(lines, line);)
        if (!line.empty() && dependency_tracked(line, cache, roots)) deps.push_back(line);
      const fs::path entry = cache / dependency_key(key1, deps);
      if (fs::exists(entry / "result.json") && fs::exists(entry / "variant.so")) {
        result = nlohmann::json::parse(read_text_file(entry / "result.json")).get<CompiledVariant>();
        result.library_path = (entry / "variant.so").string();
        result.from_cache = true;
        result.compile_s = 0;
        hit = true;
      }
    }
    if (!hit) result = compile_uncached(spec, variant, key1, f, arch_flags);
  } catch (const std::exception& e) {
    result = CompiledVariant{};
    result.log = std::string("kernelbot could not compile the variant: ") + e.what();
    result.machine_failure = true;
  }
  if (!result.ok && (result.machine_failure || !result.failure_reason.empty())) {
    // Forgotten before the waiters wake: a later request (or a waiter's retry) compiles it again.
    std::lock_guard lock(mutex_);
    in_flight_.erase(key1);
  }
  promise.set_value(result);
  return result;
}

std::vector<fs::path> VariantCompiler::dependency_roots(const config::KernelSpec& spec) const {
  std::vector<fs::path> roots = {fs::absolute(config_.root.empty() ? fs::current_path() : config_.root)};
  for (const auto& d : config_.project.include_dirs) roots.push_back(fs::absolute(config_.resolve(d)));
  for (const auto& d : spec.include_dirs) roots.push_back(fs::absolute(config_.resolve(d)));
  return roots;
}

std::vector<cuda_source::PolicyFinding> VariantCompiler::policy_violations(const config::KernelSpec& spec,
                                                                           const Variant& variant,
                                                                           const std::vector<std::string>& flags) {
  const fs::path source = config_.resolve(spec.source);
  std::string original;
  {
    // The original as first seen: a file rewritten later (a splice) does not become the standard.
    std::lock_guard lock(mutex_);
    auto it = original_texts_.find(source.string());
    if (it == original_texts_.end())
      it = original_texts_.emplace(source.string(), try_read_text_file(source).value_or("")).first;
    original = it->second;
  }
  if (variant.source == original) return {};
  cuda_source::IncludeScope scope;
  scope.repository = fs::absolute(config_.root.empty() ? fs::current_path() : config_.root).lexically_normal();
  scope.source_dir = source.parent_path().lexically_normal();
  for (size_t i = 0; i < flags.size(); ++i)
    for (const char* flag : {"-I", "-isystem", "-iquote"})
      if (flags[i].starts_with(flag)) {
        std::string dir = flags[i].substr(std::string(flag).size());
        if (dir.empty() && i + 1 < flags.size()) dir = flags[i + 1];
        if (!dir.empty()) scope.include_dirs.push_back(fs::path(dir).lexically_normal());
        break;
      }
  const fs::path toolkit = fs::path(options_.nvcc).parent_path().parent_path();
  scope.toolkit_include_dirs = {toolkit / "include"};
  return cuda_source::candidate_policy_violations(variant.source, original, scope);
}

CompiledVariant VariantCompiler::compile_uncached(const config::KernelSpec& spec, const Variant& variant,
                                                  const std::string& key1, const std::vector<std::string>& flags,
                                                  const std::vector<std::string>& arch_flags) {
  static std::atomic<int> counter{0};
  const fs::path cache = options_.work_dir / "cache";
  const fs::path build = cache / ("build-" + key1.substr(0, 16) + "-" + std::to_string(getpid()) + "-" +
                                  std::to_string(counter++));
  fs::remove_all(build);
  fs::create_directories(build);
  const fs::path variant_file = build / "variant.cu";
  const fs::path shim_file = build / "kb_entry.cu";
  {
    std::ofstream(variant_file, std::ios::binary) << variant.source;
    std::ofstream(shim_file, std::ios::binary) << entry_shim_text(config_, spec, variant_file.string(), variant.source);
  }

  // One deadline for the candidate's whole compile: the extra sources' objects and the library
  // share [verify] compile_timeout_s, so a candidate's compile ends within it however many runs it takes.
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(options_.timeout_s));
  // One nvcc run in the build directory, sandboxed and limited as a candidate's compile is.
  auto run_nvcc = [&](const std::vector<std::string>& argv, const char* what) {
    SandboxCommand cmd;
    cmd.argv = argv;
    // nvcc's report of where the compile's time went, kept beside the library (nvcc_phase_times.h);
    // not part of the cache key: it changes nothing nvcc builds.
    cmd.argv.insert(cmd.argv.begin() + 1, {"--time", (build / kNvccTimeFile).string()});
    cmd.working_dir = build;
    cmd.limits.wall_time_s =
        std::max(std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count(), 0.01);
    cmd.limits.max_rss_mb = options_.max_memory_mb;
    // A backstop for an allocation faster than the RSS watch (nvcc starts no CUDA).
    cmd.limits.max_address_space_mb = options_.max_memory_mb > 0 ? 2 * options_.max_memory_mb : 0;
    cmd.limits.max_output_bytes = 256 * 1024;
    cmd.kind = options_.sandbox;
    cmd.view = compile_view(cmd.argv, build, options_.hidden);
    spdlog::debug("compiling {} ({}, {}): {}", spec.name, variant.label.empty() ? "variant" : variant.label, what, [&] {
      std::string s;
      for (const auto& a : cmd.argv) s += (s.empty() ? "" : " ") + a;
      return s;
    }());
    return run_sandboxed(cmd);
  };

  std::string log;
  SandboxResult run;
  // Extra sources and the setup source first, each to an object with flags of its own (no forced
  // include of the kernel's); then the library: those objects, the shim, the libraries.
  std::vector<std::string> link = {options_.nvcc};
  link.insert(link.end(), flags.begin(), flags.end());
  for (const auto& a :
       std::vector<std::string>{"-MD", "-MF", (build / "deps.d").string(), "-o", (build / "variant.so").string()})
    link.push_back(a);
  const auto extras = extra_sources(config_, spec);
  const auto extra_flags = extras.empty() ? std::vector<std::string>{} : extra_source_flags(spec, variant, arch_flags);
  for (size_t i = 0; i < extras.size() && (i == 0 || run.succeeded()); ++i) {
    const fs::path object = build / ("extra" + std::to_string(i) + ".o");
    std::vector<std::string> argv = {options_.nvcc};
    argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
    for (const auto& a : std::vector<std::string>{"-o", object.string(), extras[i].string()}) argv.push_back(a);
    run = run_nvcc(argv, extras[i].filename().string().c_str());
    log += run.out + run.err;
    link.push_back(object.string());
  }
  if (extras.empty() || run.succeeded()) {
    // The shim goes last: nvcc writes the dependency list of the last input file.
    link.push_back(shim_file.string());
    for (const auto& l : link_arguments(config_, config_.project.link_libs)) link.push_back(l);
    for (const auto& l : link_arguments(config_, spec.link_libs)) link.push_back(l);
    run = run_nvcc(link, "the library");
    log += run.out + run.err;
  }
  CompiledVariant result;
  result.compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Stored in the cache and the archive and sent back to the LLM in repair prompts.
  result.log = untrusted_text(log, 256 * 1024);
  result.compiler_report = summarize_ptxas(parse_ptxas_report(result.log));
  if (!run.succeeded()) {
    result.ok = false;
    result.log = ptxas_info_last(result.log);  // the error first, not under a page of ptxas info
    if (std::string limit = compile_limit_reason(run, result.log, options_); !limit.empty()) {
      result.log = "nvcc " + run.describe() + "\n" + result.log;
      result.failure_reason = limit;
    } else if (!(run.started && run.exit_code > 0 && !run.timed_out && run.signal == 0)) {
      result.log = "nvcc " + run.describe() + "\n" + result.log;
      result.machine_failure = true;
    }
    fs::remove_all(build);
    return result;
  }
  std::vector<std::string> deps;
  const auto roots = dependency_roots(spec);
  for (const auto& d : parse_make_deps(try_read_text_file(build / "deps.d").value_or("")))
    if (dependency_tracked(d, build, roots)) deps.push_back(fs::path(d).lexically_normal().string());
  std::string manifest;
  for (const auto& d : deps) manifest += d + "\n";
  write_file_atomically(cache / (key1 + ".deps"), manifest);
  const std::string key2 = dependency_key(key1, deps);
  const fs::path entry = cache / key2;

  result.ok = true;
  result.cache_key = key2;
  result.library_path = (entry / "variant.so").string();
  write_file_atomically(build / "result.json", nlohmann::json(result).dump(1));
  std::error_code ec;
  fs::rename(build, entry, ec);
  if (ec) {
    // Another process stored the same variant first: theirs is identical, use it.
    fs::remove_all(build);
    if (!fs::exists(entry / "variant.so")) throw Error("cannot store " + entry.string() + ": " + ec.message());
  }
  return result;
}

}  // namespace kb::profiler
