// The launch site of a kernel target's __global__ function and the knobs a PR may edit there.
#include "cuda_source/knobs/kernel_launch_sites.h"

#include <gtest/gtest.h>

namespace kb::cuda_source {
namespace {

const char* kExtension = R"(struct Tensor { float* data; long numel; };
__global__ void gelu_kernel(float* out, const float* in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void scale_kernel(float* x, long n) {}
void gelu(Tensor& out, const Tensor& in) {
  gelu_kernel<<<(in.numel + 31) / 32, 32>>>(out.data, in.data, in.numel);
  scale_kernel<<<(in.numel + 255) / 256, 256>>>(out.data, in.numel);
}
)";

TEST(KernelLaunchSites, TheKernelsOwnLiteralBlockIsItsKnob) {
  auto knobs = find_kernel_knobs(kExtension, "gelu_kernel", "ext.cu");
  ASSERT_TRUE(knobs.site);
  EXPECT_EQ(knobs.site->function, "gelu");
  EXPECT_EQ(knobs.site->where(), "ext.cu:8");
  ASSERT_EQ(knobs.literals.size(), 1u) << "scale_kernel's launch is not gelu_kernel's knob";
  EXPECT_EQ(knobs.literals[0].value, 32);
  EXPECT_EQ(knobs.literals[0].kernel, "gelu_kernel");
  ASSERT_TRUE(knobs.block);
  EXPECT_EQ(*knobs.block, std::vector<int64_t>{32});
  // The edit moves the grid with the block: the text a PR would hold.
  std::string edited = apply_text_edits(kExtension, knobs.literals[0].edits(128));
  EXPECT_NE(edited.find("gelu_kernel<<<(in.numel + 127) / 128, 128>>>"), std::string::npos) << edited;
  EXPECT_EQ(*find_kernel_knobs(edited, "gelu_kernel", "ext.cu").block, std::vector<int64_t>{128});
}

TEST(KernelLaunchSites, ConstantsAndDim3BlocksFromMain) {
  const char* text = R"(__global__ void tile(float* a, int w, int h) {}
__global__ void other(float* a) {}
int main() {
  const int threads = 64;
  dim3 block(16, 8);
  float* a = nullptr;
  int w = 100, h = 100;
  tile<<<dim3((w + 15) / 16, (h + 7) / 8), block>>>(a, w, h);
  other<<<1, threads>>>(a);
  return 0;
}
)";
  auto knobs = find_kernel_knobs(text, "tile", "s.cu");
  ASSERT_TRUE(knobs.site);
  EXPECT_EQ(knobs.site->function, "main");
  ASSERT_TRUE(knobs.block);
  EXPECT_EQ(*knobs.block, (std::vector<int64_t>{16, 8}));
  for (const auto& k : knobs.literals) EXPECT_NE(k.name, "threads") << "the constant shapes another kernel's launch";
  auto other = find_kernel_knobs(text, "other", "s.cu");
  ASSERT_TRUE(other.block);
  EXPECT_EQ(*other.block, std::vector<int64_t>{64});
}

TEST(KernelLaunchSites, TwoSitesOrABlockParameterGiveNoBlock) {
  const char* two = R"(__global__ void k(float* a) {}
void f(float* a) { k<<<1, 32>>>(a); }
void g(float* a) { k<<<1, 64>>>(a); }
)";
  auto knobs = find_kernel_knobs(two, "k", "t.cu");
  EXPECT_FALSE(knobs.site);
  EXPECT_FALSE(knobs.block);
  EXPECT_TRUE(knobs.literals.empty());
  ASSERT_FALSE(knobs.not_offered.empty());
  EXPECT_NE(knobs.not_offered[0].find("2 places"), std::string::npos);
  const char* param = R"(__global__ void k(float* a) {}
void f(float* a, int threads) { k<<<1, threads>>>(a); }
)";
  auto p = find_kernel_knobs(param, "k", "t.cu");
  ASSERT_TRUE(p.site);
  EXPECT_FALSE(p.block);
  EXPECT_TRUE(p.literals.empty());
}

}  // namespace
}  // namespace kb::cuda_source
