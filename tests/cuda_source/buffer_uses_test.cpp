// How a function's body uses its pointer parameters: read, written or both, through aliases,
// pointer arithmetic, atomics and the same file's helpers; what cannot be followed is said.
#include "cuda_source/reading/buffer_uses.h"

#include <gtest/gtest.h>

namespace kb::cuda_source {
namespace {

// The uses in `text`'s first function (the whole text is scanned, so helpers are found by name).
std::map<std::string, BufferUses> uses_in(const std::string& text, const std::string& function) {
  static ScanResult scan;
  static std::string stored;
  scan = {};
  stored = text;
  scan_source(stored, "k.cu", scan);
  const auto text_of = [](const std::string&) -> const std::string& { return stored; };
  for (const auto& k : scan.kernels)
    if (k.name == function && k.is_definition)
      return buffer_uses(FunctionText{&stored, k.file, k.begin, k.end, k.params},
                         scanned_function_lookup(scan, text_of));
  ADD_FAILURE() << "no kernel " << function;
  return {};
}

TEST(BufferUses, GemmEpilogueReadsAndWritesC) {
  auto u = uses_in(R"(__global__ void gemm(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
)",
                   "gemm");
  EXPECT_TRUE(u["A"].read() && !u["A"].written()) << "a non-const pointer only read";
  EXPECT_TRUE(u["B"].read() && !u["B"].written());
  ASSERT_TRUE(u["C"].read() && u["C"].written());
  EXPECT_TRUE(u["C"].read_before_written) << "the right-hand side runs before the store";
  ASSERT_TRUE(u["C"].read_and_written);
  EXPECT_EQ(u["C"].read_and_written->where(), "line 6 `C[row * N + col] = alpha * acc + beta * C[row * N + col]`");
}

TEST(BufferUses, AliasesAdvancesAndAddressesLeadBackToTheParameter) {
  auto u = uses_in(R"(__global__ void k(float* A, float* C, float* D, float* E, int n, int K) {
  A += blockIdx.x * K;
  float* row = C + blockIdx.x * n;
  auto p = &D[threadIdx.x];
  const float4* v = reinterpret_cast<const float4*>(E);
  float s = A[threadIdx.x] + v[threadIdx.x].x;
  row[threadIdx.x] = s;
  *p = s;
}
)",
                   "k");
  EXPECT_TRUE(u["A"].read() && !u["A"].written());
  EXPECT_TRUE(!u["C"].read() && u["C"].written());
  EXPECT_EQ(u["C"].first_write->line, 7);
  EXPECT_TRUE(!u["D"].read() && u["D"].written());
  EXPECT_EQ(u["D"].first_write->line, 8);
  EXPECT_TRUE(u["E"].read() && !u["E"].written());
}

TEST(BufferUses, CompoundAssignmentsIncrementsAndAtomicsReadAndWrite) {
  auto u = uses_in(R"(__global__ void k(float* x, float* y, int* hist, float* out, float* z, const float* w, int i) {
  x[i] += 1.0f;
  y[i] = 2.0f * w[i] + y[i];
  hist[i]++;
  atomicAdd(&out[0], w[i]);
  z[i] = w[i];
  float t = z[i];
}
)",
                   "k");
  for (const char* name : {"x", "y", "hist", "out"}) {
    EXPECT_TRUE(u[name].read() && u[name].written()) << name;
    EXPECT_TRUE(u[name].read_before_written) << name;
  }
  EXPECT_TRUE(u["z"].read() && u["z"].written());
  EXPECT_FALSE(u["z"].read_before_written) << "written on line 6, read after on line 7";
  EXPECT_TRUE(u["w"].read() && !u["w"].written());
}

TEST(BufferUses, HelpersOfTheFileAreFollowedAndUnknownCallsAreSaid) {
  auto u = uses_in(R"(__device__ void store(float* dst, int i, float v) { dst[i] = v; }
__device__ float load_twice(const float* src, int i) { return src[i] + __ldg(&src[i + 1]); }
__device__ void relay(float* p, int i) { store(p, i, 1.0f); }
__global__ void k(float* in, float* out, float* far, float* deep, int i) {
  store(out, i, load_twice(in, i));
  external_fill(far, i);
  relay(deep, i);
}
)",
                   "k");
  EXPECT_TRUE(u["in"].read() && !u["in"].written());
  EXPECT_TRUE(!u["out"].read() && u["out"].written());
  EXPECT_EQ(u["out"].first_write->where(),
            "line 1 `__device__ void store(float* dst, int i, float v) { dst[i] = v; }`");
  EXPECT_TRUE(!u["deep"].read() && u["deep"].written()) << "two calls deep";
  EXPECT_FALSE(u["far"].read() || u["far"].written());
  ASSERT_TRUE(u["far"].unseen);
  EXPECT_EQ(*u["far"].unseen, "passed to external_fill() at line 6, which kernelbot cannot read");
}

TEST(BufferUses, CastsToWiderTypesAccessElements) {
  auto u = uses_in(R"(__global__ void k(float* x, float* y, float* z, float* w, int i) {
  float4 v = reinterpret_cast<const float4*>(x)[i];
  reinterpret_cast<float4*>(y)[i] = v;
  *(float4*)(z + 4 * i) = v;
  asm volatile("st.global.f32 [%0], %1;" :: "l"(w + i), "f"(v.x));
}
)",
                   "k");
  EXPECT_TRUE(u["x"].read() && !u["x"].written());
  EXPECT_TRUE(!u["y"].read() && u["y"].written());
  EXPECT_TRUE(!u["z"].read() && u["z"].written());
  ASSERT_TRUE(u["w"].unseen);
  EXPECT_EQ(*u["w"].unseen, "used in inline assembly at line 5");
}

TEST(BufferUses, AReferenceToAnElementIsThatElement) {
  auto u = uses_in(R"(__global__ void k(float* out, float* in, int i) {
  float& acc = out[i];
  const float& v = in[i];
  acc += v;
}
)",
                   "k");
  EXPECT_TRUE(u["out"].read() && u["out"].written());
  EXPECT_EQ(u["out"].read_and_written->line, 4);
  EXPECT_TRUE(u["in"].read() && !u["in"].written());
}

TEST(BufferUses, ComparisonsAndPointerCopiesAreNoAccess) {
  auto u = uses_in(R"(__global__ void k(float* x, float* y, int n) {
  if (x == nullptr || y + n == x) return;
  float* end = y + n;
  for (float* p = y; p < end; ++p) *p = 0.f;
}
)",
                   "k");
  EXPECT_FALSE(u["x"].read() || u["x"].written());
  EXPECT_TRUE(!u["y"].read() && u["y"].written()) << "*p = 0 through the loop's alias";
}

}  // namespace
}  // namespace kb::cuda_source
