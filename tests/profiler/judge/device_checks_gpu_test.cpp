// The judge compares outputs on the GPU (launch_output_stats) and reads them back only to
// describe a failure, so the device rules must be compare_output's exactly: these tests run both
// on the same buffers, special values included, and demand the same counts and maxima.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/arg_type_names.h"
#include "profiler/judge/inputs/dtype_codec.h"
#include "profiler/judge/outputs/device_checks.h"
#include "profiler/judge/outputs/output_comparator.h"
#include "profiler/judge/outputs/reference_check.h"

namespace kb::judge {
namespace {

using Bytes = std::vector<unsigned char>;

class DeviceChecksGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess) << "these tests need a CUDA device";
    ASSERT_GT(devices, 0);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&stats_), sizeof(DeviceOutputStats)), cudaSuccess);
  }
  void TearDown() override { cudaFree(stats_); }

  void* upload(const Bytes& b) {
    void* d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, b.size()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, b.data(), b.size(), cudaMemcpyHostToDevice), cudaSuccess);
    owned_.push_back(d);
    return d;
  }
  ~DeviceChecksGpu() override {
    for (void* p : owned_) cudaFree(p);
  }

  // Both comparisons of the same buffers; the device's numbers must equal the host's.
  void expect_same(DType t, const Bytes& ref, const Bytes& got, const Bytes* scale, size_t count, Tolerance tol) {
    const OutputComparison host = compare_output(t, ref.data(), got.data(), count, tol,
                                                 scale ? scale->data() : nullptr);
    uint64_t poison = 0;
    fill_poison(t, &poison, 1);
    ASSERT_EQ(cudaMemset(stats_, 0, sizeof(DeviceOutputStats)), cudaSuccess);
    ASSERT_EQ(launch_output_stats(upload(ref), upload(got), scale ? upload(*scale) : nullptr, static_cast<int>(t),
                                  count, tol.rtol, tol.atol, poison, stats_, nullptr),
              cudaSuccess);
    DeviceOutputStats dev;
    ASSERT_EQ(cudaMemcpy(&dev, stats_, sizeof dev, cudaMemcpyDeviceToHost), cudaSuccess);
    auto value = [](unsigned long long bits) {
      double v;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    };
    EXPECT_EQ(static_cast<int64_t>(dev.elements), host.elements);
    EXPECT_EQ(static_cast<int64_t>(dev.mismatches), host.mismatches);
    EXPECT_DOUBLE_EQ(value(dev.max_abs_bits), host.max_abs_error);
    EXPECT_DOUBLE_EQ(value(dev.max_rel_bits), host.max_rel_error);
    EXPECT_DOUBLE_EQ(value(dev.max_ref_bits), host.max_reference);
    // The timed samples' check (launch_count_mismatches) counts by the same rules, unscaled.
    if (!scale) {
      unsigned long long* counter = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&counter), sizeof *counter), cudaSuccess);
      owned_.push_back(counter);
      ASSERT_EQ(cudaMemset(counter, 0, sizeof *counter), cudaSuccess);
      ASSERT_EQ(launch_count_mismatches(upload(ref), upload(got), static_cast<int>(t), count, tol.rtol, tol.atol,
                                        poison, counter, nullptr),
                cudaSuccess);
      unsigned long long counted = 0;
      ASSERT_EQ(cudaMemcpy(&counted, counter, sizeof counted, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(static_cast<int64_t>(counted), host.mismatches) << "launch_count_mismatches";
    }
  }

  DeviceOutputStats* stats_ = nullptr;
  std::vector<void*> owned_;
};

// Values with every case compare_output tells apart: close, far, poison on either side, NaN and
// Inf on either side, zeros.
void mixed_pair(DType t, size_t count, uint32_t seed, Bytes& ref, Bytes& got, double spread) {
  const size_t width = dtype_size(t);
  ref.assign(count * width, 0);
  got.assign(count * width, 0);
  std::mt19937 rng(seed);
  std::normal_distribution<double> value(0, 100);
  std::uniform_real_distribution<double> unit(0, 1);
  for (size_t i = 0; i < count; ++i) {
    const double r = value(rng);
    store_double(t, ref.data(), i, r);
    store_double(t, got.data(), i, r * (1 + spread * (unit(rng) - 0.5)));
    const double pick = unit(rng);
    if (pick < 0.01) fill_poison(t, ref.data() + i * width, 1);
    else if (pick < 0.02) fill_poison(t, got.data() + i * width, 1);
    else if (pick < 0.025) store_double(t, got.data(), i, NAN);
    else if (pick < 0.03) store_double(t, ref.data(), i, INFINITY), store_double(t, got.data(), i, INFINITY);
    else if (pick < 0.035) store_double(t, ref.data(), i, -INFINITY);
    else if (pick < 0.04) store_double(t, ref.data(), i, NAN), store_double(t, got.data(), i, NAN);
    else if (pick < 0.045) store_double(t, ref.data(), i, NAN);
    else if (pick < 0.05) store_double(t, ref.data(), i, 0.0);
  }
}

TEST_F(DeviceChecksGpu, FloatComparisonsCountAndMeasureAsTheHostDoes) {
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16}) {
    for (double spread : {0.0, 1e-6, 1e-3, 0.2}) {
      SCOPED_TRACE(std::string(to_string(t)) + " spread " + std::to_string(spread));
      Bytes ref, got;
      mixed_pair(t, 100003, 7, ref, got, spread);
      expect_same(t, ref, got, nullptr, 100003, {1e-3, 1e-4});
    }
  }
}

TEST_F(DeviceChecksGpu, AllCloseOutputsPassWithTheirLargestErrors) {
  Bytes ref(4096 * 4), got(4096 * 4);
  for (size_t i = 0; i < 4096; ++i) {
    store_double(DType::float32, ref.data(), i, std::sin(i * 0.01) * 50);
    store_double(DType::float32, got.data(), i, std::sin(i * 0.01) * 50 + (i % 7) * 1e-6);
  }
  expect_same(DType::float32, ref, got, nullptr, 4096, {1e-5, 1e-5});
}

TEST_F(DeviceChecksGpu, ScaleWidensTheToleranceAsOnTheHost) {
  Bytes ref, got;
  mixed_pair(DType::float32, 50000, 11, ref, got, 1e-2);
  Bytes scale(ref.size());
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> unit(0, 1);
  for (size_t i = 0; i < 50000; ++i) {
    const double pick = unit(rng);
    store_double(DType::float32, scale.data(), i, pick * 1e4 - 5e3);
    if (pick < 0.01) fill_poison(DType::float32, scale.data() + i * 4, 1);
    else if (pick < 0.02) store_double(DType::float32, scale.data(), i, INFINITY);
  }
  expect_same(DType::float32, ref, got, &scale, 50000, {1e-5, 1e-5});
}

TEST_F(DeviceChecksGpu, IntegersWithoutToleranceCompareEveryBit) {
  // 2^60 + 1 and 2^60 are one double apart from nothing: only a bitwise comparison sees them differ.
  std::vector<int64_t> ref = {1, -5, (int64_t{1} << 60) + 1, 42, 7};
  std::vector<int64_t> got = {1, -4, int64_t{1} << 60, 42, 8};
  Bytes r(ref.size() * 8), g(got.size() * 8);
  std::memcpy(r.data(), ref.data(), r.size());
  std::memcpy(g.data(), got.data(), g.size());
  expect_same(DType::int64, r, g, nullptr, ref.size(), {0, 0});
  std::vector<int32_t> ri = {3, 4, 5, 6}, gi = {3, 0, 5, 9};
  Bytes r32(16), g32(16);
  std::memcpy(r32.data(), ri.data(), 16);
  std::memcpy(g32.data(), gi.data(), 16);
  expect_same(DType::int32, r32, g32, nullptr, 4, {0, 0});
  expect_same(DType::int32, r32, g32, nullptr, 4, {0.5, 1});  // with a tolerance: as floats
}

// The reference check counts on the GPU (launch_reference_counts) what the host's count_reference
// counts: poison (for an "output" only), finite values, values other than element 0's; for every
// type, on mixed values, on a constant output and on one of NaN and poison only.
TEST_F(DeviceChecksGpu, ReferenceCountsAreTheHostsForEveryType) {
  unsigned long long* counts = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&counts), 3 * sizeof *counts), cudaSuccess);
  owned_.push_back(counts);
  int compared = 0;
  for (DType t : {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::int64, DType::int32,
                  DType::uint32, DType::int8, DType::uint8}) {
    const size_t n = 70001, width = dtype_size(t);
    Bytes mixed, unused;
    mixed_pair(t, n, 5, mixed, unused, 0);
    Bytes constant(n * width);
    for (size_t i = 0; i < n; ++i) store_double(t, constant.data(), i, 3.0);
    fill_poison(t, constant.data() + 7 * width, 2);
    Bytes nan_only(n * width);
    for (size_t i = 0; i < n; ++i) store_double(t, nan_only.data(), i, NAN);
    fill_poison(t, nan_only.data(), n / 2);
    for (const Bytes* data : {&mixed, &constant, &nan_only})
      for (ArgRole role : {ArgRole::output, ArgRole::inout}) {
        SCOPED_TRACE(std::string(to_string(t)) + " " + to_string(role) + " buffer " +
                     std::to_string(data == &mixed      ? 0
                                    : data == &constant ? 1
                                                        : 2));
        const ReferenceCounts host = count_reference(t, role, data->data(), n);
        uint64_t poison = 0;
        fill_poison(t, &poison, 1);
        ASSERT_EQ(cudaMemset(counts, 0, 3 * sizeof *counts), cudaSuccess);
        ASSERT_EQ(launch_reference_counts(upload(*data), static_cast<int>(t), n, role == ArgRole::output, poison,
                                          counts, nullptr),
                  cudaSuccess);
        unsigned long long dev[3] = {};
        ASSERT_EQ(cudaMemcpy(dev, counts, sizeof dev, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(dev[0], host.poison);
        EXPECT_EQ(dev[1], host.finite);
        EXPECT_EQ(dev[2], host.differ);
        ++compared;
      }
  }
  EXPECT_EQ(compared, 9 * 3 * 2);
}

TEST_F(DeviceChecksGpu, AbsInPlaceClearsSignsAsOnTheHost) {
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16}) {
    SCOPED_TRACE(to_string(t));
    Bytes host, unused;
    mixed_pair(t, 10007, 5, host, unused, 0);
    void* d = upload(host);
    ASSERT_EQ(launch_abs_in_place(d, static_cast<int>(t), 10007, nullptr), cudaSuccess);
    Bytes back(host.size());
    ASSERT_EQ(cudaMemcpy(back.data(), d, back.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    abs_in_place(t, host.data(), 10007);
    EXPECT_EQ(back, host);
  }
}

}  // namespace
}  // namespace kb::judge
