// Runs the real kernelbot binary against real files in a temp directory and checks what a user
// sees: exit codes (0 done, 1 failed, 2 bad usage/config), stdout vs stderr, messages.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/kernelbot_process.h"
#include "tests/support/loopback_http_server.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `kernelbot <args>` in `dir`, capturing stdout and stderr separately.
kb::testing::KernelbotRun kernelbot(const std::string& args, const fs::path& dir = fs::temp_directory_path()) {
  return kb::testing::run_kernelbot(args, dir);
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

}  // namespace

TEST_F(CliTest, HelpOnEveryCommandExitsZero) {
  for (const char* cmd : {"", "init", "discover", "profile", "eval", "search", "run", "pr", "config", "config check",
                          "config show", "version", "check"}) {
    auto r = kernelbot(std::string(cmd) + " --help", dir_);
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.err;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << cmd;
  }
}

TEST_F(CliTest, BadUsageExitsTwo) {
  EXPECT_EQ(kernelbot("", dir_).exit_code, 2);
  EXPECT_EQ(kernelbot("frobnicate", dir_).exit_code, 2);
  EXPECT_EQ(kernelbot("config", dir_).exit_code, 2);
  EXPECT_EQ(kernelbot("discover --no-such-flag", dir_).exit_code, 2);
  EXPECT_EQ(kernelbot("discover /no/such/dir", dir_).exit_code, 2);
  auto r = kernelbot("config check", dir_);  // no kernelbot.toml anywhere up from a temp dir
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kernelbot init"), std::string::npos) << r.err;
}

TEST_F(CliTest, ConfigCheckReportsEveryErrorWithLineAndColumn) {
  write("kernelbot.toml", R"([search]
roundz = 3
ideas_per_round = "four"

[[kernel]]
name = "k"
source = "k.cu"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = 16
)");
  write("k.cu", "__global__ void k(float* y) {}\n");
  auto r = kernelbot("config check", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("kernelbot.toml:2:1: error: search.roundz: unknown key 'roundz' in [search] (did you mean "
                       "'rounds'?)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:3:19: error: search.ideas_per_round: expected an integer, got a string"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:5:1: error: kernel[0].launcher: missing required field 'launcher'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("3 errors in the config"), std::string::npos) << r.err;
}

TEST_F(CliTest, ConfigCheckAcceptsTheExamplesAndShowPrintsDefaults) {
  std::string examples = std::string(KB_SOURCE_DIR) + "/examples/kernelbot.toml";
  auto r = kernelbot("--config " + examples + " config check", dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok (4 kernels)"), std::string::npos) << r.out;

  r = kernelbot("config show --json --config " + examples, dir_);  // global flags after the subcommand too
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernel"].size(), 4u);
  EXPECT_EQ(j["search"]["rounds"], 2);           // the examples' short demo budget
  EXPECT_EQ(j["search"]["ideas_per_round"], 4);  // a default filled in
  EXPECT_EQ(j["project"]["include_dirs"][0], "include");
}

// `config check` says which GPU architectures each kernel's project builds for and where it read
// them; a target_archs entry that is no architecture is an error naming the field.
TEST_F(CliTest, ConfigCheckSaysWhichArchitecturesItFoundAndWhere) {
  write("src/scale.cu", R"(__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
)");
  const std::string kernel = R"(
[[kernel]]
name = "scale"
source = "src/scale.cu"
launcher = "launch_scale"
sizes = [{ n = 4096 }]
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
)";
  write("kernelbot.toml", kernel);
  write("build/compile_commands.json",
        R"([{"directory": ")" + (dir_ / "build").string() +
            R"(", "command": "nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c )"
            R"(../src/scale.cu", "file": "../src/scale.cu"}])");
  auto r = kernelbot("config check", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("target architectures: sm_80, sm_90 (from build/compile_commands.json, the entry of "
                       "src/scale.cu)\n  read: -gencode arch=compute_80,code=sm_80\n"),
            std::string::npos)
      << r.out;
  r = kernelbot("config check --json", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["target_archs"].size(), 1u) << r.out;
  EXPECT_EQ(j["target_archs"][0]["kernel"], "scale");
  EXPECT_EQ(j["target_archs"][0]["archs"], nlohmann::json({"sm_80", "sm_90"}));

  write("kernelbot.toml", "[project]\ntarget_archs = [\"sm_86\", \"90a\"]\n" + kernel);
  r = kernelbot("config check", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("target architectures: sm_86, sm_90a (from kernelbot.toml [project] target_archs)\n"),
            std::string::npos)
      << r.out;

  write("kernelbot.toml", "[project]\ntarget_archs = [\"ampere\"]\n" + kernel);
  r = kernelbot("config check", dir_);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("kernelbot.toml:2:17: error: project.target_archs[0]: \"ampere\" is not a GPU architecture"),
            std::string::npos)
      << r.err;

  fs::remove_all(dir_ / "build");
  write("kernelbot.toml", kernel);
  r = kernelbot("config check", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("target architectures: none found (looked at kernelbot.toml [project] target_archs"),
            std::string::npos)
      << r.out;
}

TEST_F(CliTest, DiscoverListsTheExampleKernelsAndLaunchers) {
  auto r = kernelbot("discover " + std::string(KB_SOURCE_DIR) + "/examples", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"saxpy_kernel", "transpose_kernel", "row_sum_kernel", "layernorm_kernel", "launch_saxpy",
                           "launch_transpose", "launch_row_sum", "launch_layernorm"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  r = kernelbot("--json discover " + std::string(KB_SOURCE_DIR) + "/examples", dir_);
  ASSERT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.out);
  // The tunable-macros example's four, and production/'s: four ops (softmax overloaded) and main();
  // and the programs and tests that launch through them (three main()s, four test_*), marked so.
  EXPECT_EQ(j["launchers"].size(), 16u);
  for (const auto& l : j["launchers"])
    if (l["name"] == "test_saxpy") {
      ASSERT_EQ(l["launches"].size(), 1u);
      EXPECT_EQ(l["launches"][0]["kernel"], "saxpy_kernel");
      EXPECT_EQ(l["launches"][0]["via"], "launch_saxpy");
    }
}

TEST_F(CliTest, InitWritesAStarterConfigThatValidates) {
  write("src/ops.cu", R"(
__global__ void scale(const float* in, float* out, float s, int n) {}
void launch_scale(const float* in, float* out, float s, int n) { scale<<<(n + 255) / 256, 256>>>(in, out, s, n); }
#define DEF(k) __global__ void k() {}
)");
  auto r = kernelbot("init", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "kernelbot.toml"));
  EXPECT_NE(r.err.find("macro defines a kernel"), std::string::npos) << r.err;  // says what it skipped
  std::string text = read_file(dir_ / "kernelbot.toml");
  EXPECT_NE(text.find("launcher = \"launch_scale\""), std::string::npos) << text;
  EXPECT_NE(text.find("role = \"output\""), std::string::npos);
  EXPECT_NE(text.find("role = \"size\""), std::string::npos);
  auto check = kernelbot("config check", dir_);
  EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << text;
  // A second init does not overwrite the user's file.
  EXPECT_EQ(kernelbot("init", dir_).exit_code, 2);
  EXPECT_EQ(kernelbot("init --force", dir_).exit_code, 0);
}

TEST_F(CliTest, TheMainJobNeedsAGpuAndSaysSo) {
  // CI runs this on a machine without a GPU: the main job must stop with a clear message and
  // exit code 1 after reading the config. On a GPU machine it must not claim there is none.
  bool has_gpu = std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
  std::string examples = std::string(KB_SOURCE_DIR) + "/examples/kernelbot.toml";
  auto r = kernelbot("--config " + examples + " run --help", dir_);
  EXPECT_EQ(r.exit_code, 0);
  if (has_gpu) return;  // the real run is covered by the gpu-labelled end-to-end tests
  r = kernelbot("--config " + examples + " run", dir_);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
}

TEST_F(CliTest, VersionPrintsToolkit) {
  auto r = kernelbot("version --json", dir_);
  ASSERT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["version"].get<std::string>().empty());
  EXPECT_EQ(j["cuda_toolkit"].get<std::string>().substr(0, 2), "13");
  ASSERT_TRUE(j["cupti"].is_boolean());
  // The plain form says so when the build has no judge.
  auto text = kernelbot("version", dir_);
  EXPECT_EQ(text.out.find("without CUPTI") != std::string::npos, !j["cupti"].get<bool>()) << text.out;
}

TEST_F(CliTest, WithJsonEveryFailureIsAnObjectOnStdout) {
  auto parsed = [](const kb::testing::KernelbotRun& r) {
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout is not one JSON object: " << r.out;
    return j;
  };
  // The command line.
  auto usage = kernelbot("--json frobnicate", dir_);
  EXPECT_EQ(usage.exit_code, 2);
  auto j = parsed(usage);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_EQ(j["error"]["kind"], "usage");
  EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());

  // The config: every diagnostic with its position and field.
  write("kernelbot.toml", "[search]\nroundz = 3\n");
  auto config = kernelbot("config check --json", dir_);
  EXPECT_EQ(config.exit_code, 2) << config.err;
  j = parsed(config);
  EXPECT_EQ(j["error"]["kind"], "config");
  ASSERT_EQ(j["error"]["diagnostics"].size(), 1u) << j.dump();
  EXPECT_EQ(j["error"]["diagnostics"][0]["line"], 2);
  EXPECT_EQ(j["error"]["diagnostics"][0]["field"], "search.roundz");
  EXPECT_NE(j["error"]["diagnostics"][0]["file"].get<std::string>().find("kernelbot.toml"), std::string::npos);

  // A request that cannot be done as given.
  const std::string examples = std::string(KB_SOURCE_DIR) + "/examples/kernelbot.toml";
  auto no_kernel = kernelbot("--json --config " + examples + " run --kernel no_such_kernel", dir_);
  EXPECT_EQ(no_kernel.exit_code, 2) << no_kernel.err;
  j = parsed(no_kernel);
  EXPECT_EQ(j["error"]["kind"], "usage");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("no [[kernel]] named 'no_such_kernel'"), std::string::npos);

  // No GPU (CI has none; on a GPU machine this part is the gpu tests' business).
  if (std::system("nvidia-smi -L >/dev/null 2>&1") == 0) return;
  auto no_gpu = kernelbot("--config " + examples + " run --json", dir_);
  EXPECT_EQ(no_gpu.exit_code, 1) << no_gpu.err;
  j = parsed(no_gpu);
  EXPECT_EQ(j["error"]["kind"], "no_device");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("no CUDA device: "), std::string::npos);
  // Without --json stdout stays empty: the message is on stderr.
  EXPECT_EQ(kernelbot("--config " + examples + " run", dir_).out, "");
}

TEST_F(CliTest, RunChecksItsCheapPreconditionsBeforeLookingForAGpu) {
  const std::string examples = std::string(KB_SOURCE_DIR) + "/examples";
  // A replay proposer without its file: named, exit 2, whether or not there is a GPU.
  auto replay = kernelbot("--config " + examples + "/kernelbot.toml run --proposer replay", dir_);
  EXPECT_EQ(replay.exit_code, 2) << replay.err;
  EXPECT_NE(replay.err.find("needs a file of recorded replies"), std::string::npos) << replay.err;
  EXPECT_EQ(replay.err.find("no CUDA device"), std::string::npos) << replay.err;

  // A model endpoint that refuses the key: the provider's own message, exit 2, before any GPU work.
  kb::testing::LoopbackHttpServer model([](const kb::testing::LoopbackRequest&) {
    return kb::testing::json_response(
        401, R"({"error": {"message": "Incorrect API key provided: sk-test. You can find your API key at )"
             R"(https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", )"
             R"("param": null, "code": "invalid_api_key"}})");
  });
  std::ifstream in(examples + "/kernelbot.toml");
  std::stringstream toml;
  toml << in.rdbuf();
  std::string text = toml.str();
  text.replace(text.find("[project]"), 9,
               "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"" + model.base_url() +
                   "\"\nmodel = \"gpt-test\"\napi_key_env = \"\"\nmax_retries = 0\n\n[project]");
  write("kernelbot.toml", text);
  for (const char* sub : {"src", "include"})
    fs::copy(fs::path(examples) / sub, dir_ / sub, fs::copy_options::recursive);
  auto llm = kernelbot("run --json", dir_);
  EXPECT_EQ(llm.exit_code, 2) << llm.err;
  EXPECT_NE(llm.err.find("Incorrect API key provided"), std::string::npos) << llm.err;
  EXPECT_EQ(llm.err.find("no CUDA device"), std::string::npos) << llm.err;
  EXPECT_EQ(nlohmann::json::parse(llm.out)["error"]["kind"], "usage") << llm.out;
  EXPECT_EQ(model.requests().size(), 1u) << "one small request checks the endpoint";

  // An endpoint nothing listens at: a failure of the service (exit 1), within seconds, before any
  // GPU work.
  int port = 0;
  {
    kb::testing::LoopbackHttpServer gone(
        [](const kb::testing::LoopbackRequest&) { return kb::testing::LoopbackResponse{}; });
    port = gone.port();
  }
  const std::string gone_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  std::string unreachable = text;
  unreachable.replace(unreachable.find(model.base_url()), model.base_url().size(),
                      gone_url.substr(0, gone_url.size() - 3));
  write("kernelbot.toml", unreachable);
  const auto t0 = std::chrono::steady_clock::now();
  auto down = kernelbot("run --json", dir_);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  EXPECT_EQ(down.exit_code, 1) << down.err;
  EXPECT_NE(down.err.find("did not answer kernelbot's check request"), std::string::npos) << down.err;
  EXPECT_NE(down.err.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << down.err;
  EXPECT_EQ(down.err.find("no CUDA device"), std::string::npos) << down.err;
}

TEST_F(CliTest, EveryCommandsFailureIsJsonWithJson) {
  // A bad flag to each command, and a config with an error to each command that reads one: one
  // JSON object on stdout each time, with the kind and the exit code.
  write("kernelbot.toml", "[search]\nroundz = 3\n");
  for (const char* cmd : {"init", "discover", "profile", "eval", "search", "run", "pr", "publish", "config check",
                          "config show", "check", "version"}) {
    auto r = kernelbot(std::string("--json ") + cmd + " --no-such-flag", dir_);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << cmd << ": " << r.out;
    EXPECT_EQ(j["ok"], false) << cmd;
    EXPECT_EQ(j["exit_code"], 2) << cmd;
    EXPECT_EQ(j["error"]["kind"], "usage") << cmd;
  }
  for (const char* cmd : {"profile", "eval --kernel k --candidate c.cu", "search --kernel k", "run", "pr --kernel k",
                          "config check", "config show", "check"}) {
    auto r = kernelbot(std::string("--json ") + cmd, dir_);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << cmd << ": " << r.out;
    EXPECT_EQ(j["error"]["kind"], "config") << cmd << ": " << r.out;
    EXPECT_EQ(j["error"]["diagnostics"][0]["field"], "search.roundz") << cmd;
  }
}
