// Reading the repository's compile flags from compile_commands.json.
#include "profiler/evaluate/compile/compile_commands.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

using Flags = std::vector<std::string>;

TEST(CompileCommands, SplitsLikeAShell) {
  EXPECT_EQ(split_command_line(R"(nvcc -DNAME="a b" '-DQ=x y' -I\ dir  -c f.cu)"),
            (Flags{"nvcc", "-DNAME=a b", "-DQ=x y", "-I dir", "-c", "f.cu"}));
  EXPECT_EQ(split_command_line(R"(a "\"q\"" "")"), (Flags{"a", "\"q\"", ""}));
}

TEST(CompileCommands, KeepsIncludesDefinesAndStandard) {
  Flags args = split_command_line(
      "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -Iinclude -I /abs/inc -isystem third/x "
      "-isystem/sys/y --include-path=gen -DNDEBUG -D FOO=1 -UBAR -std=c++17 -O2 -g --generate-code=arch=compute_90,"
      "code=[compute_90,sm_90] -Xcompiler=-Wall --expt-relaxed-constexpr -std=c++20 -x cu -c src/a.cu -o a.o");
  Flags flags = relevant_compile_flags(args, "/repo/build");
  EXPECT_EQ(flags,
            (Flags{"-I/repo/build/include", "-I/abs/inc", "-isystem", "/repo/build/third/x", "-isystem", "/sys/y",
                   "-I/repo/build/gen", "-DNDEBUG", "-DFOO=1", "-UBAR", "--expt-relaxed-constexpr", "-std=c++20"}));
}

class CompileDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-ccdb-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::create_directories(root_ / "build-release");
    std::ofstream(root_ / "src" / "k.cu") << "// kernel\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(CompileDatabaseTest, AutoFindsTheEntryForTheSource) {
  std::ofstream(root_ / "build-release" / "flags.rsp") << "-I../rsp_inc -DFROM_RSP\n";
  std::ofstream(root_ / "build-release" / "compile_commands.json") << R"([
    {"directory": ")" + (root_ / "build-release").string() + R"(",
     "command": "nvcc -I../other -c ../src/other.cu", "file": "../src/other.cu"},
    {"directory": ")" + (root_ / "build-release").string() + R"(",
     "arguments": ["nvcc", "-I../include", "-DUSE_FAST=1", "--options-file", "flags.rsp", "-std=c++20", "-c", "../src/k.cu"],
     "file": "../src/k.cu"}
  ])";
  auto found = lookup_compile_flags(root_, "auto", root_ / "src" / "k.cu");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->database, root_ / "build-release" / "compile_commands.json");
  EXPECT_EQ(found->flags, (Flags{"-I" + (root_ / "include").string(), "-DUSE_FAST=1",
                                 "-I" + (root_ / "rsp_inc").string(), "-DFROM_RSP", "-std=c++20"}));

  EXPECT_FALSE(lookup_compile_flags(root_, "none", root_ / "src" / "k.cu").has_value());
  EXPECT_FALSE(lookup_compile_flags(root_, "auto", root_ / "src" / "missing.cu").has_value());
  // An explicit path (a directory or the file) relative to the root.
  EXPECT_TRUE(lookup_compile_flags(root_, "build-release", root_ / "src" / "k.cu").has_value());
  EXPECT_TRUE(lookup_compile_flags(root_, "build-release/compile_commands.json", root_ / "src" / "k.cu").has_value());
}

TEST_F(CompileDatabaseTest, MalformedDatabasesAreSkipped) {
  std::ofstream(root_ / "build-release" / "compile_commands.json") << "{ not json";
  EXPECT_FALSE(lookup_compile_flags(root_, "auto", root_ / "src" / "k.cu").has_value());
  EXPECT_EQ(find_compile_databases(root_, "auto").size(), 1u);
  EXPECT_TRUE(find_compile_databases(root_, "none").empty());
}

}  // namespace
}  // namespace kb::profiler
