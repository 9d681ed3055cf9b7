// Host entry points of the harness's own device code (harness_kernels.cu), callable from g++
// code: the stream-blocking kernel used for timing, the poison fill, a stream probe and the
// calibration kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kb::judge {

// Holds `stream` until the host writes 1 to *release (host-mapped memory) or `timeout_ns` of
// GPU time pass; sets *timed_out to 1 in the second case. Lets the timed region start on the
// GPU only after every launch of a sample has been queued, so host launch latency stays out.
cudaError_t launch_blocking_kernel(volatile int32_t* release, volatile int32_t* timed_out, uint64_t timeout_ns,
                                   cudaStream_t stream);

// Writes `count` elements of `elem_size` bytes (1, 2, 4 or 8), each holding `pattern`.
cudaError_t launch_fill_pattern(void* dst, size_t count, unsigned elem_size, uint64_t pattern, cudaStream_t stream);

// Evicts the L2 cache by reading `bytes` (a multiple of 16) from `buffer`: afterwards the L2
// holds clean lines of that buffer, so the next kernel starts cold and pays no write-backs of
// someone else's dirty lines (a memset flush would leave the cache full of them).
cudaError_t launch_l2_flush(const void* buffer, size_t bytes, int* sink, cudaStream_t stream);

// A trivial kernel, launched on a stream to learn that stream's CUPTI stream id.
cudaError_t launch_probe_kernel(cudaStream_t stream);

// The two brackets of a traced call (traced_call.h), kernels whose names only the harness uses:
// a gate that holds `stream` until the host writes 1 to *open (host-mapped) or `timeout_ns` of
// GPU time pass (then *timed_out = 1), and an empty marker whose start time is when everything
// queued before it on `stream` was done.
inline constexpr const char* kCallGateKernelName = "call_gate_kernel";
inline constexpr const char* kCallMarkerKernelName = "call_marker_kernel";
cudaError_t launch_call_gate(volatile int32_t* open, volatile int32_t* timed_out, uint64_t timeout_ns,
                             cudaStream_t stream);
cudaError_t launch_call_marker(cudaStream_t stream);

// FP32 FFMA throughput kernel: `blocks` x `threads`, each thread runs 8 independent FMA chains
// of `iterations` steps. Returns the FLOP count it performs through *flops.
cudaError_t launch_ffma_kernel(int blocks, int threads, int iterations, float* sink, double* flops,
                               cudaStream_t stream);

}  // namespace kb::judge
