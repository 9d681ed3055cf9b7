// `kernelbot profile -- <command>`: which kernels of the user's own program take the GPU's time.
// The injection library (profiler/workload/inject/) writes per-process sums of kernel launches; this file
// reads them, ranks kernels by total GPU time and maps each back to the source file and the
// launcher functions the source scanner found.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "config/config.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::profiler {

// Launches of one kernel with one grid and block shape, summed by the injection library.
struct LaunchGroup {
  std::string name;  // demangled: "void ns::scale<float>(float const*, float*, int)"
  std::string mangled;
  uint32_t device = 0;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  uint64_t calls = 0;
  uint64_t total_ns = 0, min_ns = 0, max_ns = 0;
  int registers = 0;
};

// One process's profile file.
struct WorkloadRecording {
  int64_t pid = 0;
  std::string command;
  uint64_t dropped_records = 0;
  uint64_t first_start_ns = 0, last_end_ns = 0;
  std::vector<LaunchGroup> groups;
};

// Reads a file the injection library wrote; throws kb::Error naming the file.
WorkloadRecording read_workload_recording(const std::filesystem::path& file);

// One kernel in the ranking, its launch shapes merged.
struct RankedKernel {
  int rank = 0;
  std::string name;       // qualified base name: "ns::scale<float>"
  std::string signature;  // the full demangled name
  uint64_t calls = 0;
  double total_ms = 0;
  double mean_us = 0;
  double min_us = 0, max_us = 0;
  double share = 0;         // of all kernel time in the workload, 0..1
  std::string grid, block;  // the most frequent shape: "4096x1x1"; " (+2 more)" when it varies
  int registers = 0;
  std::vector<std::string> sources;     // "src/saxpy.cu:12" where a __global__ of that name is defined
  std::vector<std::string> launchers;   // host functions with a launch site of it
  std::vector<std::string> configured;  // [[kernel]] names whose launcher launches it
};

struct WorkloadRanking {
  std::vector<RankedKernel> kernels;  // by total GPU time, largest first
  double total_kernel_ms = 0;
  uint64_t total_calls = 0;
  uint64_t dropped_records = 0;
  size_t processes = 0;
};

// Merges every process's recording and ranks the kernels. `config` may be null (no kernelbot.toml).
WorkloadRanking rank_workload(const std::vector<WorkloadRecording>& recordings, const cuda_source::ScanResult& scan,
                              const config::Config* config);

// "void ns::scale<float>(float const*, float*, int)" -> "ns::scale<float>"; -> "scale" with
// `strip_scope_and_templates`.
std::string kernel_base_name(const std::string& demangled, bool strip_scope_and_templates);

}  // namespace kb::profiler
