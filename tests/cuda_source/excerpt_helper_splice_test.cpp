// An excerpt reply whose launcher launches through the file's launch helper, which the reply
// does not repeat: the splice reads the launch with the file's helper known, and the old kernel,
// which another file could launch, stays.
#include <gtest/gtest.h>

#include "cuda_source/splicing/definition_splice.h"
#include "cuda_source/tokens/source_scanner.h"

namespace {

using kb::cuda_source::splice_definitions;

const std::string kFile = R"(#include <cuda_runtime.h>

namespace ops {
namespace detail {
template <typename... KernelParams, typename... Args>
void launch_kernel(void (*kernel)(KernelParams...), dim3 grid, dim3 block, cudaStream_t stream, Args... args) {
  kernel<<<grid, block, 0, stream>>>(static_cast<KernelParams>(args)...);
}
}  // namespace detail

__global__ void scale_naive(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= 2.0f;
}

void launch_scale(float* y, int n, cudaStream_t stream) {
  detail::launch_kernel(scale_naive, dim3((n + 31) / 32), dim3(32), stream, y, n);
}
}  // namespace ops
)";

const std::string kReply = R"(namespace {
constexpr int kThreads = 256;
__global__ void __launch_bounds__(kThreads) scale_fast(float* __restrict__ y, int n) {
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) y[i] *= 2.0f;
}
}  // namespace

namespace ops {
void launch_scale(float* y, int n, cudaStream_t stream) {
  detail::launch_kernel(scale_fast, dim3(264), dim3(kThreads), stream, y, n);
}
}  // namespace ops
)";

TEST(ExcerptHelperSplice, AFunctionPointerParameterIsNamed) {
  kb::cuda_source::ScanResult scan;
  kb::cuda_source::scan_source(kFile, "ops.cu", scan);
  const kb::cuda_source::ScannedLauncher* launch = nullptr;
  for (const auto& l : scan.launchers)
    if (l.name == "ops::launch_scale") launch = &l;
  ASSERT_NE(launch, nullptr);
  ASSERT_EQ(launch->launches.size(), 1u);
  EXPECT_EQ(launch->launches[0].kernel, "scale_naive");
  EXPECT_EQ(launch->launches[0].via, "ops::detail::launch_kernel");
}

TEST(ExcerptHelperSplice, TheReplysLaunchThroughTheFilesHelperIsRead) {
  auto splice = splice_definitions("ops.cu", kFile, "ops::launch_scale", kReply);
  const std::string& out = splice.text;
  EXPECT_NE(out.find("detail::launch_kernel(scale_fast, dim3(264), dim3(kThreads), stream, y, n);"), std::string::npos)
      << out;
  EXPECT_NE(out.find("constexpr int kThreads = 256;"), std::string::npos) << out;
  // The new kernel and its constant come before the launcher that uses them.
  EXPECT_LT(out.find("scale_fast(float* __restrict__ y"), out.find("void launch_scale"));
  // scale_naive is in a named namespace and not static: another file may launch it, so it stays.
  EXPECT_NE(out.find("__global__ void scale_naive(float* y, int n)"), std::string::npos) << out;
  // The helper is the file's, once.
  EXPECT_EQ(out.find("void launch_kernel("), out.rfind("void launch_kernel("));
}

}  // namespace
