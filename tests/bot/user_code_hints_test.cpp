// The hints `check --compile` gives for code a user did not write for kernelbot: where the
// repository defines an undefined symbol (symbol_origin.h), and what a failed compile's log says
// about a header that is not self-contained, a file nvcc could not open, a double definition.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bot/checks/compile_hints.h"
#include "bot/checks/original_compile_failure.h"
#include "bot/onboarding/symbol_origin.h"

namespace fs = std::filesystem;
using namespace kb::bot;

TEST(SymbolOrigin, NameInCode) {
  EXPECT_EQ(name_in_code("g_props"), "g_props");
  EXPECT_EQ(name_in_code("ns::g_props"), "g_props");
  EXPECT_EQ(name_in_code("ops::scale(float*, int)"), "scale");
}

TEST(SymbolOrigin, FileScopeDefinitionsOnly) {
  const std::string text = R"(#include <cuda_runtime.h>
extern cudaDeviceProp g_props;   // a declaration
cudaDeviceProp g_props;
float g_table[4] = {1, 2, 3, 4};
namespace ops { int g_count = 0; }
int helper(int g_props);          // a parameter, a prototype
static void local() { int g_props = 0; (void)g_props; }
int main() { return g_props.major; }
)";
  const FileDefinitions props = find_definitions(text, "g_props");
  ASSERT_EQ(props.lines.size(), 1u);
  EXPECT_EQ(props.lines[0].first, 3);
  EXPECT_FALSE(props.lines[0].second);
  EXPECT_TRUE(props.has_main);
  EXPECT_EQ(find_definitions(text, "g_table").lines.at(0).first, 4);
  EXPECT_EQ(find_definitions(text, "g_count").lines.at(0).first, 5);
  EXPECT_TRUE(find_definitions(text, "helper").lines.empty());
  const FileDefinitions local = find_definitions(text, "local");
  ASSERT_EQ(local.lines.size(), 1u);
  EXPECT_TRUE(local.lines[0].second);
  EXPECT_FALSE(find_definitions("void f() {}\n", "f").has_main);
}

class HintsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb_hints_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "legacy");
    std::ofstream(root_ / "app.cu") << "cudaDeviceProp g_props;\nint main() { return 0; }\n";
    std::ofstream(root_ / "util.cu") << "float g_scale = 2.0f;\n";
    std::ofstream(root_ / "common.h") << "struct P { Real x; };\n";
    std::ofstream(root_ / "legacy" / "compat.h") << "typedef unsigned int uint32;\n#define IMUL(a, b) ((a) * (b))\n";
    std::ofstream(root_ / "kernel.cu") << "__global__ void k(uint32 n) {}\n";
    config_.root = root_;
    config_.kernels.resize(1);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
  kb::config::Config config_;
};

TEST_F(HintsTest, AnUndefinedProgramGlobalPointsAtTheSetupSourceOrExtraSources) {
  const std::string in_program = undefined_symbol_hint("g_props", config_, config_.kernels[0]);
  EXPECT_NE(in_program.find("app.cu:1"), std::string::npos) << in_program;
  EXPECT_NE(in_program.find("setup_source"), std::string::npos) << in_program;
  EXPECT_EQ(in_program.find("link_libs"), std::string::npos) << in_program;
  const std::string in_library = undefined_symbol_hint("g_scale", config_, config_.kernels[0]);
  EXPECT_NE(in_library.find("add \"util.cu\" to extra_sources"), std::string::npos) << in_library;
  EXPECT_EQ(undefined_symbol_hint("cublasCreate_v2", config_, config_.kernels[0]), "");
  // kb_setup: what the setup source must define, when there is one.
  EXPECT_EQ(undefined_symbol_hint("kb_setup", config_, config_.kernels[0]), "");
  config_.project.setup_source = "setup.cu";
  EXPECT_NE(undefined_symbol_hint("kb_setup", config_, config_.kernels[0]).find("extern \"C\" int kb_setup(void)"),
            std::string::npos);
}

TEST_F(HintsTest, AHeaderThatIsNotSelfContainedGetsThePrelude) {
  const std::string log = (root_ / "common.h").string() + "(1): error: identifier \"Real\" is undefined\n";
  const auto hints = compile_error_hints(log, config_);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_NE(hints[0].find("common.h:1 uses 'Real'"), std::string::npos) << hints[0];
  EXPECT_NE(hints[0].find("not self-contained"), std::string::npos) << hints[0];
  EXPECT_NE(hints[0].find("prelude = [\"compat/prelude.h\"]"), std::string::npos) << hints[0];
  // A toolkit header's error is no hint of ours.
  EXPECT_TRUE(
      compile_error_hints("/usr/local/cuda/include/x.h(3): error: identifier \"Real\" is undefined\n", config_).empty());
}

TEST_F(HintsTest, ANameARepositoryHeaderDeclaresGetsThatHeaderAsPrelude) {
  // As check --compile prints it: the repository's file name, cudafe's message.
  const auto hints = compile_error_hints("kernel.cu:1: error: identifier \"uint32\" is undefined\n", config_);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_NE(hints[0].find("legacy/compat.h declares"), std::string::npos) << hints[0];
  EXPECT_NE(hints[0].find("prelude = [\"legacy/compat.h\"]"), std::string::npos) << hints[0];
  EXPECT_EQ(header_declaring("IMUL", root_, {}), "legacy/compat.h");
  EXPECT_EQ(header_declaring("nothing_declares_this", root_, {}), "");
}

TEST_F(HintsTest, AMissingFileAndADoubleDefinition) {
  auto hints = compile_error_hints("<command-line>: fatal error: legacy/compat.h: No such file or directory\n",
                                   config_);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_NE(hints[0].find("the repository has legacy/compat.h"), std::string::npos) << hints[0];
  EXPECT_NE(hints[0].find("compile cache"), std::string::npos) << hints[0];
  hints = compile_error_hints(
      "/usr/bin/ld: extra0.o: multiple definition of `g_table'; kb_entry.o: first defined here\n", config_);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_NE(hints[0].find("'g_table' is defined by two translation units"), std::string::npos) << hints[0];
}

TEST_F(HintsTest, AnOriginalThatDoesNotCompileIsToldWithTheRepositorysFileAndTheHints) {
  // What profile, eval, search and run say, as check --compile does.
  config_.kernels[0].name = "k";
  config_.kernels[0].source = "kernel.cu";
  const std::string log = "/work/.kernelbot/work/cache/build-3f2a/variant.cu(1): error: identifier \"uint32\" is "
                          "undefined\n1 error detected in the compilation of \"variant.cu\".\n";
  const std::string what = original_compile_failure(config_, config_.kernels[0], log);
  EXPECT_EQ(what.rfind("the original of kernel 'k' (kernel.cu) does not compile as kernelbot builds it:\n", 0), 0u)
      << what;
  EXPECT_NE(what.find("kernel.cu:1: error: identifier \"uint32\" is undefined"), std::string::npos) << what;
  EXPECT_EQ(what.find("build-3f2a"), std::string::npos) << what;
  EXPECT_NE(what.find("\nhint: kernel.cu:1 uses 'uint32', which legacy/compat.h declares"), std::string::npos) << what;
  EXPECT_NE(what.find("kernelbot check --compile"), std::string::npos) << what;
  // A log with nothing to hint at: the log alone, and the pointer to check --compile.
  const std::string plain = original_compile_failure(config_, config_.kernels[0],
                                                     "variant.cu(7): error: expected a \";\"\n");
  EXPECT_NE(plain.find("kernel.cu:7: error: expected a \";\""), std::string::npos) << plain;
  EXPECT_EQ(plain.find("hint:"), std::string::npos) << plain;
}
