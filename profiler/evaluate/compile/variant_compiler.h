// Compiles variants into shared libraries with nvcc: the generated entry shim (which #includes the
// variant's translation unit), the repository's flags, the variant's own defines and flags.
// Results are cached on disk under <work_dir>/cache/, keyed by a SHA-256 of everything that
// reaches the compiler, so a repeated candidate costs nothing. Thread-safe.
#pragma once

#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result_types.h"
#include "core/variant.h"
#include "cuda_source/policy/candidate_policy.h"
#include "profiler/sandbox/sandbox_launcher.h"

namespace kb::profiler {

struct CompilerOptions {
  std::filesystem::path work_dir;  // <work_dir>/cache holds the compiled variants
  std::string arch = "sm_90";      // -arch=...
  std::string nvcc;                // empty: find_nvcc()
  // One candidate's compile ([verify] compile_timeout_s, compile_memory_gib): running out of
  // either is the candidate's compile error, with a reason that names the limit.
  double timeout_s = 120;     // nvcc and everything it starts, wall clock
  int64_t max_memory_mb = 0;  // the RSS of nvcc's process tree; 0 = unlimited
  // Where nvcc runs on a candidate's source: a candidate's #include could otherwise pull any file
  // the user can read (.git/config's auth header) into the compile log.
  SandboxKind sandbox = SandboxKind::namespaces;
  std::vector<std::filesystem::path> hidden;  // repository_secrets()
  // Hold candidates to the candidate source policy (cuda_source/policy/candidate_policy.h) before nvcc
  // runs: a variant whose text adds refused host code is a compile error, never compiled.
  bool source_policy = true;
};

// "90", "sm_90", "90a", "sm_90a" from [project].cuda_arch, else the GPU's compute capability,
// else (no GPU, nothing configured) sm_90.
std::string resolve_cuda_arch(const std::string& configured, int cc_major, int cc_minor);

// $CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc, then PATH; empty if none.
std::string find_nvcc();

// Whether a variant's own nvcc flag is one of the code-generation switches a proposer may set
// (-O, fast math, register limits, ptxas options...). Proposers' text is untrusted: flags that
// load plugins, run programs or write elsewhere (-o, --run, -Xcompiler -fplugin) are refused.
bool variant_flag_allowed(const std::string& flag);

// What nvcc may see in the namespace sandbox: the system, the toolkit, every path its arguments
// name (-I/-isystem/-iquote/-L directories, -include files, sources and libraries: what the
// kernel's config names, so the sources and include directories of the spec), with `hidden`
// masked inside them, and `build_dir`, the only place it may write.
FilesystemView compile_view(const std::vector<std::string>& nvcc_argv, const std::filesystem::path& build_dir,
                            const std::vector<std::filesystem::path>& hidden);

class VariantCompiler {
 public:
  VariantCompiler(const config::Config& config, CompilerOptions options);

  // Never throws for the variant's fault: a compile error is ok=false with the log. A compile
  // under way is shared with whoever asks for the same variant meanwhile, and its result with every
  // later request, with two exceptions. A compile that ran out of its time or memory limit is
  // the variant's compile error (failure_reason names the limit) for everyone who waited on it,
  // but not remembered: a later request compiles again (a compile run ahead beside many others
  // may have been slowed by them). One that did not finish for the machine's reasons (killed by a
  // signal, not started) is compiled again by each waiter (`retry`: a waiter tries once itself).
  CompiledVariant compile(const config::KernelSpec& spec, const Variant& variant, bool retry = true) {
    return compile_for(spec, variant, {}, retry);
  }
  // The same for another architecture than CompilerOptions::arch: `arch_flags` replace its -arch
  // (profiler/evaluate/archs/arch_plan.h writes them: "-gencode", "arch=compute_80,code=compute_80").
  CompiledVariant compile_for(const config::KernelSpec& spec, const Variant& variant,
                              const std::vector<std::string>& arch_flags, bool retry = true);

  // The nvcc arguments (without nvcc itself, the output and the input files), for tests and logs:
  // the library's link with the kernel's own unit (the entry shim, which includes the variant).
  // Architecture flags in nvcc_flags are left out: they name the project's target architectures
  // (profiler/evaluate/archs/target_archs.h), each compiled on its own; `arch_flags` (empty: -arch=
  // CompilerOptions::arch) choose this compile's.
  std::vector<std::string> flags(const config::KernelSpec& spec, const Variant& variant,
                                 const std::vector<std::string>& arch_flags = {}) const;
  // Those of each extra source and the setup source, compiled to an object of their own first:
  // the same -I, -D, prelude and flags, without nvcc_flags' forced includes (the kernel's).
  std::vector<std::string> extra_source_flags(const config::KernelSpec& spec, const Variant& variant,
                                              const std::vector<std::string>& arch_flags = {}) const;
  // The architecture compile() builds for ("sm_90").
  const std::string& arch() const { return options_.arch; }

  const std::string& nvcc_version() const { return nvcc_version_; }

 private:
  CompiledVariant compile_uncached(const config::KernelSpec& spec, const Variant& variant, const std::string& key1,
                                   const std::vector<std::string>& flags, const std::vector<std::string>& arch_flags);
  std::vector<std::string> arch_or_default(const std::vector<std::string>& arch_flags) const;

  // The flags every unit shares (compile database, -I, -D, prelude, nvcc_flags, the variant's);
  // nvcc_flags' forced includes only in the kernel's unit.
  std::vector<std::string> unit_flags(const config::KernelSpec& spec, const Variant& variant, bool kernel_unit) const;
  // Where the headers whose contents key the cache may lie: the repository and the kernel's
  // configured include directories.
  std::vector<std::filesystem::path> dependency_roots(const config::KernelSpec& spec) const;
  // The policy's findings beyond the original's, for a variant whose text is not the original's.
  std::vector<cuda_source::PolicyFinding> policy_violations(const config::KernelSpec& spec, const Variant& variant,
                                                            const std::vector<std::string>& flags);

  const config::Config& config_;
  CompilerOptions options_;
  std::string nvcc_version_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_future<CompiledVariant>> in_flight_;      // by source+flags key
  mutable std::map<std::string, std::vector<std::string>> compile_db_flags_;  // by source file
  std::map<std::string, std::string> original_texts_;                         // by source file, as first read
};

}  // namespace kb::profiler
