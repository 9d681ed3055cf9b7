// The scanner on what production launchers look like: default arguments, overloads, template
// launches, launches in lambdas, and launches hidden in macros (which must not throw it off).
#include <gtest/gtest.h>

#include "cuda_source/tokens/source_scanner.h"

using kb::cuda_source::scan_source;
using kb::cuda_source::ScannedLauncher;
using kb::cuda_source::ScanResult;

namespace {

ScanResult scan(const std::string& text) {
  ScanResult r;
  scan_source(text, "t.cu", r);
  return r;
}

std::vector<const ScannedLauncher*> launchers_named(const ScanResult& r, const std::string& name) {
  std::vector<const ScannedLauncher*> out;
  for (const auto& l : r.launchers)
    if (l.name == name) out.push_back(&l);
  return out;
}

}  // namespace

TEST(LauncherShapes, DefaultArgumentsAreKeptAndTheLauncherIsFound) {
  auto r = scan(R"(__global__ void k(float* x, int n) {}
void launch(float* x, int n, cudaStream_t stream = 0, int threads = 256) {
  k<<<(n + threads - 1) / threads, threads, 0, stream>>>(x, n);
}
)");
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front().message;
  auto found = launchers_named(r, "launch");
  ASSERT_EQ(found.size(), 1u);
  const auto& p = found[0]->params;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[1].default_value, "");
  EXPECT_EQ(p[2].type, "cudaStream_t");
  EXPECT_EQ(p[2].default_value, "0");
  EXPECT_EQ(p[3].name, "threads");
  EXPECT_EQ(p[3].default_value, "256");
  EXPECT_EQ(p[3].line, 2);
  ASSERT_EQ(found[0]->launches.size(), 1u);
  const auto& launch = found[0]->launches[0];
  EXPECT_EQ(launch.config_parts, (std::vector<std::string>{"(n+threads-1)/threads", "threads", "0", "stream"}));
  EXPECT_EQ(launch.arguments, (std::vector<std::string>{"x", "n"}));
}

TEST(LauncherShapes, TemplateDefaultsAndInitializersAreTold) {
  auto r = scan(R"(__global__ void k(float* x) {}
template <int BLOCK = 128>
void launch_t(float* x, dim3 grid = dim3(1, 1)) { k<<<grid, BLOCK>>>(x); }
int table[] = {1, 2, 3};
auto f = [](float* x) { return x; };
)");
  EXPECT_EQ(launchers_named(r, "launch_t").size(), 1u);
  EXPECT_TRUE(r.skipped.empty());
}

TEST(LauncherShapes, OverloadsAreSeparateLaunchers) {
  auto r = scan(R"(__global__ void kf(const float* x, float* y, int n) {}
__global__ void ki(const int* x, int* y, int n) {}
namespace ops {
void scale(const float* x, float* y, int n) { kf<<<n, 1>>>(x, y, n); }
void scale(const int* x, int* y, int n, int extra = 0) { ki<<<n, 1>>>(x, y, n); }
}
)");
  auto found = launchers_named(r, "ops::scale");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0]->params[0].type, "const float*");
  EXPECT_EQ(found[1]->params[0].type, "const int*");
  EXPECT_EQ(found[1]->params.size(), 4u);
  EXPECT_EQ(found[0]->launches[0].kernel, "kf");
  EXPECT_EQ(found[1]->launches[0].kernel, "ki");
}

TEST(LauncherShapes, TemplateLaunchesLambdasAndMacrosDoNotThrowItOff) {
  auto r = scan(R"(#define LAUNCH(k, n, ...) k<<<(n + 255) / 256, 256>>>(__VA_ARGS__)
template <typename T, int TILE> __global__ void tk(const T* in, T* out, int n) {}
__global__ void rk(float* x, int count) {}
void via_macro(float* x, int n) { LAUNCH(rk, n, x, n); }
void templated(const float* in, float* out, int n) {
  tk<float, 32><<<dim3((n + 31) / 32), dim3(32, 8)>>>(in, out, n);
}
void in_lambda(float* x, int n) {
  auto go = [&](int count) { rk<<<(count + 255) / 256, 256>>>(x, count); };
  go(n);
}
void after(float* x, int n) { rk<<<1, 1>>>(x, n); }
)");
  ASSERT_EQ(launchers_named(r, "templated").size(), 1u);
  const auto& t = launchers_named(r, "templated")[0]->launches[0];
  EXPECT_EQ(t.kernel, "tk");
  EXPECT_EQ(t.config_parts.size(), 2u);
  EXPECT_EQ(t.arguments, (std::vector<std::string>{"in", "out", "n"}));
  ASSERT_EQ(launchers_named(r, "in_lambda").size(), 1u);
  EXPECT_EQ(launchers_named(r, "in_lambda")[0]->launches[0].arguments, (std::vector<std::string>{"x", "count"}));
  EXPECT_EQ(launchers_named(r, "after").size(), 1u);
  EXPECT_TRUE(launchers_named(r, "via_macro").empty());  // the launch is in the macro's text
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].message.find("macro defines a kernel or a launch"), std::string::npos);
  // Every function is listed for look-ups, launching or not.
  bool has_via_macro = false;
  for (const auto& f : r.functions) has_via_macro |= f.name == "via_macro";
  EXPECT_TRUE(has_via_macro);
}
