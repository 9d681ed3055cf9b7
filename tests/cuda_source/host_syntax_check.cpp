#include "tests/cuda_source/host_syntax_check.h"

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace kb::testing {
namespace {

// What CUDA adds to C++, as far as the splice tests' kernels use it.
constexpr const char* kCudaRuntimeStub = R"(#pragma once
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(...)
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3 { unsigned x, y, z; };
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
typedef struct CUstream_st* cudaStream_t;
struct float4 { float x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline float __shfl_down_sync(unsigned, float v, int) { return v; }
)";

constexpr const char* kCudaFp16Stub = R"(#pragma once
struct __half { unsigned short bits; };
inline __half __float2half(float) { return {}; }
inline float __half2float(__half) { return 0; }
)";

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

std::string host_syntax_errors(const std::string& cuda_text) {
  namespace fs = std::filesystem;
  std::string dir_template = (fs::temp_directory_path() / "kb-host-syntax-XXXXXX").string();
  if (!mkdtemp(dir_template.data())) return "cannot make a temporary directory";
  const fs::path dir = dir_template;
  write(dir / "cuda_runtime.h", kCudaRuntimeStub);
  write(dir / "cuda_fp16.h", kCudaFp16Stub);
  // kernel<<<grid, block, 0, stream>>>(args) -> kernel(args): a plain call of the same function.
  write(dir / "spliced.cpp", std::regex_replace(cuda_text, std::regex("<<<[^;]*?>>>"), ""));
  const std::string command = std::string(KB_HOST_CXX) + " -std=c++17 -fsyntax-only -x c++ -I" + dir.string() +
                              " -include cuda_runtime.h " + (dir / "spliced.cpp").string() + " 2>" +
                              (dir / "errors.txt").string();
  const int status = std::system(command.c_str());
  std::stringstream errors;
  errors << std::ifstream(dir / "errors.txt").rdbuf();
  fs::remove_all(dir);
  if (status == 0) return "";
  const std::string text = errors.str();
  return text.empty() ? "the compiler failed without a message: " + command : text;
}

}  // namespace kb::testing
