// What a variant's own CUDA API calls did while a window was open, seen through CUPTI's callback
// API (runtime, driver and resource domains): the resources it created and did not release
// (device and host allocations, events, streams, graphs), and the first API call that failed.
// Runs in a variant server. The contract passes use it: the ledger (ledger_pass.h) counts what
// many calls leave behind; graph capture (graph_capture_pass.h) names the call that broke a
// capture.
//
// Resources are tracked by handle, so a call the runtime makes through the driver (reported in
// both domains) counts once, and releasing a resource created before the window counts against
// one created inside it: a launcher that replaces its buffer every call leaves nothing behind.
// CUPTI allows one subscriber per process: the window subscribes and unsubscribes, so the
// hardware-metrics collection outside it is unaffected.
#pragma once

#include <cstdint>
#include <string>

namespace kb::judge {

// Resources created in a window and still alive at its end, minus those alive before it that it
// released. Negative: the window released more than it created.
struct ResourceBalance {
  int64_t allocations = 0;
  uint64_t allocated_bytes = 0;  // of the allocations made in the window and still alive
  int64_t events = 0;
  int64_t streams = 0;
  int64_t graphs = 0;
  int64_t graph_execs = 0;
};

// Open while alive. One at a time per process. Throws HarnessError when CUPTI refuses (another
// subscriber holds it).
class ApiWindow {
 public:
  ApiWindow();
  ~ApiWindow();
  ApiWindow(const ApiWindow&) = delete;
  ApiWindow& operator=(const ApiWindow&) = delete;

  ResourceBalance balance() const;
  // "cudaStreamSynchronize returned cudaErrorStreamCaptureUnsupported (operation not permitted when
  // stream is capturing)": the first runtime call that failed in the window (else the first driver
  // call), or empty. Calls that only report an earlier error (cudaGetLastError) are not counted.
  std::string first_failure() const;
  // "cudaMalloc": the first CUDA call the process made in the window, runtime, or driver called
  // directly (not the runtime's own driver calls), the runtime's registration of a loaded
  // library's kernels (__cudaRegister*) aside; empty when it made none.
  std::string first_call() const;
};

}  // namespace kb::judge
