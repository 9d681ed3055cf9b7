#include "cuda_source/reading/buffer_extents.h"

#include <gtest/gtest.h>

#include "cuda_source/tokens/source_scanner.h"

using kb::cuda_source::buffer_extents;
using kb::cuda_source::split_params;

namespace {

std::vector<std::string> extent(const std::string& params, const std::string& body, const std::string& buffer) {
  auto e = buffer_extents(body, split_params(params)).at(buffer);
  if (!e.known) return {"?"};
  return e.sizes;
}

using V = std::vector<std::string>;

}  // namespace

TEST(BufferExtents, AGuardedIndexGivesItsBound) {
  const char* params = "const float* x, float* y, float a, int n, int block";
  const char* body = "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }";
  EXPECT_EQ(extent(params, body, "y"), V{"n"});
  EXPECT_EQ(extent(params, body, "x"), V{"n"});
}

TEST(BufferExtents, TwoDimensionsMultiplyInParameterOrder) {
  const char* params = "const float* in, float* out, int rows, int cols";
  const char* body = R"({
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
})";
  EXPECT_EQ(extent(params, body, "out"), (V{"rows", "cols"}));
  EXPECT_EQ(extent(params, body, "in"), (V{"rows", "cols"}));
}

TEST(BufferExtents, EarlyReturnsLoopsAndDerivedIndices) {
  const char* params = "const float* in, float* out, int rows, int cols";
  const char* body = R"({
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long total = (long long)rows * cols;
  if (idx >= total) return;
  int row = (int)(idx / cols);
  for (int k = 0; k < cols; ++k) { }
  atomicAdd(&out[row], in[idx]);
})";
  EXPECT_EQ(extent(params, body, "in"), (V{"rows", "cols"}));
  EXPECT_EQ(extent(params, body, "out"), V{"rows"});  // idx / cols divides cols out
}

TEST(BufferExtents, AnIndexNothingBoundsLeavesItUnknown) {
  const char* params = "const float* table, const int* ids, float* out, int n, int dim";
  const char* body = R"({
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int d = 0; d < dim; ++d) out[i * dim + d] = table[ids[i] * dim + d];
})";
  EXPECT_EQ(extent(params, body, "out"), (V{"n", "dim"}));
  EXPECT_EQ(extent(params, body, "ids"), V{"n"});
  EXPECT_EQ(extent(params, body, "table"), V{"?"});  // the ids decide how many rows it has
  // Unguarded, or reached only through pointer arithmetic: no guess.
  EXPECT_EQ(extent("float* y, int n", "{ y[threadIdx.x] = 0; }", "y"), V{"?"});
  EXPECT_EQ(extent("float* y, int n", "{ float* p = y + 4; *p = 0; }", "y"), V{"?"});
}

TEST(BufferExtents, RowPointersAndPointerBumpsAddTheirOffsets) {
  const char* params = "const float* x, const float* gamma, float* y, int rows, int cols";
  const char* body = R"({
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = &y[row * cols];
  for (int c = 0; c < cols; ++c) yr[c] = xr[c] * gamma[c];
})";
  EXPECT_EQ(extent(params, body, "x"), (V{"rows", "cols"}));
  EXPECT_EQ(extent(params, body, "y"), (V{"rows", "cols"}));
  EXPECT_EQ(extent(params, body, "gamma"), V{"cols"});
  const char* bumped = R"({
  int row = blockIdx.x;
  if (row < rows) { x += row * cols; for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = x[c]; }
})";
  EXPECT_EQ(extent(params, bumped, "x"), (V{"rows", "cols"}));
  EXPECT_EQ(extent(params, bumped, "y"), V{"cols"});
}

TEST(BufferExtents, AModuloIndexIsBoundedByItsDivisor) {
  // A bias broadcast over rows: bias[i % C] never reaches C, whatever bounds i.
  const char* params = "float* out, const float* inp, const float* bias, int N, int C";
  const char* body = "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N * C) out[i] = inp[i] + bias[i % C]; }";
  EXPECT_EQ(extent(params, body, "bias"), V{"C"});
  EXPECT_EQ(extent(params, body, "out"), (V{"N", "C"}));
}

TEST(BufferExtents, APointerAdvancedByABoundedBlockIndexReachesEveryRow) {
  auto e = buffer_extents(R"({
    if (blockIdx.y >= M) return;
    A += blockIdx.y * K;
    for (int c = threadIdx.x; c < K; c += blockDim.x) y[blockIdx.y] += A[c];
  })",
                          split_params("const float* A, float* y, int M, int K"));
  EXPECT_EQ(e["A"].sizes, (std::vector<std::string>{"M", "K"}));
  EXPECT_EQ(e["y"].sizes, (std::vector<std::string>{"M"}));
}

TEST(BufferExtents, AnAdvanceByAnUnboundedBlockIndexIsNoExtent) {
  auto e = buffer_extents("{ A += blockIdx.y * K; for (int c = threadIdx.x; c < K; c += blockDim.x) y[c] = A[c]; }",
                          split_params("const float* A, float* y, int M, int K"));
  EXPECT_FALSE(e["A"].known) << "K alone would be a count too small for every row";
  EXPECT_EQ(e["y"].sizes, (std::vector<std::string>{"K"}));
}

TEST(BufferExtents, TwoDimensionalIndexUnderTwoBounds) {
  auto e = buffer_extents(R"({
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < K) out[row * K + col] = 2.0f * in[row * K + col];
  })",
                          split_params("const float* in, float* out, int M, int K"));
  EXPECT_EQ(e["in"].sizes, (std::vector<std::string>{"M", "K"}));
  EXPECT_EQ(e["out"].sizes, (std::vector<std::string>{"M", "K"}));
}
