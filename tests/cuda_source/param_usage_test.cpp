// What init reads from a body about its parameters: integer parameters that bound a loop or an
// index (sizes), and pointer parameters a launcher uses as host memory.
#include "cuda_source/reading/param_usage.h"

#include <gtest/gtest.h>

namespace kb::cuda_source {
namespace {

std::vector<ScannedParam> params(const std::string& list) { return split_params(list); }

TEST(ParamUsage, IntegersComparedOrInASubscriptBoundTheData) {
  const std::string body = R"({
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    for (int k = 0; k < K; ++k) acc += a[i * lda + k];
    y[i] = acc * (flag << shift) * repeat;
  })";
  auto got = bounding_params(body, params("const float* a, float* y, int total, int K, int lda, int shift, "
                                          "int repeat, int flag, float scale"));
  EXPECT_EQ(got, (std::set<std::string>{"K", "lda", "total"}));
}

TEST(ParamUsage, ShiftsMembersAndFloatsAreNoBounds) {
  const std::string body =
      "{ if (s.n < 4) y[0] = x << n; if (alpha > 0.5f) y[1] = 0; if (mode > 0 && 1 <= level) y[2] = 1; }";
  EXPECT_TRUE(bounding_params(body, params("float* y, int x, int n, float alpha, int mode, int level")).empty())
      << "shifts, members, floats and comparisons with a literal bound nothing";
}

TEST(ParamUsage, HostCopiesAndHostDereferencesMarkHostPointers) {
  const std::string text = R"(void run(const float* h_in, float* h_out, float* d_buf, int* counts, float* dev, int n) {
  cudaMemcpy(d_buf, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
  kernel<<<1, 256>>>(d_buf, &dev[4], n);
  cudaMemcpyAsync(h_out, d_buf, n * sizeof(float),
                  cudaMemcpyDeviceToHost, 0);
  int total = counts[0] + *counts;
}
)";
  auto got = host_used_pointers(text, 0, text.size(),
                                params("const float* h_in, float* h_out, float* d_buf, "
                                       "int* counts, float* dev, int n"));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got["h_in"], "the source of cudaMemcpy(..., cudaMemcpyHostToDevice) at line 2");
  EXPECT_EQ(got["h_out"], "the destination of cudaMemcpyAsync(..., cudaMemcpyDeviceToHost) at line 4");
  EXPECT_EQ(got["counts"], "subscripted on the host (counts[...]) at line 6");
  EXPECT_FALSE(got.count("d_buf")) << "the device side of a copy";
  EXPECT_FALSE(got.count("dev")) << "&dev[4] is address arithmetic";
}

TEST(ParamUsage, ThePointerDeclarationsOfTheSignatureAreNoDereference) {
  const std::string text = "void launch(float *x, float * y, int n) { k<<<1, 1>>>(x, y, n); }";
  EXPECT_TRUE(host_used_pointers(text, 0, text.size(), params("float *x, float * y, int n")).empty());
  const std::string deref = "void launch(float *x, int n) { float v = 2 * *x; }";
  EXPECT_EQ(host_used_pointers(deref, 0, deref.size(), params("float *x, int n")).count("x"), 1u);
}

}  // namespace
}  // namespace kb::cuda_source
