// Bad input a new user gives the real binary, and the answer they get: `config check` no longer
// says ok for a tunable the source never reads or template_args that do not fit the kernel; an
// unknown command and an out-of-range flag are named plainly; arguments that need no GPU are
// refused before the GPU is looked for; an unwritable TMPDIR is named before any kernel is
// blamed; every --json answer is one object with ok and exit_code; init refuses a repository
// without kernels, writes paths relative to the config it writes, and keeps .kernelbot/ out of git.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/sha256.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

const char* kReluSource = R"(#ifndef BLOCK
#define BLOCK 256
#endif
#include "relu_ops.h"

__global__ void relu_kernel(float* x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) x[i] = relu_op(x[i]) * UNROLL_FROM_HEADER;
}

template <typename T, int B>
__global__ void scale_kernel(T* x, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) x[i] = x[i] * T(2);
}

void launch_relu(float* x, int n, cudaStream_t stream) {
  relu_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(x, n);
}
)";

const char* kReluHeader = R"(#pragma once
#ifndef UNROLL_FROM_HEADER
#define UNROLL_FROM_HEADER 1
#endif
__device__ inline float relu_op(float v) { return v > 0 ? v : 0; }
)";

const char* kArgs = R"(  [[kernel.arg]]
  name = "x"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)";

std::string launcher_table(const std::string& extra = "") {
  return "[[kernel]]\nname = \"relu\"\nsource = \"src/relu.cu\"\nlauncher = \"launch_relu\"\nsizes = [{ n = 4096 }]\n" +
         extra + kArgs + "  [[kernel.arg]]\n  name = \"stream\"\n  role = \"stream\"\n";
}

std::string target_table(const std::string& global, const std::string& extra = "") {
  return "[[kernel]]\nname = \"" + global + "_target\"\nsource = \"src/relu.cu\"\nglobal = \"" + global +
         "\"\ngrid = \"ceil_div(n, block_x)\"\nblock = \"256\"\nsizes = [{ n = 4096 }]\n" + extra + kArgs;
}

int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  return at == std::string::npos ? -1 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_bad_input_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
    std::ofstream(dir_ / "src/relu.cu") << kReluSource;
    std::ofstream(dir_ / "src/relu_ops.h") << kReluHeader;
  }
  void TearDown() override { fs::remove_all(dir_); }
  kb::testing::KernelbotRun kernelbot(const std::string& args, const std::string& env = "") {
    return kb::testing::run_kernelbot(args, dir_, env);
  }
  void write_config(const std::string& text) { std::ofstream(dir_ / "kernelbot.toml") << text; }
  // Every file in the repository with its SHA-256: a refused command changes none of them.
  std::map<std::string, std::string> hashes() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.is_regular_file()) {
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        out[fs::relative(e.path(), dir_).string()] = kb::sha256_hex(bytes.str());
      }
    return out;
  }
  // `config check` of `text` fails at `field`, on the line holding `line_text`, saying `fragment`.
  void expect_rejected(const std::string& text, const std::string& field, const std::string& line_text,
                       const std::string& fragment) {
    write_config(text);
    const auto before = hashes();
    auto r = kernelbot("config check");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.out.find(": ok"), std::string::npos) << r.out;
    const std::string where = "kernelbot.toml:" + std::to_string(line_of(text, line_text)) + ":";
    EXPECT_NE(r.err.find(where), std::string::npos) << "expected " << where << " in:\n" << r.err;
    EXPECT_NE(r.err.find(field + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    auto j = kernelbot("--json config check");
    EXPECT_EQ(j.exit_code, 2);
    auto parsed = nlohmann::json::parse(j.out, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << j.out;
    EXPECT_EQ(parsed["ok"], false);
    EXPECT_EQ(parsed["exit_code"], 2);
    EXPECT_EQ(parsed["error"]["kind"], "config");
    EXPECT_EQ(hashes(), before);
  }
  fs::path dir_;
};

TEST_F(BadInput, TheValidFilesPass) {
  write_config(launcher_table("tunables = { BLOCK = [128, 256], UNROLL_FROM_HEADER = [1, 2] }\n") + "\n" +
               target_table("scale_kernel", "template_args = \"float, 256\"\n") + "\n" + target_table("relu_kernel"));
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("kernelbot.toml: ok (3 kernels)"), std::string::npos) << r.out;
}

TEST_F(BadInput, ATunableTheSourceNeverReadsIsAnError) {
  expect_rejected(launcher_table("tunables = { BLOCK = [128, 256], TILE = [4, 8] }\n"), "kernel[0].tunables.TILE",
                  "tunables =", "TILE appears nowhere in src/relu.cu");
}

TEST_F(BadInput, TemplateArgsOnAFunctionThatIsNoTemplate) {
  expect_rejected(target_table("relu_kernel", "template_args = \"float\"\n"), "kernel[0].template_args",
                  "template_args =", "is not a template");
}

TEST_F(BadInput, ATemplateKernelWithoutTemplateArgs) {
  expect_rejected(target_table("scale_kernel"), "kernel[0].template_args", "[[kernel]]",
                  "is a template <typename T, int B>");
}

TEST_F(BadInput, TooManyTemplateArgs) {
  expect_rejected(target_table("scale_kernel", "template_args = \"float, 4, 5\"\n"), "kernel[0].template_args",
                  "template_args =", "takes 2");
}

TEST_F(BadInput, KernelNamesThatLeaveTheRepositoryOrAreNoBranch) {
  for (const std::string name : {"../../../tmp/evil", "", "relu\u2713 fast"}) {
    std::string text = launcher_table();
    text.replace(text.find("\"relu\""), 6, "\"" + name + "\"");
    expect_rejected(text, "kernel[0].name", "name = \"", "a kernel's name names its results directory");
  }
}

TEST_F(BadInput, AnIgnoreThatNamesNoKernelIsAWarning) {
  write_config("[github]\nignore_kernels = [\"rleu\"]\n\n" + launcher_table());
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:2:19: warning: github.ignore_kernels[0]: 'rleu' names no [[kernel]]"),
            std::string::npos)
      << r.err;
}

TEST_F(BadInput, AnUnknownCommandIsNamedWithTheNearestOne) {
  auto r = kernelbot("inti");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'inti'; did you mean 'init'?"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  auto nested = kernelbot("config chek");
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_NE(nested.err.find("unknown command 'config chek'; did you mean 'config check'?"), std::string::npos)
      << nested.err;
  auto none = kernelbot("config");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("'config' needs a command: config check, config show"), std::string::npos) << none.err;
  auto j = kernelbot("--json fro");
  EXPECT_EQ(j.exit_code, 2);
  auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed["error"]["kind"], "usage");
  EXPECT_NE(parsed["error"]["message"].get<std::string>().find("unknown command 'fro'"), std::string::npos);
}

TEST_F(BadInput, FlagsOutOfRangeSayTheBound) {
  write_config(launcher_table());
  const auto before = hashes();
  struct Case {
    std::string args, fragment;
  };
  for (const Case& c :
       std::vector<Case>{{"check --compile -j 0", "--jobs: must be at least 1, got 0"},
                         {"run --rounds 0", "--rounds: must be at least 1, got 0"},
                         {"search --kernel relu --max-candidates 0", "--max-candidates: must be at least 1, got 0"},
                         {"search --kernel relu --max-wall-time 0", "must be greater than 0, got 0"},
                         {"eval --kernel relu --candidate src/relu.cu --device -1",
                          "--device: must be at least 0, got -1"},
                         {"profile --device -1", "--device: must be at least 0, got -1"},
                         {"profile --timeout -1 -- /bin/true", "--timeout: must be greater than 0"}}) {
    auto r = kernelbot(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.find("179769313"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no CUDA device"), std::string::npos) << r.err;
  }
  EXPECT_EQ(hashes(), before);
}

TEST_F(BadInput, ArgumentsThatNeedNoGpuAreCheckedBeforeIt) {
  write_config(launcher_table());
  const auto before = hashes();
  auto dir = kernelbot("eval --kernel relu --candidate src");
  EXPECT_EQ(dir.exit_code, 2) << dir.err;
  EXPECT_NE(dir.err.find("--candidate src: not a file"), std::string::npos) << dir.err;
  auto missing = kernelbot("eval --kernel relu --candidate nope.cu");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  auto program = kernelbot("profile -- /nonexistent/app");
  EXPECT_EQ(program.exit_code, 2) << program.err;
  EXPECT_NE(program.err.find("profile -- /nonexistent/app: no such file"), std::string::npos) << program.err;
  auto on_path = kernelbot("profile -- kb_no_such_program_anywhere");
  EXPECT_EQ(on_path.exit_code, 2) << on_path.err;
  EXPECT_NE(on_path.err.find("no such program on PATH"), std::string::npos) << on_path.err;
  for (const auto* r : {&dir, &missing, &program, &on_path})
    EXPECT_EQ(r->err.find("no CUDA device"), std::string::npos) << r->err;
  auto j = kernelbot("--json eval --kernel relu --candidate src");
  auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed["exit_code"], 2);
  EXPECT_EQ(parsed["error"]["kind"], "usage");
  EXPECT_EQ(hashes(), before);
}

TEST_F(BadInput, AnUnwritableTmpdirIsNamedBeforeAnyKernel) {
  write_config(launcher_table());
  const auto before = hashes();
  auto r = kernelbot("check --compile", "TMPDIR=" + (dir_ / "no_such_dir").string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("TMPDIR=" + (dir_ / "no_such_dir").string() + " is not a directory kernelbot can write to"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("COMPILE ERROR"), std::string::npos) << r.out;
  EXPECT_EQ(hashes(), before);
}

TEST_F(BadInput, JsonCheckIsOneObject) {
  write_config(launcher_table());
  auto r = kernelbot("--json check");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["kernels"], 1);
  auto c = nlohmann::json::parse(kernelbot("--json config check").out);
  EXPECT_EQ(c["ok"], true);
}

TEST_F(BadInput, JsonCheckCompileWithAFailingKernelCarriesTheEnvelope) {
  std::string broken = kReluSource;
  broken.replace(broken.find("relu_op(x[i])"), 13, "undeclared_name");
  std::ofstream(dir_ / "src/relu.cu") << broken;
  write_config(launcher_table());
  auto r = kernelbot("--json check --compile");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["error"]["kind"], "failed");
  if (!fs::exists(fs::path(KB_BINARY_DIR) / "bot" / "kernelbot-harness")) {
    // A build without CUPTI (the sanitizer builds) has no harness to load with: the same envelope
    // says so instead of listing kernels.
    EXPECT_NE(j["error"]["message"].get<std::string>().find("kernelbot-harness"), std::string::npos) << r.out;
    return;
  }
  EXPECT_NE(j["error"]["message"].get<std::string>().find("1 of 1 kernel(s)"), std::string::npos);
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["compiled"], false);
}

TEST_F(BadInput, InitInARepositoryWithoutKernelsWritesNothing) {
  fs::remove_all(dir_ / "src");
  std::ofstream(dir_ / "main.cpp") << "int main() { return 0; }\n";
  auto r = kernelbot("init");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no CUDA kernel or launcher found"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "kernelbot.toml"));
  EXPECT_FALSE(fs::exists(dir_ / ".kernelbot"));
  auto j = nlohmann::json::parse(kernelbot("--json init").out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 2);
}

TEST_F(BadInput, JsonInitStdoutIsAnObjectWithTheText) {
  auto r = kernelbot("--json init --stdout");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_NE(j["text"].get<std::string>().find("source = \"src/relu.cu\""), std::string::npos) << j["text"];
  EXPECT_FALSE(fs::exists(dir_ / "kernelbot.toml"));
}

TEST_F(BadInput, InitWithConfigElsewhereWritesPathsRelativeToIt) {
  fs::create_directories(dir_ / "ci");
  auto r = kernelbot("--config ci/kb.toml init");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir_ / "ci/kb.toml");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("source = \"../src/relu.cu\""), std::string::npos) << text.str();
  auto check = kernelbot("--config ci/kb.toml config check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_TRUE(fs::exists(dir_ / "ci/.kernelbot/.gitignore"));
}

TEST_F(BadInput, InitKeepsTheWorkDirectoryOutOfGit) {
  auto r = kernelbot("init");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir_ / ".kernelbot/.gitignore");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\n*\n"), std::string::npos) << text.str();
  EXPECT_FALSE(fs::exists(dir_ / ".gitignore"));  // the user's own file is not touched
  auto j = nlohmann::json::parse(kernelbot("--json init --force").out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_NE(j["written"].get<std::string>().find("kernelbot.toml"), std::string::npos);
}

}  // namespace
