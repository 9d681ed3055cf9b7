#include "cuda_source/reading/include_dirs_guess.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using kb::cuda_source::guess_include_dirs;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST(IncludeDirsGuess, FindsTheDirectoryABuildWouldPassWithDashI) {
  fs::path root = fs::temp_directory_path() / "kb_include_dirs_guess";
  fs::remove_all(root);
  write(root / "src/ops.cu", "#include \"prod/ops.h\"\n#include \"local.h\"\n#include <cuda_runtime.h>\n");
  write(root / "src/local.h", "// beside the source: needs no -I\n");
  write(root / "include/prod/ops.h", "#include \"prod/dtype.h\"\n#include \"third/x.h\"\n");
  write(root / "include/prod/dtype.h", "typedef float floatX;\n");
  // A header found only through another header's include, under a second directory.
  write(root / "vendor/include/third/x.h", "\n");
  // The same path in an excluded directory must not be taken.
  write(root / "build/gen/prod/ops.h", "\n");
  EXPECT_EQ(guess_include_dirs(root, {"src/ops.cu"}, {"build"}),
            (std::vector<std::string>{"include", "vendor/include"}));
  // Nothing to guess when every include resolves beside its file.
  write(root / "src/only_local.cu", "#include \"local.h\"\n");
  EXPECT_TRUE(guess_include_dirs(root, {"src/only_local.cu"}, {"build"}).empty());
  fs::remove_all(root);
}
