#include "profiler/judge/buffers/arg_set.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "common/os_random.h"
#include "profiler/judge/buffers/guard_kernels.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/harness_kernels.h"

namespace kb::judge {

ArgSet::ArgSet(const DecodedJob& job, size_t size_index, bool mapped)
    : job_(job),
      size_index_(size_index),
      counts_(job.args.size(), 0),
      device_(job.args.size(), nullptr),
      allocation_(job.args.size(), nullptr),
      layouts_(job.args.size()),
      scalar_storage_(job.args.size(), 0),
      scalar_values_(job.args.size(), 0),
      pointers_(job.args.size(), nullptr) {
  mapped_ = mapped;
}

ArgSet::ArgSet(const DecodedJob& job, size_t size_index, const std::vector<size_t>& shifts, Guards guards)
    : ArgSet(job, size_index, false) {
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.is_buffer()) {
      counts_[i] = static_cast<size_t>(a.counts[size_index]);
      if (counts_[i] > 0) allocate(i, i < shifts.size() ? shifts[i] : 0, guards);
      pointers_[i] = device_[i];
    } else {
      pointers_[i] = &scalar_storage_[i];
      if (a.is_value() && !a.values[size_index].empty()) set_scalar(i, parse_value(a, size_index));
    }
  }
  if (guards == Guards::around) fill_guards();
}

void ArgSet::allocate(size_t i, size_t shift, Guards guards) {
  if (guards == Guards::around) {
    layouts_[i] = guarded_layout(bytes(i), shift);
  } else {
    layouts_[i].data_bytes = bytes(i);
    layouts_[i].allocation_bytes = bytes(i);
  }
  const cudaError_t e = cudaMalloc(&allocation_[i], layouts_[i].allocation_bytes);
  if (e != cudaSuccess) {
    allocation_[i] = nullptr;
    release();
    throw HarnessError("cannot allocate " + std::to_string(bytes(i)) + " bytes of device memory for argument '" +
                       job_.args[i].name + "' at size " + job_.raw.size_labels[size_index_] + ": " +
                       describe_cuda_error(e));
  }
  device_[i] = static_cast<unsigned char*>(allocation_[i]) + layouts_[i].data_offset;
}

// One key per allocation from the OS's random source: a variant that writes outside a buffer
// cannot write back what was there, nor learn one allocation's bytes from another's.
void ArgSet::fill_guards() {
  std::vector<GuardZone> zones;
  for (size_t i = 0; i < allocation_.size(); ++i) {
    if (!allocation_[i]) continue;
    const GuardedLayout& l = layouts_[i];
    const unsigned long long key = random_u64();
    auto* base = static_cast<unsigned char*>(allocation_[i]);
    zones.push_back({base, l.data_offset, 0, key});
    zones.push_back({base + l.after_offset(), l.after_bytes(), l.after_offset(), key});
  }
  if (zones.empty()) return;
  guard_zones_ = static_cast<int>(zones.size());
  const size_t table = zones.size() * sizeof(GuardZone);
  const cudaError_t e = cudaMalloc(&guards_, table + zones.size() * sizeof(GuardFinding));
  if (e != cudaSuccess) {
    guards_ = nullptr;
    release();
    throw HarnessError("cannot allocate the guard zones' table: " + describe_cuda_error(e));
  }
  try {
    cuda_check(cudaMemcpy(guards_, zones.data(), table, cudaMemcpyHostToDevice), "writing the guard zones' table");
    cuda_check(launch_fill_guards(static_cast<const GuardZone*>(guards_), guard_zones_, cudaStreamLegacy),
               "filling the guard zones");
    cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "filling the guard zones");
  } catch (...) {
    release();
    throw;
  }
}

std::vector<GuardViolation> ArgSet::guard_violations() const {
  std::vector<GuardViolation> found;
  if (!guards_ || guard_zones_ == 0) return found;
  const auto* zones = static_cast<const GuardZone*>(guards_);
  auto* findings = reinterpret_cast<GuardFinding*>(static_cast<unsigned char*>(guards_) +
                                                   static_cast<size_t>(guard_zones_) * sizeof(GuardZone));
  const size_t n = static_cast<size_t>(guard_zones_);
  cuda_check(cudaMemsetAsync(findings, 0, n * sizeof(GuardFinding), cudaStreamLegacy), "clearing the guard checks");
  cuda_check(launch_check_guards(zones, guard_zones_, findings, cudaStreamLegacy), "checking the guard zones");
  std::vector<GuardFinding> got(n);
  cuda_check(cudaMemcpy(got.data(), findings, n * sizeof(GuardFinding), cudaMemcpyDeviceToHost),
             "reading the guard checks");
  size_t zone = 0;
  for (size_t i = 0; i < allocation_.size(); ++i) {
    if (!allocation_[i]) continue;
    for (const GuardSide side : {GuardSide::before_start, GuardSide::after_end}) {
      const GuardFinding& f = got[zone++];
      if (f.changed == 0) continue;
      const auto& a = job_.args[i];
      GuardViolation v;
      v.buffer = std::string(a.role == ArgRole::input    ? "input "
                             : a.role == ArgRole::output ? "output "
                             : a.is_workspace()          ? "workspace "
                                                         : "inout ") +
                 a.name;
      v.name = a.name;
      v.element_bytes = dtype_size(a.type);
      v.elements = counts_[i];
      v.side = side;
      v.changed_bytes = f.changed;
      if (side == GuardSide::after_end) {
        v.nearest = f.first();
        v.farthest = f.last;
      } else {  // offsets from the zone's start, which lies data_offset bytes before the buffer
        v.nearest = layouts_[i].data_offset - f.last;
        v.farthest = layouts_[i].data_offset - f.first();
      }
      found.push_back(v);
    }
  }
  return found;
}

size_t ArgSet::allocated_bytes() const {
  size_t total = 0;
  for (size_t i = 0; i < allocation_.size(); ++i)
    if (allocation_[i]) total += layouts_[i].allocation_bytes;
  return total;
}

ArgSet::ArgSet(const DecodedJob& job, const uint64_t* counts, const unsigned char (*handles)[64],
               const uint8_t* has_handle, const uint64_t* offsets)
    : ArgSet(job, 0, true) {
  static_assert(sizeof(cudaIpcMemHandle_t) == 64, "the wire carries 64-byte IPC handles");
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.is_buffer()) {
      counts_[i] = static_cast<size_t>(counts[i]);
      if (counts_[i] > 0) {
        if (!has_handle[i]) {
          release();
          throw HarnessError("no buffer for argument '" + a.name + "'");
        }
        cudaIpcMemHandle_t h;
        std::memcpy(&h, handles[i], sizeof h);
        const cudaError_t e = cudaIpcOpenMemHandle(&allocation_[i], h, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
          allocation_[i] = nullptr;
          release();
          throw HarnessError("cannot map the judge's buffer for argument '" + a.name + "': " + describe_cuda_error(e));
        }
        layouts_[i].data_offset = static_cast<size_t>(offsets[i]);
        device_[i] = static_cast<unsigned char*>(allocation_[i]) + offsets[i];
      }
      pointers_[i] = device_[i];
    } else {
      pointers_[i] = &scalar_storage_[i];
    }
  }
}

ArgSet::~ArgSet() { release(); }

void ArgSet::ipc_handle(size_t i, unsigned char out[64]) const {
  cudaIpcMemHandle_t h;
  cuda_check(cudaIpcGetMemHandle(&h, allocation_[i]), "exporting a buffer to a variant server");
  std::memcpy(out, &h, sizeof h);
}

void ArgSet::poison_outputs() {
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (!role_is_poisoned(job_.args[i].role) || bytes(i) == 0) continue;
    const DType t = job_.args[i].type;
    uint64_t pattern = 0;
    fill_poison(t, &pattern, 1);
    cuda_check(launch_fill_pattern(device_[i], counts_[i], static_cast<unsigned>(dtype_size(t)), pattern,
                                   cudaStreamLegacy),
               "poisoning an output");
  }
}

void ArgSet::release() {
  for (auto*& p : allocation_) {
    if (p) {
      if (mapped_) cudaIpcCloseMemHandle(p);
      else cudaFree(p);
    }
    p = nullptr;
  }
  for (auto*& p : device_) p = nullptr;
  if (guards_) cudaFree(guards_);
  guards_ = nullptr;
  guard_zones_ = 0;
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
