// Where a kernel's target architectures come from (profiler/evaluate/archs/target_archs.h), on real
// files in a temp repository: [project] target_archs first, then architecture flags in nvcc_flags,
// then the kernel's compile_commands.json entry, then CMakeCache.txt, then CMakeLists.txt; the
// first that names one is the list, and what could not be read is said.
#include "profiler/evaluate/archs/target_archs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/config_loader.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

const char* kArchKernelTable = R"(
[[kernel]]
name = "scale"
source = "src/scale.cu"
launcher = "launch_scale"
sizes = [{ n = 1000 }]
  [[kernel.arg]]
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

class TargetArchsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-target-archs-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    write("src/scale.cu", "void launch_scale(float* x, int n) {}\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((root_ / name).parent_path());
    std::ofstream(root_ / name) << text;
  }
  TargetArchs read(const std::string& project = "") {
    config_ = config::load_config_text(project + kArchKernelTable, (root_ / "kernelbot.toml").string(), root_);
    // The toolkit of nvcc 13, so that "all-major" means the same everywhere.
    std::vector<GpuArch> toolkit;
    for (int cc : {75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121}) toolkit.push_back(GpuArch{cc, 0});
    return read_target_archs(config_, config_.kernels[0], toolkit);
  }
  void write_compile_commands(const std::string& command) {
    write("build/compile_commands.json", R"([{"directory": ")" + (root_ / "build").string() + R"(", "command": ")" +
                                             command + R"(", "file": "../src/scale.cu"}])");
  }

  fs::path root_;
  config::Config config_;
};

std::string target_sm_names(const TargetArchs& t) {
  std::string out;
  for (const auto& a : t.archs) out += (out.empty() ? "" : " ") + a.sm();
  return out;
}

TEST_F(TargetArchsTest, NothingFoundSaysWhereItLooked) {
  TargetArchs t = read();
  EXPECT_FALSE(t.found());
  EXPECT_EQ(t.source.rfind("none found (looked at kernelbot.toml [project] target_archs and nvcc_flags, "
                           "compile_commands.json, CMakeCache.txt, CMakeLists.txt)",
                           0),
            0u)
      << t.source;
  EXPECT_EQ(describe_target_archs(t), t.source);
}

TEST_F(TargetArchsTest, TheCompileCommandsEntryOfTheKernelsSource) {
  write_compile_commands(
      "/usr/local/cuda/bin/nvcc -DX=1 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 "
      "-c ../src/scale.cu");
  write("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES 70)\n");  // not read: the database came first
  TargetArchs t = read();
  EXPECT_EQ(target_sm_names(t), "sm_80 sm_90");
  EXPECT_EQ(t.source, "build/compile_commands.json, the entry of src/scale.cu");
  EXPECT_EQ(t.evidence.size(), 2u);
  EXPECT_EQ(describe_target_archs(t), "sm_80, sm_90 (from build/compile_commands.json, the entry of src/scale.cu)");
}

TEST_F(TargetArchsTest, AnEntryWithoutArchitectureFlagsFallsThroughAndSaysSo) {
  write_compile_commands("nvcc -c ../src/scale.cu");
  write("build/CMakeCache.txt", "CMAKE_CUDA_ARCHITECTURES:STRING=86;90a\n");
  TargetArchs t = read();
  EXPECT_EQ(target_sm_names(t), "sm_86 sm_90a");
  EXPECT_EQ(t.source, "build/CMakeCache.txt");
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("names no architecture: nvcc builds it for its default one"), std::string::npos)
      << t.notes[0];
}

TEST_F(TargetArchsTest, CMakeListsSettingsEverywhereInTheRepository) {
  write("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES 80)\nadd_subdirectory(ops)\n");
  write("ops/CMakeLists.txt", "set_target_properties(ops PROPERTIES CUDA_ARCHITECTURES \"86;90\")\n");
  write("build/CMakeFiles/x.cmake", "set(CMAKE_CUDA_ARCHITECTURES 52)\n");        // a build tree's: not the project's
  write("third_party/lib/CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES 60)\n");  // discover_exclude
  TargetArchs t = read();
  EXPECT_EQ(target_sm_names(t), "sm_80 sm_86 sm_90");
  EXPECT_EQ(t.source,
            "CMakeLists.txt, ops/CMakeLists.txt (every setting found, whatever if() or target it belongs to)");
}

TEST_F(TargetArchsTest, AVariableIsNotGuessed) {
  write("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES ${ARCHS})\n");
  TargetArchs t = read();
  EXPECT_FALSE(t.found());
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("CMakeLists.txt:1:"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[0].find("does not evaluate"), std::string::npos) << t.notes[0];
}

TEST_F(TargetArchsTest, NvccFlagsInTheConfigComeBeforeTheBuildFiles) {
  write_compile_commands("nvcc -arch=sm_75 -c ../src/scale.cu");
  TargetArchs t = read("[project]\nnvcc_flags = [\"-gencode\", \"arch=compute_86,code=sm_86\", \"-O3\"]\n");
  EXPECT_EQ(target_sm_names(t), "sm_86");
  EXPECT_EQ(t.source, "kernelbot.toml nvcc_flags");
}

TEST_F(TargetArchsTest, TheConfigsOwnListComesFirst) {
  write_compile_commands("nvcc -arch=sm_75 -c ../src/scale.cu");
  TargetArchs t = read("[project]\ntarget_archs = [\"sm_90\", \"80\", \"compute_90a\", \"sm_80\"]\n");
  EXPECT_EQ(target_sm_names(t), "sm_80 sm_90 sm_90a");
  EXPECT_EQ(t.source, "kernelbot.toml [project] target_archs");
}

TEST_F(TargetArchsTest, KeywordsAreExpandedOrKept) {
  write("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES all-major)\n");
  TargetArchs t = read();
  EXPECT_EQ(target_sm_names(t), "sm_75 sm_80 sm_90 sm_100 sm_110 sm_120");
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_EQ(t.notes[0], "'all-major' is sm_75, sm_80, sm_90, sm_100, sm_110, sm_120 with this toolkit");

  write("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES native)\n");
  t = read();
  EXPECT_TRUE(t.found());
  EXPECT_TRUE(t.native);
  EXPECT_TRUE(t.archs.empty());
  EXPECT_EQ(describe_target_archs(t), "native (the GPU kernelbot verifies on) (from CMakeLists.txt)");
}

}  // namespace
}  // namespace kb::profiler
