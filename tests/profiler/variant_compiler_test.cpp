// VariantCompiler with the real nvcc (it works without a GPU): flags, cache hits and misses,
// header changes, compile errors, refused flags, concurrent compiles, compile_commands.json.
#include "profiler/evaluate/compile/variant_compiler.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/file_io.h"
#include "config/config_loader.h"
#include "core/gpu_arch.h"
#include "profiler/evaluate/compile/nvcc_phase_times.h"
#include "profiler/sandbox/sandbox_process.h"
#include "tests/support/running_processes.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

const char* kKernelSource = R"(#include "scale.h"
#ifndef REQUIRED_BY_REPO
#error "REQUIRED_BY_REPO comes from the repository's compile_commands.json"
#endif
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SCALE * x[i];
}
namespace ops {
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
}
)";

class VariantCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-vc-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::create_directories(root_ / "include");
    fs::create_directories(root_ / "build");
    std::ofstream(root_ / "src" / "scale.cu") << kKernelSource;
    std::ofstream(root_ / "include" / "scale.h") << "#define SCALE 2.0f\n";
    std::ofstream(root_ / "build" / "compile_commands.json")
        << R"([{"directory": ")" << (root_ / "build").string()
        << R"(", "command": "nvcc -DREQUIRED_BY_REPO=1 -std=c++17 -c ../src/scale.cu", "file": "../src/scale.cu"}])";
    config_ = config::load_config_text(R"(
[project]
include_dirs = ["include"]
defines = ["PROJECT_WIDE=1"]

[[kernel]]
name = "scale"
source = "src/scale.cu"
launcher = "ops::launch_scale"
sizes = [{ n = 1000 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)",
                                       (root_ / "kernelbot.toml").string(), root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  CompilerOptions options() const {
    CompilerOptions o;
    o.work_dir = root_ / ".kernelbot" / "work";
    o.arch = "sm_90";
    return o;
  }
  Variant original() const { return Variant{kKernelSource, {}, {}, "original"}; }

  fs::path root_;
  config::Config config_;
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CudaArch, Resolution) {
  EXPECT_EQ(resolve_cuda_arch("", 0, 0), "sm_90");
  EXPECT_EQ(resolve_cuda_arch("", 8, 6), "sm_86");
  EXPECT_EQ(resolve_cuda_arch("90a", 8, 0), "sm_90a");
  EXPECT_EQ(resolve_cuda_arch("sm_100", 9, 0), "sm_100");
  EXPECT_EQ(resolve_cuda_arch("8.9", 0, 0), "sm_89");
}

TEST(VariantFlags, OnlyCodeGenerationSwitchesAreAllowed) {
  for (const char* ok : {"-O3", "--use_fast_math", "-Xptxas=-O3", "-maxrregcount=64", "-ftz=true", "-std=c++20",
                         "--ptxas-options=-v", "-Xptxas=--allow-expensive-optimizations=true"})
    EXPECT_TRUE(variant_flag_allowed(ok)) << ok;
  for (const char* bad : {"-o", "/tmp/x", "--run", "-Xcompiler=-fplugin=/tmp/evil.so", "-Xptxas=-o,/tmp/x", "-O3 --run",
                          "-ccbin=/tmp/evil", "--compiler-bindir=/tmp", "-Ofast-and-loose", "-I/etc"})
    EXPECT_FALSE(variant_flag_allowed(bad)) << bad;
}

// A candidate's #include pulls a file into the compile log, which is stored and sent to the LLM:
// in the namespace sandbox the repository's .git (and anything outside the spec's directories)
// is not there to include. The process sandbox is the control: there the same include works.
TEST_F(VariantCompilerTest, CandidateCannotIncludeRepositorySecrets) {
  const std::string marker = "kbsecret-auth-header-" + std::to_string(getpid());
  fs::create_directories(root_ / ".git");
  std::ofstream(root_ / ".git" / "config") << "[http]\n\textraheader = " << marker << "\n";
  fs::create_directories(root_ / "home");
  std::ofstream(root_ / "home" / ".git-credentials") << "https://x:" << marker << "@github.com\n";
  for (const std::string& target : {std::string("../.git/config"), (root_ / ".git" / "config").string(),
                                    (root_ / "home" / ".git-credentials").string()}) {
    Variant v = original();
    v.source = "#include \"" + target + "\"\n" + v.source;
    CompilerOptions o = options();
    o.hidden = repository_secrets(root_);
    o.sandbox = SandboxKind::namespaces;
    // The candidate source policy refuses these before nvcc runs (next test); without it, the
    // sandbox is what keeps them out.
    const CompiledVariant refused = VariantCompiler(config_, o).compile(config_.kernels[0], v);
    EXPECT_FALSE(refused.ok);
    EXPECT_EQ(refused.failure_reason.find("refused by the candidate source policy"), 0u) << refused.failure_reason;
    o.source_policy = false;
    CompiledVariant sandboxed = VariantCompiler(config_, o).compile(config_.kernels[0], v);
    EXPECT_FALSE(sandboxed.ok) << target;
    EXPECT_EQ(sandboxed.log.find(marker), std::string::npos) << target << ":\n" << sandboxed.log;
    EXPECT_NE(sandboxed.log.find("No such file"), std::string::npos) << sandboxed.log;

    o.sandbox = SandboxKind::process;
    CompiledVariant plain = VariantCompiler(config_, o).compile(config_.kernels[0], v);
    EXPECT_EQ(plain.log.find("No such file"), std::string::npos) << "control: without namespaces the include works\n"
                                                                 << plain.log;
  }
}

// The candidate source policy runs before nvcc: a candidate that adds host code the policy
// refuses is a compile error naming the rule, the line and the token, and is never compiled; what
// the original already has, and the repository's own headers, pass.
TEST_F(VariantCompilerTest, SourcePolicyRefusesBeforeNvcc) {
  VariantCompiler compiler(config_, options());
  Variant leaks = original();
  leaks.source += "#include <cstdlib>\nstatic bool leak() { return std::getenv(\"GITHUB_TOKEN\"); }\n";
  const CompiledVariant refused = compiler.compile(config_.kernels[0], leaks);
  EXPECT_FALSE(refused.ok);
  EXPECT_FALSE(refused.machine_failure);
  EXPECT_EQ(refused.compile_s, 0) << "nvcc never ran";
  EXPECT_EQ(refused.failure_reason,
            "refused by the candidate source policy before compiling: line 13: `getenv` (environment)");
  EXPECT_EQ(refused.log.rfind("error: refused by kernelbot's candidate source policy", 0), 0u) << refused.log;
  EXPECT_EQ(refused.log.find("ptxas"), std::string::npos);

  // Device PTX and the repository's header by a path of its own pass, and compile.
  Variant honest = original();
  honest.source =
      "#include \"../include/scale.h\"\n#include <cstdint>\n" + honest.source +
      "__device__ unsigned lane() { unsigned v; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(v)); return v; }\n";
  const CompiledVariant compiled = compiler.compile(config_.kernels[0], honest);
  EXPECT_TRUE(compiled.ok) << compiled.failure_reason << "\n" << compiled.log;

  // Off ([verify] source_policy = false, and `eval --candidate`): nvcc sees it.
  CompilerOptions off = options();
  off.source_policy = false;
  const CompiledVariant unchecked = VariantCompiler(config_, off).compile(config_.kernels[0], leaks);
  EXPECT_TRUE(unchecked.ok) << unchecked.log;
  EXPECT_TRUE(unchecked.failure_reason.empty());
}

TEST_F(VariantCompilerTest, FlagsIncludeRepositoryConfigAndVariant) {
  VariantCompiler compiler(config_, options());
  Variant v = original();
  v.defines = {"SCALE_BLOCK=128"};
  v.nvcc_flags = {"--use_fast_math"};
  auto f = compiler.flags(config_.kernels[0], v);
  for (const char* expected : {"-shared", "-fPIC", "-cudart", "-arch=sm_90", "-O3", "-v", "-DREQUIRED_BY_REPO=1",
                               "-std=c++17", "-DPROJECT_WIDE=1", "-DSCALE_BLOCK=128", "--use_fast_math"})
    EXPECT_TRUE(contains(f, expected)) << expected;
  EXPECT_TRUE(contains(f, "-I" + (root_ / "include").string()));
  EXPECT_TRUE(contains(f, "-I" + (root_ / "src").string()));
  // The variant's choices come after the repository's, so they win.
  EXPECT_GT(std::find(f.begin(), f.end(), "--use_fast_math") - f.begin(),
            std::find(f.begin(), f.end(), "-DPROJECT_WIDE=1") - f.begin());
  EXPECT_FALSE(compiler.nvcc_version().empty());
}

// Every compile keeps nvcc's report of its phases beside the library it made (the throughput
// benchmark sums them); the report is not part of what the cache key covers.
TEST_F(VariantCompilerTest, EachLibraryKeepsNvccsReportOfItsPhases) {
  VariantCompiler compiler(config_, options());
  const CompiledVariant compiled = compiler.compile(config_.kernels[0], original());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const fs::path report = fs::path(compiled.library_path).parent_path() / kNvccTimeFile;
  ASSERT_TRUE(fs::exists(report)) << report;
  const std::string text = read_text_file(report);
  const auto phases = nvcc_phase_seconds(text);
  EXPECT_GT(phases.count("ptxas") ? phases.at("ptxas") : 0.0, 0.0) << text;
  EXPECT_GT(phases.count("cicc (device front end)") ? phases.at("cicc (device front end)") : 0.0, 0.0) << text;
  EXPECT_GT(phases.count("host compiler") ? phases.at("host compiler") : 0.0, 0.0) << text;
  const CompiledVariant again = compiler.compile(config_.kernels[0], original());
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.cache_key, compiled.cache_key);
}

// The project's architecture flags are its target architectures (target_archs.h), not this
// compile's: the judge's compile is -arch=<its own> alone, and a target's build replaces it.
TEST_F(VariantCompilerTest, ArchitectureFlagsAreTheCompilesOwnNotTheProjects) {
  config_.project.nvcc_flags = {"-gencode", "arch=compute_80,code=sm_80", "-arch=sm_75", "--use_fast_math"};
  config_.kernels[0].nvcc_flags = {"--generate-code=arch=compute_86,code=sm_86"};
  VariantCompiler compiler(config_, options());
  const auto& spec = config_.kernels[0];
  for (const auto& f : {compiler.flags(spec, original()), compiler.extra_source_flags(spec, original())}) {
    EXPECT_TRUE(contains(f, "-arch=sm_90"));
    EXPECT_TRUE(contains(f, "--use_fast_math"));
    for (const char* gone :
         {"-gencode", "arch=compute_80,code=sm_80", "-arch=sm_75", "--generate-code=arch=compute_86,code=sm_86"})
      EXPECT_FALSE(contains(f, gone)) << gone;
  }
  const auto ptx = ArchBuild{GpuArch{80, 0}, true}.nvcc_flags();
  for (const auto& f : {compiler.flags(spec, original(), ptx), compiler.extra_source_flags(spec, original(), ptx)}) {
    EXPECT_FALSE(contains(f, "-arch=sm_90"));
    EXPECT_TRUE(contains(f, "arch=compute_80,code=compute_80"));
    EXPECT_EQ(std::count(f.begin(), f.end(), "-gencode"), 1);  // the only code in the library
  }
  EXPECT_TRUE(contains(compiler.flags(spec, original(), ArchBuild{GpuArch{100, 0}, false}.nvcc_flags()),
                       "arch=compute_100,code=sm_100"));
}

// A target architecture's compile takes its own preprocessor branch: the kernel's sm_80 path is
// what a compute_80 build compiles, which the judge's sm_90 build never sees (no GPU needed).
TEST_F(VariantCompilerTest, ATargetArchitecturesBuildCompilesItsOwnBranch) {
  Variant v = original();
  v.source += "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n"
              "#error \"kb: the branch for architectures before sm_90\"\n"
              "#endif\n";
  VariantCompiler compiler(config_, options());
  const auto& spec = config_.kernels[0];
  const CompiledVariant judge = compiler.compile(spec, v);
  EXPECT_TRUE(judge.ok) << judge.log;
  const CompiledVariant sm80 = compiler.compile_for(spec, v, ArchBuild{GpuArch{80, 0}, true}.nvcc_flags());
  EXPECT_FALSE(sm80.ok);
  EXPECT_FALSE(sm80.machine_failure);
  EXPECT_NE(sm80.log.find("kb: the branch for architectures before sm_90"), std::string::npos) << sm80.log;
  const CompiledVariant sm100 = compiler.compile_for(spec, v, ArchBuild{GpuArch{100, 0}, false}.nvcc_flags());
  EXPECT_TRUE(sm100.ok) << sm100.log;
  EXPECT_NE(sm100.library_path, judge.library_path);  // cached apart: the flags are part of the key
}

TEST_F(VariantCompilerTest, CompilesCachesAndNoticesHeaderChanges) {
  CompiledVariant first;
  {
    VariantCompiler compiler(config_, options());
    first = compiler.compile(config_.kernels[0], original());
    ASSERT_TRUE(first.ok) << first.log;
    EXPECT_FALSE(first.from_cache);
    EXPECT_GT(first.compile_s, 0);
    EXPECT_EQ(first.cache_key.size(), 64u);
    EXPECT_TRUE(fs::exists(first.library_path));
    EXPECT_NE(first.log.find("ptxas info"), std::string::npos);
    EXPECT_EQ(first.compiler_report.status, "ok");
    EXPECT_GT(first.compiler_report.registers_per_thread, 0);
    EXPECT_NE(first.compiler_report.kernel_name.find("scale_kernel"), std::string::npos);
    SandboxCommand nm;
    nm.argv = {"nm", "-D", "--defined-only", first.library_path};
    EXPECT_NE(run_sandboxed(nm).out.find(" T kb_launch\n"), std::string::npos);
  }
  {
    // A new compiler (a later run of kernelbot) finds it on disk.
    VariantCompiler compiler(config_, options());
    CompiledVariant again = compiler.compile(config_.kernels[0], original());
    ASSERT_TRUE(again.ok);
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.compile_s, 0);
    EXPECT_EQ(again.library_path, first.library_path);
    EXPECT_EQ(again.compiler_report.registers_per_thread, first.compiler_report.registers_per_thread);

    // A header the source includes changed: the cached library is stale.
    std::ofstream(root_ / "include" / "scale.h") << "#define SCALE 3.0f\n";
    VariantCompiler fresh(config_, options());
    CompiledVariant changed = fresh.compile(config_.kernels[0], original());
    ASSERT_TRUE(changed.ok) << changed.log;
    EXPECT_FALSE(changed.from_cache);
    EXPECT_NE(changed.cache_key, first.cache_key);
  }
}

TEST_F(VariantCompilerTest, CompileErrorsAndRefusedFlags) {
  VariantCompiler compiler(config_, options());
  Variant broken{"#include \"scale.h\"\nvoid ops_launch(const float* x) { undeclared_thing(x); }\n", {}, {}, "broken"};
  CompiledVariant r = compiler.compile(config_.kernels[0], broken);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("undeclared_thing"), std::string::npos);
  EXPECT_TRUE(r.library_path.empty());
  // The same broken variant again is answered from memory.
  EXPECT_TRUE(compiler.compile(config_.kernels[0], broken).from_cache);

  Variant evil = original();
  evil.nvcc_flags = {"-Xcompiler=-fplugin=/tmp/evil.so"};
  CompiledVariant refused = compiler.compile(config_.kernels[0], evil);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.log.find("not allowed"), std::string::npos);
}

TEST_F(VariantCompilerTest, WithoutTheCompileDatabaseTheRepositoryMacroIsMissing) {
  config_.project.compile_commands = "none";
  VariantCompiler compiler(config_, options());
  CompiledVariant r = compiler.compile(config_.kernels[0], original());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("REQUIRED_BY_REPO comes from"), std::string::npos) << r.log;
}

TEST_F(VariantCompilerTest, ConcurrentCompilesOfOneVariantCompileOnce) {
  VariantCompiler compiler(config_, options());
  Variant v = original();
  v.defines = {"UNUSED_TUNABLE=7"};
  std::vector<CompiledVariant> results(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back([&, i] { results[i] = compiler.compile(config_.kernels[0], v); });
  for (auto& t : threads) t.join();
  int compiled = 0;
  for (const auto& r : results) {
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.library_path, results[0].library_path);
    compiled += r.from_cache ? 0 : 1;
  }
  EXPECT_EQ(compiled, 1);
  EXPECT_NE(results[0].cache_key, compiler.compile(config_.kernels[0], original()).cache_key);
}

// nvcc killed by its time limit is the candidate's compile error (below), but it is not remembered:
// the next request compiles again (a compile run ahead beside many others can time out).
TEST_F(VariantCompilerTest, ACompileKilledForTimeIsNotRemembered) {
  CompilerOptions o = options();
  o.timeout_s = 0.05;
  VariantCompiler compiler(config_, o);
  const CompiledVariant first = compiler.compile(config_.kernels[0], original());
  ASSERT_FALSE(first.ok);
  EXPECT_EQ(first.log.rfind("nvcc timed out", 0), 0u) << first.log.substr(0, 200);
  EXPECT_NE(first.failure_reason.find("time limit"), std::string::npos) << first.failure_reason;
  const CompiledVariant again = compiler.compile(config_.kernels[0], original());
  EXPECT_FALSE(again.from_cache) << "compiled again, not answered from memory";
}

// A stand-in for nvcc (the compile's limits and its dependency list are the compiler's
// behaviour, which the real nvcc does not misbehave in): a script that answers --version and
// otherwise runs `body` with $MF (the -MF file) and $OUT (the -o file) set.
fs::path fake_nvcc(const fs::path& dir, const std::string& body) {
  fs::create_directories(dir);
  const fs::path script = dir / "nvcc";
  std::ofstream(script) << "#!/bin/sh\n"
                           "if [ \"$1\" = --version ]; then echo 'fake nvcc'; exit 0; fi\n"
                           "while [ $# -gt 0 ]; do case \"$1\" in -MF) MF=\"$2\"; shift;; -o) OUT=\"$2\"; shift;; esac; "
                           "shift; done\n"
                        << body << "\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

// A candidate's compile has its own wall-clock limit: running out of it is the candidate's
// compile error, reported within the limit and the kill's few seconds, with the limit in the
// reason, and not remembered (a later request compiles again). Every process the compiler
// started dies with it: here a grandchild in a session of its own that holds the compiler's
// output open, under a compiler that dies at SIGTERM and one that ignores it, in either sandbox.
TEST_F(VariantCompilerTest, ACompilePastItsTimeLimitIsTheCandidatesCompileError) {
  const std::string marker = "1000." + std::to_string(getpid());
  for (SandboxKind sandbox : {SandboxKind::process, SandboxKind::namespaces})
    for (const std::string& end : {"sleep " + marker, std::string("trap '' TERM; while :; do :; done")}) {
      SCOPED_TRACE(to_string(sandbox) + ": " + end);
      CompilerOptions o = options();
      o.nvcc = fake_nvcc(root_ / "fake", "setsid sleep " + marker + " & " + end).string();
      o.sandbox = sandbox;
      o.timeout_s = 1;
      VariantCompiler compiler(config_, o);
      const auto start = std::chrono::steady_clock::now();
      const CompiledVariant r = compiler.compile(config_.kernels[0], original());
      EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 6);
      EXPECT_FALSE(r.ok);
      EXPECT_FALSE(r.machine_failure);
      EXPECT_EQ(r.failure_reason, "the compile ran out of its time limit (1 s, [verify] compile_timeout_s)");
      EXPECT_EQ(r.log.rfind("nvcc timed out", 0), 0u) << r.log;
      EXPECT_EQ(test::processes_left_with(marker), 0) << "a process the compiler started survived the limit";
    }
}

// The limit is the candidate's whole compile, not each nvcc run: with extra sources (an object
// each, then the library) the runs share one deadline, so three runs of 0.7 s do not fit in 1 s.
TEST_F(VariantCompilerTest, AllOfACompilesRunsShareItsTimeLimit) {
  config_.project.extra_sources = {"src/extra1.cu", "src/extra2.cu"};
  CompilerOptions o = options();
  o.nvcc = fake_nvcc(root_ / "fake", "sleep 0.7; : > \"$OUT\"; : > \"${MF:-/dev/null}\"").string();
  o.sandbox = SandboxKind::process;
  o.timeout_s = 1;
  VariantCompiler compiler(config_, o);
  const auto start = std::chrono::steady_clock::now();
  const CompiledVariant r = compiler.compile(config_.kernels[0], original());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure_reason, "the compile ran out of its time limit (1 s, [verify] compile_timeout_s)") << r.log;
}

// And a memory limit (the RSS of its process tree, with an address-space backstop per process):
// a compiler that allocates without end is stopped, and the reason says which limit.
TEST_F(VariantCompilerTest, ACompilePastItsMemoryLimitIsTheCandidatesCompileError) {
  CompilerOptions o = options();
  // tail keeps a whole "line" of /dev/zero in memory: it grows until something stops it.
  o.nvcc = fake_nvcc(root_ / "fake", "tail /dev/zero").string();
  o.sandbox = SandboxKind::process;
  o.timeout_s = 60;
  o.max_memory_mb = 256;
  VariantCompiler compiler(config_, o);
  const CompiledVariant r = compiler.compile(config_.kernels[0], original());
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.machine_failure);
  EXPECT_EQ(r.failure_reason,
            "the compile ran out of its memory limit (0.25 GiB of host memory, [verify] compile_memory_gib)")
      << r.log;
}

// nvcc -MD lists what a candidate's #includes reached, and kernelbot hashes those files into the
// cache key: only regular files inside the repository (or a configured include directory) are
// read. /proc, /dev, a FIFO and a symlink out are not opened (a FIFO would hang the reader).
TEST_F(VariantCompilerTest, DependencyTrackingReadsOnlyRegularFilesOfTheRepository) {
  const fs::path fifo = root_ / "include" / "pipe.h";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/etc/hostname", root_ / "include" / "outside.h");
  const fs::path header = root_ / "include" / "scale.h";
  const std::string deps = "/proc/self/environ /dev/stdin " + fifo.string() + " " +
                           (root_ / "include" / "outside.h").string() + " /etc/passwd " + header.string() + " " +
                           (root_ / "include" / ".." / "include" / "scale.h").string();
  CompilerOptions o = options();
  o.nvcc = fake_nvcc(root_ / "fake", "printf 'x.o: " + deps + "\\n' > \"$MF\"; : > \"$OUT\"").string();
  o.sandbox = SandboxKind::process;
  // Whoever opens the FIFO for reading would block: a writer that finds a reader says so and lets it go.
  std::atomic<bool> done{false}, opened{false};
  std::thread watcher([&] {
    while (!done) {
      int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        opened = true;
        ::close(fd);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  VariantCompiler compiler(config_, o);
  const CompiledVariant r = compiler.compile(config_.kernels[0], original());
  done = true;
  watcher.join();
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(opened) << "the FIFO was opened";
  std::string manifest;
  for (const auto& e : fs::directory_iterator(root_ / ".kernelbot" / "work" / "cache"))
    if (e.path().extension() == ".deps") manifest += read_text_file(e.path());
  EXPECT_EQ(manifest, header.string() + "\n" + header.string() + "\n");
}

}  // namespace
}  // namespace kb::profiler
