// GPU architectures as nvcc names them: every spelling kernelbot reads ([project] target_archs,
// cuda_arch, nvcc's and CMake's words), the names it writes back, and the -gencode of a build.
#include "core/gpu_arch.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(GpuArch, ReadsEverySpellingOfAnArchitecture) {
  for (const char* text : {"sm_80", "compute_80", "80", "8.0"}) {
    auto a = parse_gpu_arch(text);
    ASSERT_TRUE(a) << text;
    EXPECT_EQ(a->cc, 80) << text;
    EXPECT_EQ(a->suffix, 0) << text;
  }
  EXPECT_EQ(parse_gpu_arch("sm_86")->cc, 86);
  EXPECT_EQ(parse_gpu_arch("10.0")->cc, 100);
  EXPECT_EQ(parse_gpu_arch("sm_121")->cc, 121);
  auto a = parse_gpu_arch("sm_90a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->cc, 90);
  EXPECT_EQ(a->suffix, 'a');
  EXPECT_EQ(parse_gpu_arch("compute_100f")->suffix, 'f');
  EXPECT_EQ(parse_gpu_arch("90a")->suffix, 'a');
}

TEST(GpuArch, RefusesWhatIsNotAnArchitecture) {
  for (const char* text : {"", "sm_", "sm_8", "8", "sm_9000", "native", "all", "all-major", "lto_80", "sm_90x",
                           "compute_90ab", "8.", ".8", "8.66", "sm_80 ", "05", "sm_80,sm_90"})
    EXPECT_FALSE(parse_gpu_arch(text)) << "'" << text << "'";
}

TEST(GpuArch, WritesTheRealAndVirtualNames) {
  const GpuArch a{90, 'a'};
  EXPECT_EQ(a.sm(), "sm_90a");
  EXPECT_EQ(a.compute(), "compute_90a");
  EXPECT_EQ(a.major(), 9);
  EXPECT_EQ(a.minor(), 0);
  EXPECT_EQ((GpuArch{121, 0}).sm(), "sm_121");
  EXPECT_EQ((GpuArch{121, 0}).major(), 12);
  EXPECT_LT((GpuArch{86, 0}), (GpuArch{90, 0}));
  EXPECT_LT((GpuArch{90, 0}), (GpuArch{100, 0}));  // 10.0 is newer than 9.0
}

TEST(GpuArch, ABuildIsOneGencodeOfPtxOrSass) {
  EXPECT_EQ((ArchBuild{GpuArch{80, 0}, true}.nvcc_flags()),
            (std::vector<std::string>{"-gencode", "arch=compute_80,code=compute_80"}));
  EXPECT_EQ((ArchBuild{GpuArch{100, 0}, false}.nvcc_flags()),
            (std::vector<std::string>{"-gencode", "arch=compute_100,code=sm_100"}));
  EXPECT_EQ((ArchBuild{GpuArch{90, 'a'}, false}.nvcc_flags()),
            (std::vector<std::string>{"-gencode", "arch=compute_90a,code=sm_90a"}));
}

}  // namespace
}  // namespace kb
