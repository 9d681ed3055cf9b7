// The sample-style fixture (tests/fixtures/sample_style) profiled on a GPU (label gpu) with the
// prelude and setup source its hints ask for: scale_on_device sizes its grid from g_props, which
// only kb_setup fills (a grid of zero blocks fails the launch), so a profile that succeeds is
// one whose setup ran in the server before the first call. A setup that returns non-zero is the
// original's infrastructure error, with kb_setup's value in the reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

std::string sample_config(const std::string& setup_source, bool namespaces) {
  return "[project]\nprelude = [\"kb_prelude.h\"]\nsetup_source = \"" + setup_source + "\"\n\n[verify]\nsandbox = \"" +
         (namespaces ? "namespaces" : "process") + R"("

[[kernel]]
name = "scale_on_device"
source = "scale_kernels.cu"
launcher = "scale_on_device"
sizes = [{ n = 1048576 }]
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
  [[kernel.arg]]
  name = "stream"
  role = "stream"
)";
}

class UserCodeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_usercode_gpu_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/sample_style", dir_, fs::copy_options::recursive);
    for (const char* f : {"kb_prelude.h", "kb_setup.cu", "kb_setup_fails.cu"})
      fs::copy_file(fs::path(KB_SOURCE_DIR) / "tests/fixtures/user_edits/sample_style" / f, dir_ / f);
    namespaces_ = std::system("bwrap --ro-bind / / --unshare-all true >/dev/null 2>&1") == 0;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
  bool namespaces_ = false;
};

TEST_F(UserCodeGpu, TheSetupRunsBeforeTheFirstCallOfTheOriginal) {
  std::ofstream(dir_ / "kernelbot.toml") << sample_config("kb_setup.cu", namespaces_);
  const auto r = kb::testing::run_kernelbot("--json profile --kernel scale_on_device --no-metrics", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out)["kernels"];  // {"ok": true, "exit_code": 0, "kernels": [...]}
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kernel"], "scale_on_device");
  const std::string verdict = j[0]["result"]["verdict"].get<std::string>();
  EXPECT_TRUE(verdict == "pending" || verdict == "accepted" || verdict == "not_faster") << r.out;
  EXPECT_EQ(r.out.find("setup failed"), std::string::npos) << r.out;
}

TEST_F(UserCodeGpu, AFailingSetupIsTheOriginalsInfrastructureError) {
  std::ofstream(dir_ / "kernelbot.toml") << sample_config("kb_setup_fails.cu", namespaces_);
  const auto r = kb::testing::run_kernelbot("--json profile --kernel scale_on_device --no-metrics", dir_);
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("kb_setup() returned 7"), std::string::npos) << all;
  EXPECT_NE(all.find("the original's library"), std::string::npos) << all;
  EXPECT_NE(all.find("infra_error"), std::string::npos) << all;
}

TEST_F(UserCodeGpu, WithoutThePreludeProfileSearchAndRunGiveTheHintsCheckCompileGives) {
  // The header scale_kernels.cu includes uses `Real`, which only the program's build declares:
  // every command that compiles the original says which file and which prelude line.
  std::string toml = sample_config("kb_setup.cu", namespaces_);
  toml.replace(toml.find("prelude = [\"kb_prelude.h\"]\n"), 26, "");
  ASSERT_EQ(toml.find("prelude"), std::string::npos) << toml;
  std::ofstream(dir_ / "kernelbot.toml") << toml;
  for (const char* command :
       {"profile --kernel scale_on_device --no-metrics",
        "search --kernel scale_on_device --proposer builtin --rounds 1 --max-candidates 2",
        "run --kernel scale_on_device --proposer builtin --rounds 1 --max-candidates 2 --dry-run"}) {
    const auto r = kb::testing::run_kernelbot(command, dir_);
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out << r.err;
    const std::string all = r.out + r.err;
    EXPECT_NE(all.find("does not compile as kernelbot builds it"), std::string::npos) << command << "\n" << all;
    EXPECT_NE(all.find("hint: sample_common.h:"), std::string::npos) << command << "\n" << all;
    EXPECT_NE(all.find("uses 'Real'"), std::string::npos) << command << "\n" << all;
    EXPECT_NE(all.find("[project] prelude"), std::string::npos) << command << "\n" << all;
  }
}

}  // namespace
