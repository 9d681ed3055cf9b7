#include "cuda_source/tokens/source_scanner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using kb::cuda_source::scan_source;
using kb::cuda_source::ScanResult;
using kb::cuda_source::split_params;

namespace {

ScanResult scan(const std::string& text) {
  ScanResult r;
  scan_source(text, "t.cu", r);
  return r;
}

const kb::cuda_source::ScannedKernel* kernel(const ScanResult& r, const std::string& name) {
  for (const auto& k : r.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

const kb::cuda_source::ScannedLauncher* launcher(const ScanResult& r, const std::string& name) {
  for (const auto& l : r.launchers)
    if (l.name == name) return &l;
  return nullptr;
}

}  // namespace

TEST(SourceScanner, PlainKernelAndLauncher) {
  auto r = scan(R"(#include <cuda_runtime.h>
__global__ void saxpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void launch_saxpy(const float* x, float* y, float a, int n) {
  saxpy<<<(n + 31) / 32, 32>>>(x, y, a, n);
}
)");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "saxpy");
  EXPECT_EQ(r.kernels[0].line, 2);
  ASSERT_EQ(r.kernels[0].params.size(), 4u);
  EXPECT_EQ(r.kernels[0].params[0].type, "const float*");
  EXPECT_EQ(r.kernels[0].params[0].name, "x");
  EXPECT_EQ(r.kernels[0].params[3].type, "int");
  ASSERT_EQ(r.launchers.size(), 1u);
  EXPECT_EQ(r.launchers[0].name, "launch_saxpy");
  EXPECT_EQ(r.launchers[0].line, 6);
  EXPECT_EQ(r.launchers[0].return_type, "void");
  ASSERT_EQ(r.launchers[0].launches.size(), 1u);
  EXPECT_EQ(r.launchers[0].launches[0].kernel, "saxpy");
  EXPECT_EQ(r.launchers[0].launches[0].launch_config, "(n+31)/32, 32");
  EXPECT_TRUE(r.skipped.empty());
}

TEST(SourceScanner, TemplatesMultiLineSignaturesAndLaunchBounds) {
  auto r = scan(R"(
template <typename T, int BLOCK = 256>
__global__ void __launch_bounds__(BLOCK)
reduce(
    const T* __restrict__ in,   // input
    T* out,
    int n)
{
}

template <typename T>
static void run_reduce(const T* in, T* out, int n, cudaStream_t stream) {
  constexpr int kBlock = 256;
  reduce<T, kBlock>
      <<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(in, out, n);
}
)");
  const auto* k = kernel(r, "reduce");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->line, 4);
  EXPECT_EQ(k->template_params, "typename T, int BLOCK=256");
  ASSERT_EQ(k->params.size(), 3u);
  EXPECT_EQ(k->params[0].type, "const T* __restrict__");
  EXPECT_EQ(k->params[0].name, "in");
  const auto* l = launcher(r, "run_reduce");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->return_type, "void");
  ASSERT_EQ(l->params.size(), 4u);
  EXPECT_EQ(l->params[3].type, "cudaStream_t");
  ASSERT_EQ(l->launches.size(), 1u);
  EXPECT_EQ(l->launches[0].kernel, "reduce");
  EXPECT_EQ(l->launches[0].line, 15);
}

TEST(SourceScanner, CommentsAndStringsAreNotCode) {
  auto r = scan(R"(
// __global__ void commented_out(int x) {}
/* __global__ void also_commented(int x) {}
   fake<<<1, 1>>>(); */
const char* s = "__global__ void in_a_string() { k<<<1,1>>>(); }";
__global__ void real(int* p) { *p = '"'; }
void go(int* p) { real<<<1, 1>>>(p); /* trailing } comment */ }
)");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "real");
  EXPECT_EQ(r.kernels[0].line, 6);
  ASSERT_EQ(r.launchers.size(), 1u);
  EXPECT_EQ(r.launchers[0].name, "go");
  EXPECT_EQ(r.launchers[0].launches.size(), 1u);
}

TEST(SourceScanner, MacrosAreReportedNotExpanded) {
  auto r = scan(R"(
#define DEFINE_SCALE(NAME, F) \
  __global__ void NAME(float* x, int n) { \
    x[threadIdx.x] *= F; }
DEFINE_SCALE(scale2, 2.0f)
#define LAUNCH(k, n, ...) k<<<(n + 255) / 256, 256>>>(__VA_ARGS__)
#ifndef BLOCK
#define BLOCK 128
#endif
__global__ void visible(float* x) {}
void go(float* x, int n) {
  LAUNCH(visible, n, x);
  visible<<<n / BLOCK, BLOCK>>>(x);
}
)");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "visible");
  EXPECT_EQ(r.kernels[0].line, 10);
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_EQ(r.skipped[0].line, 2);
  EXPECT_NE(r.skipped[0].message.find("macro defines a kernel"), std::string::npos);
  EXPECT_EQ(r.skipped[1].line, 6);
  const auto* l = launcher(r, "go");
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->launches.size(), 1u);  // the one inside the LAUNCH macro is not visible
  EXPECT_EQ(l->launches[0].launch_config, "n/BLOCK, BLOCK");
}

TEST(SourceScanner, NamespacesClassesAndDeclarations) {
  auto r = scan(R"(
namespace ops { namespace detail {
__global__ void k1(float* x);
__global__ void k1(float* x) { x[0] = 1; }
}  // namespace detail

struct Runner {
  void operator()(float* x) const;
  static void launch(float* x) { detail::k1<<<1, 32>>>(x); }
};

void Runner::operator()(float* x) const { detail::k1<<<1, 32>>>(x); }

extern "C" void c_launch(float* x) {
  if (x) { for (int i = 0; i < 2; ++i) { detail::k1<<<1, 32>>>(x); } }
}
}  // namespace ops
)");
  ASSERT_EQ(r.kernels.size(), 2u);  // the declaration and the definition
  EXPECT_FALSE(r.kernels[0].is_definition);
  EXPECT_TRUE(r.kernels[1].is_definition);
  const auto* member = launcher(r, "ops::Runner::launch");
  ASSERT_NE(member, nullptr);
  EXPECT_EQ(member->launches[0].kernel, "k1");
  const auto* c = launcher(r, "ops::c_launch");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->launches.size(), 1u);
  EXPECT_EQ(r.launchers.size(), 3u);
}

TEST(SourceScanner, DynamicParallelismAndLaunchApis) {
  auto r = scan(R"(
__global__ void child(int* p) {}
__global__ void parent(int* p) { child<<<1, 1>>>(p); }
void host(int* p) {
  void* args[] = {&p};
  cudaLaunchKernel((void*)child, dim3(1), dim3(1), args, 0, 0);
}
)");
  const auto* p = launcher(r, "parent");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->is_kernel);
  // The runtime API launch is traced to its kernel (tests/cuda_source/indirect_launch_test.cpp).
  EXPECT_TRUE(r.skipped.empty());
  const auto* h = launcher(r, "host");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->launches.size(), 1u);
  EXPECT_EQ(h->launches[0].kernel, "child");
  EXPECT_EQ(h->launches[0].api, "cudaLaunchKernel");
}

TEST(SourceScanner, BrokenInputDoesNotCrash) {
  for (const char* text : {"__global__", "__global__ void", "__global__ void k(", "void f() { k<<<", "/* open", "}}}}",
                           "template <", "k<<<1,1>>>(x);", "\"unterminated", "#define X \\"}) {
    ScanResult r;
    EXPECT_NO_THROW(scan_source(text, "broken.cu", r)) << text;
  }
  auto r = scan("/* never closed\n__global__ void k() {}");
  EXPECT_TRUE(r.kernels.empty());
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].message.find("unterminated"), std::string::npos);
  r = scan("__global__ void (");
  ASSERT_EQ(r.skipped.size(), 1u);
}

TEST(SourceScanner, SplitParams) {
  auto p = split_params("const float* x, float y[4], int n = 3, float2&, void (*cb)(int)");
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].type, "const float*");
  EXPECT_EQ(p[1].name, "y");
  EXPECT_EQ(p[2].name, "n");
  EXPECT_EQ(p[3].name, "");
  EXPECT_TRUE(split_params("void").empty());
  EXPECT_TRUE(split_params("").empty());
}

TEST(SourceScanner, ScanTreeFindsTheExamplesAndSkipsExcludedDirectories) {
  auto r = kb::cuda_source::scan_tree(std::filesystem::path(KB_SOURCE_DIR) / "examples", {"build"});
  std::vector<std::string> launchers;
  for (const auto& l : r.launchers) launchers.push_back(l.name);
  std::sort(launchers.begin(), launchers.end());
  // The programs and tests that call the launchers launch through them too.
  EXPECT_EQ(launchers,
            (std::vector<std::string>{"add_bias_forward", "bias_gelu_forward", "embedding_forward", "launch_layernorm",
                                      "launch_row_sum", "launch_saxpy", "launch_transpose", "main", "main", "main",
                                      "softmax_forward", "softmax_forward", "test_layernorm", "test_row_sum",
                                      "test_saxpy", "test_transpose"}));
  for (const auto& l : r.launchers) {
    if (l.name.rfind("test_", 0) != 0) continue;
    for (const auto& launch : l.launches) EXPECT_FALSE(launch.via.empty()) << l.name;
  }
  for (const auto& f : r.files) EXPECT_EQ(f.find("build/"), std::string::npos) << f;

  auto dir = std::filesystem::temp_directory_path() / "kb_scan_tree";
  std::filesystem::create_directories(dir / "third_party");
  std::ofstream(dir / "a.cu") << "__global__ void a() {}\n";
  std::ofstream(dir / "third_party" / "b.cu") << "__global__ void b() {}\n";
  std::ofstream(dir / "c.cpp") << "__global__ void c() {}\n";
  auto t = kb::cuda_source::scan_tree(dir, {"third_party"});
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].name, "a");
  EXPECT_EQ(t.kernels[0].file, "a.cu");
  std::filesystem::remove_all(dir);
}
