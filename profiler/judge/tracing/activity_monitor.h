// CUPTI activity tracing of the device work a launcher call starts: kernels, copies and memsets
// with GPU start/end timestamps, their streams, and each kernel's resources (registers, shared
// and local memory). Used to catch work the caller's stream does not wait for, to measure the
// GPU span of a call as a cross-check of event timing, and to name the kernels of a launcher.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb::judge {

struct ActivityRecord {
  enum class Kind { kernel, memcpy, memset } kind = Kind::kernel;
  std::string name;             // demangled kernel name; "memcpy" / "memset" otherwise
  uint64_t start = 0, end = 0;  // ns, CUPTI's timestamp base (the one cuptiGetTimestamp reads)
  uint32_t stream = 0;
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0, dynamic_shared_bytes = 0, local_bytes_per_thread = 0;
  uint64_t bytes = 0;  // memcpy / memset
};

// One process-wide tracer (CUPTI's activity API is process-wide too).
class ActivityMonitor {
 public:
  static ActivityMonitor& instance();

  // Turns tracing of kernels, memcpys and memsets on or off. Throws HarnessError when CUPTI
  // cannot trace (the harness cannot then vouch for side-stream work).
  void enable();
  void disable();

  uint64_t timestamp() const;  // now, in the records' time base
  // Flushes CUPTI's buffers and returns every record completed since the last call. Call it
  // after the device is synchronized so the records are complete.
  std::vector<ActivityRecord> take();
  uint64_t dropped_records() const;

  // The CUPTI stream id of `stream` (cudaStream_t as void*), learned by tracing a probe kernel.
  uint32_t stream_id_of(void* stream);

 private:
  ActivityMonitor() = default;
  bool registered_ = false;
  bool enabled_ = false;
};

// Records of one call: those that started at or after `since`.
std::vector<ActivityRecord> records_since(const std::vector<ActivityRecord>& records, uint64_t since);

}  // namespace kb::judge
