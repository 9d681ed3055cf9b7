// Splitting a line into words as a shell and as CMake do (profiler/evaluate/compile/quoted_words.h),
// and finding the files a build left (build_tree_files in compile_commands.h).
#include "profiler/evaluate/compile/quoted_words.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "profiler/evaluate/compile/compile_commands.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

using Words = std::vector<std::string>;

TEST(QuotedWords, ShellQuotesAndEscapes) {
  EXPECT_EQ(split_words(R"(nvcc -DNAME="a b" '-DQ=x y' -I\ dir  -c f.cu)", kShellWords),
            (Words{"nvcc", "-DNAME=a b", "-DQ=x y", "-I dir", "-c", "f.cu"}));
  // Inside "...", \ escapes only " \ $ and `; inside '...', nothing.
  EXPECT_EQ(split_words(R"("a\nb" "c\$d" 'e\f')", kShellWords), (Words{R"(a\nb)", "c$d", R"(e\f)"}));
  EXPECT_EQ(split_words(R"(a "" '')", kShellWords), (Words{"a", "", ""}));
  EXPECT_TRUE(split_words(" \t\n ", kShellWords).empty());
}

TEST(QuotedWords, CMakeQuotesOnlyWithDoubleQuotes) {
  // A single quote and a backslash outside quotes are letters; inside "...", \ escapes anything.
  EXPECT_EQ(split_words(R"(CUDA_ARCHITECTURES '80' a\ b "9\0;\"x\"")", kCMakeWords),
            (Words{"CUDA_ARCHITECTURES", "'80'", R"(a\)", "b", R"(90;"x")"}));
  EXPECT_EQ(split_words(R"(x "")", kCMakeWords), (Words{"x", ""}));
}

TEST(QuotedWords, ATrailingBackslashIsALetter) {
  EXPECT_EQ(split_words(R"(a\)", kShellWords), (Words{R"(a\)"}));
  EXPECT_EQ(split_words(R"("a\)", kCMakeWords), (Words{R"(a\)"}));
}

TEST(BuildTreeFiles, TheRootsAndBuildFoldersNewestFirst) {
  const fs::path root = fs::temp_directory_path() / ("kb-build-files-" + std::to_string(getpid()));
  fs::remove_all(root);
  for (const char* dir : {"build", "build-release/sub", "out", "src"}) fs::create_directories(root / dir);
  const auto write = [&](const fs::path& path, fs::file_time_type when) {
    std::ofstream(path) << "x\n";
    fs::last_write_time(path, when);
  };
  const auto now = fs::file_time_type::clock::now();
  write(root / "CMakeCache.txt", now - std::chrono::hours(3));
  write(root / "build" / "CMakeCache.txt", now - std::chrono::hours(2));
  write(root / "build-release" / "sub" / "CMakeCache.txt", now - std::chrono::hours(1));
  write(root / "out" / "CMakeCache.txt", now);  // not a build*/ folder
  write(root / "build" / "other.txt", now);
  EXPECT_EQ(build_tree_files(root, "CMakeCache.txt"),
            (std::vector<fs::path>{root / "build-release" / "sub" / "CMakeCache.txt", root / "build" / "CMakeCache.txt",
                                   root / "CMakeCache.txt"}));
  EXPECT_TRUE(build_tree_files(root, "compile_commands.json").empty());
  fs::remove_all(root);
}

}  // namespace
}  // namespace kb::profiler
