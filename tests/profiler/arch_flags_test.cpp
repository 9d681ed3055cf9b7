// Reading a build's target architectures from nvcc's flags and CMake's settings
// (profiler/evaluate/compile/arch_flags.h): every spelling nvcc and CMake accept, what the words mean
// (only arch= counts; nvcc keeps the last -arch and adds every -gencode), keywords, and what the
// reader cannot read, which it says instead of guessing.
#include "profiler/evaluate/compile/arch_flags.h"

#include <gtest/gtest.h>

namespace kb::profiler {
namespace {

std::vector<std::string> sm_names_of(const ArchReading& r) {
  std::vector<std::string> out;
  for (const auto& a : r.archs) out.push_back(a.sm());
  return out;
}
using ArchNames = std::vector<std::string>;

TEST(ArchFlags, GencodeInEverySpellingReadsTheVirtualArchitecture) {
  // As a Makefile writes it, two arguments each.
  auto r = archs_from_nvcc_flags({"nvcc", "-O3", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                                  "arch=compute_90,code=sm_90", "-c", "x.cu"});
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_80", "sm_90"}));
  EXPECT_TRUE(r.unread.empty());
  EXPECT_EQ(r.evidence, (ArchNames{"-gencode arch=compute_80,code=sm_80", "-gencode arch=compute_90,code=sm_90"}));
  // As CMake writes it into compile_commands.json: joined, with a code list.
  r = archs_from_nvcc_flags(
      {"--generate-code=arch=compute_86,code=[compute_86,sm_86]", "--generate-code=arch=compute_90a,code=[sm_90a]"});
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_86", "sm_90a"}));
  // -gencode=..., quotes left in an "arguments" array, a real code other than the virtual one: the
  // preprocessor follows arch=, so that is the target (compute_80 code for sm_86 runs the sm_80 branch).
  r = archs_from_nvcc_flags(
      {"-gencode=arch=compute_80,code=\"sm_80,sm_86\"", "--generate-code", "arch=compute_75,code=compute_75"});
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_75", "sm_80"}));
}

TEST(ArchFlags, ArchShorthandsAndTheLastArchWins) {
  EXPECT_EQ(sm_names_of(archs_from_nvcc_flags({"-arch=sm_86"})), (ArchNames{"sm_86"}));
  EXPECT_EQ(sm_names_of(archs_from_nvcc_flags({"-arch", "sm_80"})), (ArchNames{"sm_80"}));
  EXPECT_EQ(sm_names_of(archs_from_nvcc_flags({"--gpu-architecture=compute_89"})), (ArchNames{"sm_89"}));
  EXPECT_EQ(sm_names_of(archs_from_nvcc_flags({"--gpu-architecture", "sm_90a", "--gpu-code=sm_90a"})),
            (ArchNames{"sm_90a"}));
  // nvcc warns and keeps the last -arch; -gencode adds to it.
  auto r = archs_from_nvcc_flags({"-arch=sm_70", "-arch=sm_80", "-gencode", "arch=compute_90,code=sm_90"});
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_80", "sm_90"}));
  // -code names what is kept, never a branch: no target of its own.
  EXPECT_EQ(sm_names_of(archs_from_nvcc_flags({"-arch=compute_80", "-code=sm_80,sm_86,compute_80"})),
            (ArchNames{"sm_80"}));
  // clang's CUDA spellings add up.
  EXPECT_EQ(sm_names_of(archs_from_nvcc_flags({"--cuda-gpu-arch=sm_80", "--offload-arch=sm_90"})),
            (ArchNames{"sm_80", "sm_90"}));
}

TEST(ArchFlags, KeywordsAreKeptForTheirMeaning) {
  auto r = archs_from_nvcc_flags({"-arch=native"});
  EXPECT_TRUE(r.native);
  EXPECT_TRUE(r.archs.empty());
  EXPECT_TRUE(r.found());
  r = archs_from_nvcc_flags({"-arch=all-major"});
  EXPECT_EQ(r.keywords, (ArchNames{"all-major"}));
  EXPECT_TRUE(r.found());
  r = archs_from_nvcc_flags({"-arch", "all"});
  EXPECT_EQ(r.keywords, (ArchNames{"all"}));
}

TEST(ArchFlags, WhatItCannotReadItSays) {
  auto r = archs_from_nvcc_flags({"-gencode", "arch=compute_$(ARCH),code=sm_$(ARCH)", "-arch"});
  EXPECT_FALSE(r.found());
  ASSERT_EQ(r.unread.size(), 2u);
  EXPECT_NE(r.unread[0].find("compute_$(ARCH)"), std::string::npos) << r.unread[0];
  EXPECT_NE(r.unread[1].find("-arch without a value"), std::string::npos) << r.unread[1];
  // No architecture flag: nothing found, nothing unread (the caller says nvcc's default applies).
  r = archs_from_nvcc_flags({"nvcc", "-O2", "-c", "x.cu"});
  EXPECT_FALSE(r.found());
  EXPECT_TRUE(r.unread.empty());
  // Not an architecture flag though it starts like one.
  EXPECT_FALSE(archs_from_nvcc_flags({"-architecture-notes", "-codegen"}).found());
}

TEST(ArchFlags, ArchitectureFlagsAreLeftOutOfACompilesFlags) {
  EXPECT_EQ(without_arch_flags({"-O3", "-gencode", "arch=compute_80,code=sm_80", "-arch=sm_90", "-Iinc",
                                "--generate-code=arch=compute_86,code=sm_86", "-arch", "sm_75", "-code", "sm_75",
                                "--gpu-architecture=sm_90a", "--gpu-code=sm_90a", "-DX=1", "--offload-arch=sm_80"}),
            (ArchNames{"-O3", "-Iinc", "-DX=1"}));
}

TEST(ArchFlags, CMakeValuesInEveryForm) {
  auto r = archs_from_cmake_value("80;86-real;90a-virtual");
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_80", "sm_86", "sm_90a"}));
  EXPECT_TRUE(r.unread.empty());
  r = archs_from_cmake_value(" 90 ; native ;all-major");
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_90"}));
  EXPECT_TRUE(r.native);
  EXPECT_EQ(r.keywords, (ArchNames{"all-major"}));
  r = archs_from_cmake_value("OFF");
  EXPECT_FALSE(r.found());
  ASSERT_EQ(r.unread.size(), 1u);
  EXPECT_NE(r.unread[0].find("no architecture flag"), std::string::npos);
  r = archs_from_cmake_value("80;sm_xx");
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_80"}));
  ASSERT_EQ(r.unread.size(), 1u);
  EXPECT_NE(r.unread[0].find("'sm_xx'"), std::string::npos);
}

TEST(ArchFlags, CMakeCacheEntry) {
  auto r = archs_from_cmake_cache("# This is the CMakeCache file.\nCMAKE_BUILD_TYPE:STRING=Release\n"
                                  "//CUDA architectures\nCMAKE_CUDA_ARCHITECTURES:STRING=80;86;90\n"
                                  "CMAKE_CUDA_COMPILER:FILEPATH=/usr/local/cuda/bin/nvcc\n");
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_80", "sm_86", "sm_90"}));
  EXPECT_EQ(r.evidence, (ArchNames{"CMAKE_CUDA_ARCHITECTURES=80;86;90"}));
  EXPECT_FALSE(archs_from_cmake_cache("CMAKE_BUILD_TYPE:STRING=Release\n").found());
}

TEST(ArchFlags, CMakeListsSettingsAndProperties) {
  const std::string text = R"(cmake_minimum_required(VERSION 3.24)
# set(CMAKE_CUDA_ARCHITECTURES 50)   a comment is not a setting
set(CMAKE_CUDA_ARCHITECTURES "80;86" CACHE STRING "archs")
project(app LANGUAGES CXX CUDA)
add_library(ops ops.cu)
set_target_properties(ops PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CUDA_ARCHITECTURES "90a")
SET_PROPERTY(TARGET app APPEND PROPERTY CUDA_ARCHITECTURES 75 89)
set_target_properties(tool PROPERTIES CUDA_ARCHITECTURES ${TOOL_ARCHS})
)";
  auto r = archs_from_cmakelists(text, "CMakeLists.txt");
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"}));
  ASSERT_EQ(r.evidence.size(), 3u);
  EXPECT_EQ(r.evidence[0], "CMakeLists.txt:3: set(CMAKE_CUDA_ARCHITECTURES) 80;86");
  EXPECT_EQ(r.evidence[1], "CMakeLists.txt:6: CUDA_ARCHITECTURES 90a");
  EXPECT_EQ(r.evidence[2], "CMakeLists.txt:9: CUDA_ARCHITECTURES 75;89");
  ASSERT_EQ(r.unread.size(), 1u);
  EXPECT_NE(r.unread[0].find("CMakeLists.txt:10:"), std::string::npos) << r.unread[0];
  EXPECT_NE(r.unread[0].find("${TOOL_ARCHS}"), std::string::npos) << r.unread[0];
  EXPECT_NE(r.unread[0].find("does not evaluate"), std::string::npos) << r.unread[0];

  // A bare list; a variable of another name is not a setting; all-major is a keyword.
  r = archs_from_cmakelists("set(MY_ARCHS 70)\nset(CMAKE_CUDA_ARCHITECTURES 80 90 PARENT_SCOPE)\n", "sub/x.cmake");
  EXPECT_EQ(sm_names_of(r), (ArchNames{"sm_80", "sm_90"}));
  r = archs_from_cmakelists("#[[ set(CMAKE_CUDA_ARCHITECTURES 50)\n]]\nset(CMAKE_CUDA_ARCHITECTURES all-major)\n", "f");
  EXPECT_TRUE(r.archs.empty());
  EXPECT_EQ(r.keywords, (ArchNames{"all-major"}));
  EXPECT_EQ(r.evidence, (ArchNames{"f:3: set(CMAKE_CUDA_ARCHITECTURES) all-major"}));
}

TEST(ArchFlags, AllAndAllMajorExpandWithTheToolkitsList) {
  // nvcc 13's --list-gpu-arch, in its own order.
  std::vector<GpuArch> toolkit;
  for (int cc : {75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121}) toolkit.push_back(GpuArch{cc, 0});
  auto sm = [](const std::vector<GpuArch>& v) {
    ArchNames out;
    for (const auto& a : v) out.push_back(a.sm());
    return out;
  };
  // nvcc -arch=all-major: each major one and the oldest (nvcc --dryrun builds exactly these).
  EXPECT_EQ(sm(expand_arch_keyword("all-major", toolkit)),
            (ArchNames{"sm_75", "sm_80", "sm_90", "sm_100", "sm_110", "sm_120"}));
  EXPECT_EQ(expand_arch_keyword("all", toolkit).size(), toolkit.size());
  EXPECT_TRUE(expand_arch_keyword("all", {}).empty());
}

}  // namespace
}  // namespace kb::profiler
