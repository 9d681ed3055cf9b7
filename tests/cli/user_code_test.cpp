// Code a user did not write for kernelbot (issue 29, fixtures (b) and (c)), through the CLI as a
// new user goes: discover -> init -> the hand edits init leaves (its TODO counts and `# check:`
// items) -> check --compile, whose hints name the prelude and the setup source -> the lines and
// files they ask for -> config check -> check --compile passes. The hand edits are counted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces every `from` in `text` with `to`; how many it replaced (each one a hand edit).
int replace_all(std::string& text, const std::string& from, const std::string& to) {
  int n = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++n;
  }
  return n;
}

// Adds `lines` to the [project] table (init writes one; else a new one on top): one edit a line.
int add_to_project(std::string& toml, const std::string& lines) {
  size_t at = toml.rfind("\n[project]\n");  // a table, not "# [project]" in a comment
  if (at != std::string::npos) toml.insert(at + 11, lines);
  else if (toml.rfind("[project]\n", 0) == 0) toml.insert(10, lines);  // the one added on top before
  else toml = "[project]\n" + lines + "\n" + toml;
  return static_cast<int>(std::count(lines.begin(), lines.end(), '\n'));
}

class UserCode : public ::testing::Test {
 protected:
  void copy_fixture(const std::string& name) {
    dir_ = fs::temp_directory_path() / ("kb_usercode_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures" / name, dir_, fs::copy_options::recursive);
  }
  void copy_user_file(const std::string& fixture, const std::string& file) {
    fs::copy_file(fs::path(KB_SOURCE_DIR) / "tests/fixtures/user_edits" / fixture / file, dir_ / file);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  kb::testing::KernelbotRun kernelbot(const std::string& args) { return kb::testing::run_kernelbot(args, dir_); }
  std::string config() { return text_of(dir_ / "kernelbot.toml"); }
  void write_config(const std::string& text) { std::ofstream(dir_ / "kernelbot.toml") << text; }
  static bool have_harness() { return fs::exists(fs::path(KB_BINARY_DIR) / "bot" / "kernelbot-harness"); }
  fs::path dir_;
};

}  // namespace

// Fixture (b): a sample program. scale_on_device is driven today; histogram_kernel, launched from
// main() only, waits for kernel targets that name a __global__ (another branch's work).
TEST_F(UserCode, SampleStyleProgramNeedsThePreludeAndTheSetupSourceItsHintsName) {
  copy_fixture("sample_style");
  auto discover = kernelbot("discover");
  ASSERT_EQ(discover.exit_code, 0) << discover.err;
  EXPECT_NE((discover.out + discover.err).find("scale_on_device"), std::string::npos) << discover.out << discover.err;
  auto init = kernelbot("init --kernel scale_on_device");
  ASSERT_EQ(init.exit_code, 0) << init.err;

  int edits = 0;
  std::string toml = config();
  edits += replace_all(toml, "count = \"TODO\"", "count = \"n\"");
  toml = "[verify]\nsandbox = \"process\"\n\n" + toml;  // the test's machine, not a hand edit
  write_config(toml);
  auto check = kernelbot("config check");
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << toml;
  if (!have_harness()) GTEST_SKIP() << "no kernelbot-harness in this build: check --compile cannot load";

  // 1. The header is not self-contained: the hint names it and the prelude.
  auto first = kernelbot("check --compile");
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_NE(first.out.find("hint: sample_common.h:"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("uses 'Real'"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("[project] prelude"), std::string::npos) << first.out;

  // 2. The prelude it asks for (a file of one typedef and a line): the program globals are
  // undefined at load, and the hint names sample.cu, a program, and the setup source.
  copy_user_file("sample_style", "kb_prelude.h");
  edits += 1 + add_to_project(toml, "prelude = [\"kb_prelude.h\"]\n");
  write_config(toml);
  auto second = kernelbot("check --compile");
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_NE(second.out.find("NOT LOADED: undefined symbol g_"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("defined at sample.cu:"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("a file with a main()"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("setup_source"), std::string::npos) << second.out;
  EXPECT_EQ(second.out.find("probably from"), std::string::npos) << "not a library for link_libs\n" << second.out;

  // 3. The setup source it asks for (the globals and main()'s setup of them) and its line.
  copy_user_file("sample_style", "kb_setup.cu");
  edits += 1 + add_to_project(toml, "setup_source = \"kb_setup.cu\"\n");
  write_config(toml);
  EXPECT_EQ(kernelbot("config check").exit_code, 0);
  auto last = kernelbot("check --compile");
  EXPECT_EQ(last.exit_code, 0) << last.out << last.err << "\n" << toml;
  EXPECT_NE(last.out.find("kernel scale_on_device: compiled (-arch=sm_90), loaded"), std::string::npos) << last.out;
  // The hand edits, written down: two files and two [project] lines (no TODO count to fill).
  EXPECT_EQ(edits, 4) << toml;
}

// Fixture (c): code written against an old framework header that the build force-included.
TEST_F(UserCode, CompatPreludeNamedByTheHintMakesLegacyCodeCompile) {
  copy_fixture("compat_prelude");
  ASSERT_EQ(kernelbot("discover").exit_code, 0);
  auto init = kernelbot("init --kernel saxpy");
  ASSERT_EQ(init.exit_code, 0) << init.err;

  int edits = 0;
  std::string toml = config();
  edits += replace_all(toml, "count = \"TODO\"", "count = \"n\"");
  toml = "[verify]\nsandbox = \"process\"\n\n" + toml;
  write_config(toml);
  auto check = kernelbot("config check");
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << toml;
  if (!have_harness()) GTEST_SKIP() << "no kernelbot-harness in this build: check --compile cannot load";

  auto first = kernelbot("check --compile");
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_NE(first.out.find("legacy/cutil_compat.h declares"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("prelude = [\"legacy/cutil_compat.h\"]"), std::string::npos) << first.out;

  edits += add_to_project(toml, "prelude = [\"legacy/cutil_compat.h\"]\n");
  write_config(toml);
  EXPECT_EQ(kernelbot("config check").exit_code, 0);
  auto last = kernelbot("check --compile");
  EXPECT_EQ(last.exit_code, 0) << last.out << last.err << "\n" << toml;
  EXPECT_NE(last.out.find("kernel saxpy: compiled (-arch=sm_90), loaded"), std::string::npos) << last.out;
  // The hand edits, written down: the two TODO counts (x and y: init does not read `i < n` through
  // the CUTIL-era index type) and the prelude line.
  EXPECT_EQ(edits, 3) << toml;
}
