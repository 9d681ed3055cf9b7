// Checks the four example launchers against CPU references (accumulating in double) on random
// non-zero inputs, including sizes that are not multiples of any block size. Every output buffer
// is poisoned with NaN before the call and followed by a guard region that must stay untouched.
// Prints PASS/FAIL per check; exits 1 on any failure or when there is no CUDA device.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "examples/kernels.h"

namespace {

void check(cudaError_t err, const char* what, int line) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "examples_correctness_test: %s failed (line %d): %s\n", what, line,
                 cudaGetErrorString(err));
    std::exit(1);
  }
}
#define CHECK(call) check((call), #call, __LINE__)

constexpr size_t kGuard = 256;           // floats after each output buffer
constexpr uint32_t kGuardBits = 0x7f7f7f7fu;  // a finite float no kernel here would write

int g_failures = 0;

// Random non-zero values: magnitude in [lo, hi], either sign unless positive_only.
std::vector<float> random_values(size_t count, std::mt19937& gen, float lo = 0.1f, float hi = 1.0f,
                                 bool positive_only = false) {
  std::uniform_real_distribution<float> magnitude(lo, hi);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> v(count);
  for (auto& e : v) {
    float m = magnitude(gen);
    e = (!positive_only && negative(gen)) ? -m : m;
  }
  return v;
}

// A device buffer of `count` floats followed by a guard region.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    CHECK(cudaMalloc(&ptr_, (count_ + kGuard) * sizeof(float)));
    std::vector<uint32_t> guard(kGuard, kGuardBits);
    CHECK(cudaMemcpy(ptr_ + count_, guard.data(), kGuard * sizeof(float), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }

  float* get() const { return ptr_; }
  void upload(const std::vector<float>& host) {
    CHECK(cudaMemcpy(ptr_, host.data(), count_ * sizeof(float), cudaMemcpyHostToDevice));
  }
  void poison() { CHECK(cudaMemset(ptr_, 0xff, count_ * sizeof(float))); }  // all-ones = NaN
  std::vector<float> download() const {
    std::vector<float> host(count_);
    CHECK(cudaMemcpy(host.data(), ptr_, count_ * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }
  bool guard_intact() const {
    std::vector<uint32_t> guard(kGuard);
    CHECK(cudaMemcpy(guard.data(), ptr_ + count_, kGuard * sizeof(float), cudaMemcpyDeviceToHost));
    for (uint32_t g : guard)
      if (g != kGuardBits) return false;
    return true;
  }

 private:
  float* ptr_ = nullptr;
  size_t count_;
};

void finish_launch() {
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
}

// Compares got[i] with ref[i]: |got - ref| <= atol + rtol * scale[i] (scale defaults to |ref|).
void compare(const std::string& name, const std::vector<float>& got, const std::vector<double>& ref,
             double rtol, double atol, const DeviceBuffer& out,
             const std::vector<double>* scale = nullptr) {
  size_t bad = 0, first_bad = 0;
  double max_err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double s = scale ? (*scale)[i] : std::fabs(ref[i]);
    double err = std::fabs(static_cast<double>(got[i]) - ref[i]);
    bool ok = std::isfinite(got[i]) && err <= atol + rtol * s;
    if (!ok && bad++ == 0) first_bad = i;
    if (std::isfinite(err) && err > max_err) max_err = err;
  }
  bool guard_ok = out.guard_intact();
  if (bad == 0 && guard_ok) {
    std::printf("PASS %-40s max_abs_err %.3g\n", name.c_str(), max_err);
    return;
  }
  ++g_failures;
  if (bad)
    std::printf("FAIL %-40s %zu of %zu wrong; first at %zu: got %.9g, want %.9g\n", name.c_str(), bad,
                ref.size(), first_bad, static_cast<double>(got[first_bad]), ref[first_bad]);
  if (!guard_ok) std::printf("FAIL %-40s wrote past the end of its output\n", name.c_str());
}

void test_saxpy(int n, float a, std::mt19937& gen) {
  auto x = random_values(n, gen), y = random_values(n, gen);
  DeviceBuffer dx(n), dy(n);
  dx.upload(x);
  dy.upload(y);
  launch_saxpy(dx.get(), dy.get(), a, n);
  finish_launch();
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = static_cast<double>(a) * x[i] + y[i];
  compare("saxpy n=" + std::to_string(n), dy.download(), ref, 1e-6, 1e-6, dy);
}

void test_transpose(int rows, int cols, std::mt19937& gen) {
  size_t count = static_cast<size_t>(rows) * cols;
  auto in = random_values(count, gen);
  DeviceBuffer din(count), dout(count);
  din.upload(in);
  dout.poison();
  launch_transpose(din.get(), dout.get(), rows, cols);
  finish_launch();
  std::vector<double> ref(count);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) ref[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
  compare("transpose " + std::to_string(rows) + "x" + std::to_string(cols), dout.download(), ref, 0, 0,
          dout);
}

void test_row_sum(int rows, int cols, std::mt19937& gen) {
  size_t count = static_cast<size_t>(rows) * cols;
  auto in = random_values(count, gen);
  DeviceBuffer din(count), dout(rows);
  din.upload(in);
  dout.poison();  // the launcher must zero it itself
  // Called twice: the second call must overwrite, not add to, the first call's sums.
  launch_row_sum(din.get(), dout.get(), rows, cols);
  finish_launch();
  launch_row_sum(din.get(), dout.get(), rows, cols);
  finish_launch();
  std::vector<double> ref(rows), abs_sum(rows);  // error scales with sum |x|, not |sum x|
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      double v = in[static_cast<size_t>(r) * cols + c];
      ref[r] += v;
      abs_sum[r] += std::fabs(v);
    }
  }
  compare("row_sum " + std::to_string(rows) + "x" + std::to_string(cols), dout.download(), ref, 1e-4,
          1e-5, dout, &abs_sum);
}

void test_layernorm(int rows, int cols, float offset, std::mt19937& gen) {
  const float eps = 1e-5f;
  size_t count = static_cast<size_t>(rows) * cols;
  auto x = random_values(count, gen);
  for (auto& v : x) v += offset;
  auto gamma = random_values(cols, gen, 0.5f, 1.5f), beta = random_values(cols, gen);
  DeviceBuffer dx(count), dgamma(cols), dbeta(cols), dy(count);
  dx.upload(x);
  dgamma.upload(gamma);
  dbeta.upload(beta);
  dy.poison();
  launch_layernorm(dx.get(), dgamma.get(), dbeta.get(), dy.get(), rows, cols, eps);
  finish_launch();
  std::vector<double> ref(count);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x.data() + static_cast<size_t>(r) * cols;
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= cols;
    double inv_std = 1.0 / std::sqrt(var + eps);
    for (int c = 0; c < cols; ++c)
      ref[static_cast<size_t>(r) * cols + c] = (xr[c] - mean) * inv_std * gamma[c] + beta[c];
  }
  std::string name = "layernorm " + std::to_string(rows) + "x" + std::to_string(cols);
  if (offset != 0) name += " offset " + std::to_string(static_cast<int>(offset));
  // With a large mean the float row sum itself loses digits, hence the looser bound there.
  double tol = offset != 0 ? 2e-3 : 1e-4;
  compare(name, dy.download(), ref, tol, tol, dy);
}

}  // namespace

int main() {
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "examples_correctness_test: no CUDA device: %s\n",
                 cudaGetErrorString(err != cudaSuccess ? err : cudaErrorNoDevice));
    return 1;
  }

  std::mt19937 gen(20240611);

  for (int n : {1, 31, 1000, 1000003, 1 << 22}) test_saxpy(n, 2.5f, gen);
  test_saxpy(4097, -0.75f, gen);

  for (auto [rows, cols] : {std::pair{1, 1}, {7, 3}, {257, 1031}, {1024, 1024}, {4096, 33}, {1, 5000}})
    test_transpose(rows, cols, gen);

  for (auto [rows, cols] : {std::pair{1, 1}, {3, 7}, {257, 1031}, {1000, 1}, {1, 100003}, {4096, 4096}})
    test_row_sum(rows, cols, gen);

  for (auto [rows, cols] : {std::pair{1, 1}, {5, 3}, {257, 1031}, {1000, 768}, {3, 4099}})
    test_layernorm(rows, cols, 0.0f, gen);
  test_layernorm(129, 1024, 100.0f, gen);  // a large mean: a one-pass E[x^2]-E[x]^2 would fail

  if (g_failures) {
    std::printf("examples_correctness_test: %d check(s) FAILED\n", g_failures);
    return 1;
  }
  std::printf("examples_correctness_test: all checks passed\n");
  return 0;
}
