// The definition splice where files are written compactly or oddly: namespaces opened on one
// line, an extern "C" launcher, a whole file as the winner (the PR splicer's case), static helpers
// left unused, a conditional block the reply adds, a prototype of what the file defines.
#include <gtest/gtest.h>

#include "cuda_source/splicing/definition_splice.h"
#include "tests/cuda_source/host_syntax_check.h"

using kb::cuda_source::DefinitionSplice;
using kb::cuda_source::splice_definitions;
using kb::testing::host_syntax_errors;

TEST(NamespaceSpliceEdges, NamespacesOpenedOnOneLineAreNotSplitByAnInsertion) {
  const std::string file = R"(namespace ops { namespace {
__global__ void k(float* y) { y[threadIdx.x] = 1; }
}  // namespace
void launch_k(float* y) { k<<<1, 32>>>(y); }
}  // namespace ops
)";
  const std::string reply = R"(namespace ops {
constexpr float kOne = 1.0f;
namespace {
constexpr int kLanes = 32;
__global__ void k(float* y) { y[threadIdx.x % kLanes] = kOne; }
}  // namespace
void launch_k(float* y) { k<<<1, kLanes>>>(y); }
}  // namespace ops
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "ops::launch_k", reply);
  EXPECT_EQ(splice.text, R"(namespace ops { 
constexpr float kOne = 1.0f;

namespace {
constexpr int kLanes = 32;

__global__ void k(float* y) { y[threadIdx.x % kLanes] = kOne; }
}  // namespace
void launch_k(float* y) { k<<<1, kLanes>>>(y); }
}  // namespace ops
)");
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}

TEST(NamespaceSpliceEdges, AnExternCLauncherKeepsItsLinkageAndItsHelpersGoBeforeTheirFirstUse) {
  const std::string file = R"(__global__ void k(float* y) { y[threadIdx.x] = 1; }

extern "C" {
void launch_k(float* y) { k<<<1, 32>>>(y); }
}
)";
  const std::string reply = R"(namespace {
constexpr int kBlock = 64;
}
__global__ void k(float* y) { y[threadIdx.x] = 2; }
extern "C" {
int block_size() { return kBlock; }
void launch_k(float* y) { k<<<1, kBlock>>>(y); }
}
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "launch_k", reply);
  // The kernel does not name kBlock; the extern "C" block, where it is first named, is closed
  // for it and block_size stays inside.
  EXPECT_EQ(splice.text, R"(__global__ void k(float* y) { y[threadIdx.x] = 2; }

namespace {
constexpr int kBlock = 64;
}  // namespace

extern "C" {
int block_size() { return kBlock; }

void launch_k(float* y) { k<<<1, kBlock>>>(y); }
}
)");
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}

TEST(NamespaceSpliceEdges, AWholeFileWinnerChangesAConstantInsideANamespace) {
  // The PR splicer's case: the winner is the whole file, its change a constant in a namespace
  // (the splicer used to skip the whole namespace, as the kernel is in it, and lose the change).
  const std::string file = R"(namespace ops {
namespace {
constexpr int kBlock = 128;
}  // namespace

__global__ void k(float* y) { y[blockIdx.x * kBlock + threadIdx.x] = 1; }

void launch_k(float* y, int n) { k<<<n / kBlock, kBlock>>>(y); }
}  // namespace ops
)";
  std::string winner = file;
  winner.replace(winner.find("kBlock = 128"), 12, "kBlock = 256");
  winner.replace(winner.find("= 1;"), 4, "= 2;");
  const DefinitionSplice splice = splice_definitions("k.cu", file, "ops::launch_k", winner);
  EXPECT_EQ(splice.text, winner);
  EXPECT_EQ(splice.edits, std::vector<std::string>{"launch_k, k, kBlock replaced by the winner's definitions"});
}

TEST(NamespaceSpliceEdges, AStaticHelperOnlyTheOldKernelUsedGoesOneOthersUseStays) {
  const std::string file = R"(static __device__ float old_scale(float v) { return v * 2; }
static __device__ float shared_scale(float v) { return v * 3; }

__global__ void k(float* y) { y[threadIdx.x] = old_scale(shared_scale(y[threadIdx.x])); }

__global__ void other(float* y) { y[threadIdx.x] = shared_scale(1); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
void launch_other(float* y) { other<<<1, 32>>>(y); }
)";
  const std::string reply = R"(__global__ void k(float* y) { y[threadIdx.x] *= 6; }
void launch_k(float* y) { k<<<1, 32>>>(y); }
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "launch_k", reply);
  EXPECT_EQ(splice.text, R"(static __device__ float shared_scale(float v) { return v * 3; }

__global__ void k(float* y) { y[threadIdx.x] *= 6; }

__global__ void other(float* y) { y[threadIdx.x] = shared_scale(1); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
void launch_other(float* y) { other<<<1, 32>>>(y); }
)");
  EXPECT_EQ(splice.edits.back(), "old_scale removed (no longer used)");
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}

TEST(NamespaceSpliceEdges, AConditionalBlockTheReplyAddsIsCarriedWholeAndAPrototypeOfTheFilesIsNot) {
  const std::string file = R"(__device__ float lerp1(float a, float b, float t);

__global__ void k(float* y) { y[threadIdx.x] = lerp1(0, 1, 0.5f); }

void launch_k(float* y) { k<<<1, 32>>>(y); }

__device__ float lerp1(float a, float b, float t) { return a + (b - a) * t; }
)";
  const std::string reply = R"(__device__ float lerp1(float a, float b, float t);

#if defined(USE_FAST_PATH)
constexpr int kStep = 2;
#else
constexpr int kStep = 1;
#endif

__global__ void k(float* y) { y[threadIdx.x * kStep] = lerp1(0, 1, 0.5f); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "launch_k", reply);
  EXPECT_EQ(splice.text, R"(__device__ float lerp1(float a, float b, float t);

#if defined(USE_FAST_PATH)
constexpr int kStep = 2;
#else
constexpr int kStep = 1;
#endif

__global__ void k(float* y) { y[threadIdx.x * kStep] = lerp1(0, 1, 0.5f); }

void launch_k(float* y) { k<<<1, 32>>>(y); }

__device__ float lerp1(float a, float b, float t) { return a + (b - a) * t; }
)");
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}

TEST(NamespaceSpliceEdges, AReplyThatLeftOutTheFilesAnonymousNamespaceStillRedefinesWhatIsInIt) {
  // sq at file scope beside the file's anonymous sq would make every call ambiguous.
  const std::string file = R"(namespace {
__device__ float sq(float v) { return v * v; }
}  // namespace

__global__ void k(float* y) { y[threadIdx.x] = sq(y[threadIdx.x]); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
)";
  const std::string reply = R"(__device__ float sq(float v) { return v * v + 0.0f; }

__global__ void k(float* y) { y[threadIdx.x] = sq(y[threadIdx.x]) * 2; }

void launch_k(float* y) { k<<<1, 32>>>(y); }
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "launch_k", reply);
  EXPECT_EQ(splice.text, R"(namespace {
__device__ float sq(float v) { return v * v + 0.0f; }
}  // namespace

__global__ void k(float* y) { y[threadIdx.x] = sq(y[threadIdx.x]) * 2; }

void launch_k(float* y) { k<<<1, 32>>>(y); }
)");
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}
