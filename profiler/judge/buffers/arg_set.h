// The arguments of one launcher call at one size set: a device buffer per buffer parameter,
// host storage per scalar, size and stream, and the `void*` array kb_launch takes. The judge owns the
// buffers (allocates, fills, poisons, reads them back) and exports them through CUDA IPC; a
// variant server maps them (the mapped constructor) and only calls the launcher on them, so what
// the judge reads back is what the variant's kernels wrote, not what its process says they wrote.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "profiler/judge/buffers/guard_layout.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

using HostBuffer = std::vector<unsigned char>;

class ArgSet {
 public:
  // Whether buffers get guard zones: the judge's do; a server's own (metrics, compute-sanitizer)
  // do not, so that memcheck still sees an access past a buffer's end as outside its allocation.
  enum class Guards { around, none };
  // Allocates every buffer of size set `size_index` (between guard zones filled from the OS's
  // random source); literal scalars and sizes get their values. Buffer i starts `shifts[i]` bytes
  // past a 256-byte boundary (none when `shifts` is empty: the alignment pass's cases).
  // Throws HarnessError when device memory runs out.
  ArgSet(const DecodedJob& job, size_t size_index, const std::vector<size_t>& shifts = {},
         Guards guards = Guards::around);
  // Server side: the judge's buffers, mapped from their IPC handles (`handles[i]` for each buffer
  // argument with `has_handle[i]`), buffer i `offsets[i]` bytes into its allocation and
  // `counts[i]` elements long. The counts come with the handles, not from a size set of the job:
  // a server's job holds only the configured size sets (served_job.h), so the sizes verification
  // draws beyond them stay unknown to the candidate until it is called with them. Scalars are set
  // by the caller (the bind request carries them all); size_index() is 0. Throws HarnessError when
  // a handle cannot be opened.
  ArgSet(const DecodedJob& job, const uint64_t* counts, const unsigned char (*handles)[64], const uint8_t* has_handle,
         const uint64_t* offsets);
  ~ArgSet();

  // The IPC handle of buffer `i`'s allocation (64 bytes), for a server to map. Throws HarnessError.
  void ipc_handle(size_t i, unsigned char out[64]) const;
  // Where buffer `i` starts in its allocation (what a server adds to the mapped base).
  size_t data_offset(size_t i) const { return layouts_[i].data_offset; }
  // Device memory the buffers take with their guards.
  size_t allocated_bytes() const;
  // The guard zones a variant's kernels changed since the set was allocated, one per zone
  // (checked on the GPU; read back only as counts). Empty for a mapped set.
  std::vector<GuardViolation> guard_violations() const;
  ArgSet(const ArgSet&) = delete;
  ArgSet& operator=(const ArgSet&) = delete;

  void** args() { return pointers_.data(); }
  size_t size_index() const { return size_index_; }
  const DecodedArg& arg(size_t i) const { return job_.args[i]; }
  size_t arg_count() const { return job_.args.size(); }

  size_t count(size_t i) const { return counts_[i]; }
  size_t bytes(size_t i) const { return counts_[i] * dtype_size(job_.args[i].type); }
  void* device(size_t i) const { return device_[i]; }
  size_t total_bytes() const;

  // Host value of scalar/size `i` (stored in the argument's own type).
  void set_scalar(size_t i, double value);
  // The cudaStream_t that stream argument `i` passes (a server's LauncherStream; null until set).
  void set_stream(size_t i, cudaStream_t stream);
  double scalar(size_t i) const { return scalar_values_[i]; }

  // Synchronous copies on the legacy default stream (verification needs them complete).
  void upload(size_t i, const HostBuffer& data);
  HostBuffer download(size_t i) const;
  void poison(size_t i);  // the dtype's poison pattern in every element
  void poison_outputs();  // every output and workspace (not inout): asynchronously, on the legacy stream

 private:
  ArgSet(const DecodedJob& job, size_t size_index, bool mapped);  // empty slots, sized for the job
  void release();
  bool mapped_ = false;  // buffers belong to the judge: closed, not freed

  const DecodedJob& job_;
  size_t size_index_;
  std::vector<size_t> counts_;
  std::vector<void*> device_;      // each buffer's first byte
  std::vector<void*> allocation_;  // its allocation (what IPC exports and cudaFree takes)
  std::vector<GuardedLayout> layouts_;
  void* guards_ = nullptr;  // the judge's: GuardZone[guard_zones_], then GuardFinding[guard_zones_]
  int guard_zones_ = 0;
  void allocate(size_t i, size_t shift, Guards guards);
  void fill_guards();
  std::vector<uint64_t> scalar_storage_;  // 8 bytes per argument: every scalar type, or a cudaStream_t
  std::vector<double> scalar_values_;
  std::vector<void*> pointers_;
};

}  // namespace kb::judge
