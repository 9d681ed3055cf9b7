// The guard zones' device code (guard_kernels.h) on real memory: a zone fills with bytes that
// vary with the key and the position, checks clean after the fill, and counts every changed byte
// with the nearest and farthest offset, whatever the zone's alignment and length.
#include "profiler/judge/buffers/guard_kernels.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

namespace kb::judge {
namespace {

class GuardKernelsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess) << "these tests need a CUDA device";
    ASSERT_GT(devices, 0);
    ASSERT_EQ(cudaMalloc(&memory_, kBytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&table_), 4 * sizeof(GuardZone) + 4 * sizeof(GuardFinding)),
              cudaSuccess);
    findings_ = reinterpret_cast<GuardFinding*>(table_ + 4);
  }
  void TearDown() override {
    cudaFree(memory_);
    cudaFree(table_);
  }

  void put(const std::vector<GuardZone>& zones) {
    ASSERT_EQ(cudaMemcpy(table_, zones.data(), zones.size() * sizeof(GuardZone), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<GuardFinding> check(int count) {
    EXPECT_EQ(cudaMemset(findings_, 0, count * sizeof(GuardFinding)), cudaSuccess);
    EXPECT_EQ(launch_check_guards(table_, count, findings_, cudaStreamLegacy), cudaSuccess);
    std::vector<GuardFinding> got(static_cast<size_t>(count));
    EXPECT_EQ(cudaMemcpy(got.data(), findings_, got.size() * sizeof(GuardFinding), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return got;
  }
  unsigned char* at(size_t offset) { return static_cast<unsigned char*>(memory_) + offset; }

  static constexpr size_t kBytes = size_t{1} << 20;
  void* memory_ = nullptr;
  GuardZone* table_ = nullptr;
  GuardFinding* findings_ = nullptr;
};

TEST_F(GuardKernelsGpu, AFilledZoneChecksCleanAndEveryChangedByteIsCounted) {
  // A zone before a buffer and one after it, the second starting at an odd offset.
  const GuardZone before{at(0), 65536, 0, 0x1234567890ABCDEFull};
  const GuardZone after{at(65536 + 1003), 70000, 65536 + 1003, 0x1234567890ABCDEFull};
  put({before, after});
  ASSERT_EQ(launch_fill_guards(table_, 2, cudaStreamLegacy), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (const auto& f : check(2)) EXPECT_EQ(f.changed, 0u);

  // Not a constant: a fixed pattern could be written back blindly.
  std::vector<unsigned char> host(4096);
  ASSERT_EQ(cudaMemcpy(host.data(), at(0), host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  size_t distinct = 0;
  for (size_t i = 1; i < host.size(); ++i) distinct += host[i] != host[i - 1];
  EXPECT_GT(distinct, 3000u);

  // One float written just past the end, and two bytes 4 and 1000 bytes before the start.
  std::vector<unsigned char> old(4);
  ASSERT_EQ(cudaMemcpy(old.data(), at(65536 + 1003), 4, cudaMemcpyDeviceToHost), cudaSuccess);
  for (auto& b : old) b = static_cast<unsigned char>(~b);
  ASSERT_EQ(cudaMemcpy(at(65536 + 1003), old.data(), 4, cudaMemcpyHostToDevice), cudaSuccess);
  for (size_t distance : {size_t{4}, size_t{1000}}) {
    unsigned char b = 0;
    ASSERT_EQ(cudaMemcpy(&b, at(65536 - distance), 1, cudaMemcpyDeviceToHost), cudaSuccess);
    b = static_cast<unsigned char>(b + 1);
    ASSERT_EQ(cudaMemcpy(at(65536 - distance), &b, 1, cudaMemcpyHostToDevice), cudaSuccess);
  }
  const auto got = check(2);
  EXPECT_EQ(got[0].changed, 2u);
  EXPECT_EQ(got[0].first(), 65536u - 1000);
  EXPECT_EQ(got[0].last, 65536u - 4);
  EXPECT_EQ(got[1].changed, 4u);
  EXPECT_EQ(got[1].first(), 0u);
  EXPECT_EQ(got[1].last, 3u);
}

TEST_F(GuardKernelsGpu, AnotherKeyGivesOtherBytes) {
  put({GuardZone{at(0), 4096, 0, 1}, GuardZone{at(8192), 4096, 0, 2}});
  ASSERT_EQ(launch_fill_guards(table_, 2, cudaStreamLegacy), cudaSuccess);
  std::vector<unsigned char> a(4096), b(4096);
  ASSERT_EQ(cudaMemcpy(a.data(), at(0), 4096, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b.data(), at(8192), 4096, cudaMemcpyDeviceToHost), cudaSuccess);
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  EXPECT_LT(same, 100u);  // about 16 of 4096 by chance
}

}  // namespace
}  // namespace kb::judge
