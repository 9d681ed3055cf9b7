#include "profiler/judge/arg_set.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "profiler/judge/cuda_check.h"
#include "profiler/judge/harness_kernels.h"

namespace kb::judge {

ArgSet::ArgSet(const DecodedJob& job, size_t size_index, bool mapped)
    : job_(job),
      size_index_(size_index),
      counts_(job.args.size(), 0),
      device_(job.args.size(), nullptr),
      scalar_storage_(job.args.size(), 0),
      scalar_values_(job.args.size(), 0),
      pointers_(job.args.size(), nullptr) {
  mapped_ = mapped;
}

ArgSet::ArgSet(const DecodedJob& job, size_t size_index) : ArgSet(job, size_index, false) {
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.is_buffer()) {
      counts_[i] = static_cast<size_t>(a.counts[size_index]);
      if (counts_[i] > 0) {
        const cudaError_t e = cudaMalloc(&device_[i], bytes(i));
        if (e != cudaSuccess) {
          device_[i] = nullptr;
          release();
          throw HarnessError("cannot allocate " + std::to_string(bytes(i)) + " bytes of device memory for argument '" +
                             a.name + "' at size " + job.raw.size_labels[size_index] + ": " + describe_cuda_error(e));
        }
      }
      pointers_[i] = device_[i];
    } else {
      pointers_[i] = &scalar_storage_[i];
      if (a.is_value() && !a.values[size_index].empty()) set_scalar(i, parse_value(a, size_index));
    }
  }
}

ArgSet::ArgSet(const DecodedJob& job, size_t size_index, const unsigned char (*handles)[64], const uint8_t* has_handle)
    : ArgSet(job, size_index, true) {
  static_assert(sizeof(cudaIpcMemHandle_t) == 64, "the wire carries 64-byte IPC handles");
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.is_buffer()) {
      counts_[i] = static_cast<size_t>(a.counts[size_index]);
      if (counts_[i] > 0) {
        if (!has_handle[i]) {
          release();
          throw HarnessError("no buffer for argument '" + a.name + "'");
        }
        cudaIpcMemHandle_t h;
        std::memcpy(&h, handles[i], sizeof h);
        const cudaError_t e = cudaIpcOpenMemHandle(&device_[i], h, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
          device_[i] = nullptr;
          release();
          throw HarnessError("cannot map the judge's buffer for argument '" + a.name + "': " + describe_cuda_error(e));
        }
      }
      pointers_[i] = device_[i];
    } else {
      pointers_[i] = &scalar_storage_[i];
      if (a.is_value() && !a.values[size_index].empty()) set_scalar(i, parse_value(a, size_index));
    }
  }
}

ArgSet::~ArgSet() { release(); }

void ArgSet::ipc_handle(size_t i, unsigned char out[64]) const {
  cudaIpcMemHandle_t h;
  cuda_check(cudaIpcGetMemHandle(&h, device_[i]), "exporting a buffer to a variant server");
  std::memcpy(out, &h, sizeof h);
}

void ArgSet::poison_outputs() {
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (job_.args[i].role != ArgRole::output || bytes(i) == 0) continue;
    const DType t = job_.args[i].type;
    uint64_t pattern = 0;
    fill_poison(t, &pattern, 1);
    cuda_check(launch_fill_pattern(device_[i], counts_[i], static_cast<unsigned>(dtype_size(t)), pattern,
                                   cudaStreamLegacy),
               "poisoning an output");
  }
}

void ArgSet::release() {
  for (auto*& p : device_) {
    if (p) {
      if (mapped_) cudaIpcCloseMemHandle(p);
      else cudaFree(p);
    }
    p = nullptr;
  }
}

size_t ArgSet::total_bytes() const {
  size_t total = 0;
  for (size_t i = 0; i < counts_.size(); ++i)
    if (job_.args[i].is_buffer()) total += bytes(i);
  return total;
}

void ArgSet::set_scalar(size_t i, double value) {
  scalar_values_[i] = value;
  scalar_storage_[i] = 0;
  store_double(job_.args[i].type, &scalar_storage_[i], 0, value);
}

void ArgSet::set_stream(size_t i, cudaStream_t stream) {
  static_assert(sizeof(cudaStream_t) <= sizeof(uint64_t), "a stream handle fits an argument's storage");
  scalar_storage_[i] = 0;
  // The handle itself (a pointer) is what is stored, so its size is the one meant.
  // NOLINTNEXTLINE(bugprone-sizeof-expression)
  std::memcpy(&scalar_storage_[i], &stream, sizeof stream);
}

void ArgSet::upload(size_t i, const HostBuffer& data) {
  if (bytes(i) == 0) return;
  cuda_check(cudaMemcpy(device_[i], data.data(), bytes(i), cudaMemcpyHostToDevice), "uploading an input");
}

HostBuffer ArgSet::download(size_t i) const {
  HostBuffer out(bytes(i));
  if (!out.empty())
    cuda_check(cudaMemcpy(out.data(), device_[i], bytes(i), cudaMemcpyDeviceToHost), "downloading a buffer");
  return out;
}

void ArgSet::poison(size_t i) {
  if (bytes(i) == 0) return;
  const DType t = job_.args[i].type;
  uint64_t pattern = 0;
  fill_poison(t, &pattern, 1);
  cuda_check(launch_fill_pattern(device_[i], counts_[i], static_cast<unsigned>(dtype_size(t)), pattern,
                                 cudaStreamLegacy),
             "poisoning an output");
  cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "poisoning an output");
}

}  // namespace kb::judge
