#include "profiler/judge/tracing/activity_monitor.h"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/harness_kernels.h"

namespace kb::judge {
namespace {

constexpr size_t kBufferSize = 8 << 20;

std::mutex g_mutex;
std::vector<ActivityRecord> g_records;
uint64_t g_dropped = 0;

std::string cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : ("CUPTI error " + std::to_string(static_cast<int>(r)));
}

void cupti_check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) throw HarnessError(std::string("CUPTI ") + what + " failed: " + cupti_error(r));
}

std::string demangle(const char* name) {
  if (!name) return "";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && out ? out.get() : name;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  std::vector<ActivityRecord> records;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    ActivityRecord r;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        r.kind = ActivityRecord::Kind::kernel;
        r.name = demangle(k->name);
        r.start = k->start;
        r.end = k->end;
        r.stream = k->streamId;
        r.registers_per_thread = k->registersPerThread;
        r.static_shared_bytes = k->staticSharedMemory;
        r.dynamic_shared_bytes = k->dynamicSharedMemory;
        r.local_bytes_per_thread = k->localMemoryPerThread;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        r.kind = ActivityRecord::Kind::memcpy;
        r.name = "memcpy";
        r.start = m->start;
        r.end = m->end;
        r.stream = m->streamId;
        r.bytes = m->bytes;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        r.kind = ActivityRecord::Kind::memset;
        r.name = "memset";
        r.start = m->start;
        r.end = m->end;
        r.stream = m->streamId;
        r.bytes = m->bytes;
        break;
      }
      default: continue;
    }
    records.push_back(std::move(r));
  }
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped);
  std::free(buffer);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_dropped += dropped;
  for (auto& r : records) g_records.push_back(std::move(r));
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

ActivityMonitor& ActivityMonitor::instance() {
  static ActivityMonitor monitor;
  return monitor;
}

void ActivityMonitor::enable() {
  if (enabled_) return;
  if (!registered_) {
    cupti_check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "activity registration");
    registered_ = true;
  }
  for (auto kind : kKinds) cupti_check(cuptiActivityEnable(kind), "activity enable");
  enabled_ = true;
}

void ActivityMonitor::disable() {
  if (!enabled_) return;
  for (auto kind : kKinds) cuptiActivityDisable(kind);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  enabled_ = false;
}

uint64_t ActivityMonitor::timestamp() const {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

std::vector<ActivityRecord> ActivityMonitor::take() {
  cupti_check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "activity flush");
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<ActivityRecord> out;
  out.swap(g_records);
  return out;
}

uint64_t ActivityMonitor::dropped_records() const {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_dropped;
}

uint32_t ActivityMonitor::stream_id_of(void* stream) {
  const bool was_enabled = enabled_;
  enable();
  cuda_check(cudaDeviceSynchronize(), "synchronizing before a stream probe");
  take();
  const uint64_t since = timestamp();
  cuda_check(launch_probe_kernel(static_cast<cudaStream_t>(stream)), "launching a stream probe");
  cuda_check(cudaDeviceSynchronize(), "running a stream probe");
  uint32_t id = 0;
  bool found = false;
  for (const auto& r : records_since(take(), since))
    if (r.kind == ActivityRecord::Kind::kernel && r.name.find("probe_kernel") != std::string::npos) {
      id = r.stream;
      found = true;
    }
  if (!was_enabled) disable();
  if (!found) throw HarnessError("CUPTI did not report the stream probe kernel");
  return id;
}

std::vector<ActivityRecord> records_since(const std::vector<ActivityRecord>& records, uint64_t since) {
  std::vector<ActivityRecord> out;
  for (const auto& r : records)
    if (r.start >= since) out.push_back(r);
  return out;
}

}  // namespace kb::judge
