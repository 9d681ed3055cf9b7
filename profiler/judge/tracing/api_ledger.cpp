#include "profiler/judge/tracing/api_ledger.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "profiler/judge/runtime/cuda_check.h"

namespace kb::judge {
namespace {

enum class Kind { allocation, event, stream, graph, graph_exec };

// Handles created in the window (with bytes for allocations) and handles created before it that
// it released, per kind.
struct Tally {
  std::map<std::pair<Kind, uintptr_t>, uint64_t> alive;
  std::set<std::pair<Kind, uintptr_t>> released_earlier, released_here;
  std::string first_runtime_failure, first_driver_failure;
  std::string first_call;
};

std::recursive_mutex g_mutex;
// The callback's own runtime calls (cudaGetErrorName) are traced too: they are not the variant's.
thread_local bool t_in_callback = false;
// Runtime calls under way on this thread: a driver call made inside one is the runtime's own.
thread_local int t_runtime_depth = 0;

Tally* g_tally = nullptr;
CUpti_SubscriberHandle g_subscriber = nullptr;

void note_first_call(const char* name) {
  if (!g_tally->first_call.empty() || !name) return;
  if (std::string(name).starts_with("__cuda")) return;  // the runtime registering a library's kernels
  g_tally->first_call = name;
}

void created(Kind k, uintptr_t handle, uint64_t bytes = 0) {
  if (handle == 0) return;
  g_tally->alive[{k, handle}] = bytes;
  g_tally->released_here.erase({k, handle});
}

void released(Kind k, uintptr_t handle) {
  if (handle == 0) return;
  const std::pair key{k, handle};
  if (g_tally->alive.erase(key) > 0) {
    g_tally->released_here.insert(key);
  } else if (!g_tally->released_here.contains(key)) {
    g_tally->released_earlier.insert(key);  // a runtime call's driver echo finds it in released_here
  }
}

template <typename T>
uintptr_t handle_of(T h) {
  return reinterpret_cast<uintptr_t>(h);
}

void runtime_call(CUpti_CallbackId id, const CUpti_CallbackData* d) {
  const void* p = d->functionParams;
  if (d->callbackSite == CUPTI_API_ENTER) note_first_call(d->functionName);
  if (d->callbackSite == CUPTI_API_ENTER) {
    switch (id) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
        released(Kind::allocation, handle_of(static_cast<const cudaFree_v3020_params*>(p)->devPtr));
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
        released(Kind::allocation, handle_of(static_cast<const cudaFreeHost_v3020_params*>(p)->ptr));
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        released(Kind::allocation, handle_of(static_cast<const cudaFreeAsync_v11020_params*>(p)->devPtr));
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
        released(Kind::event, handle_of(static_cast<const cudaEventDestroy_v3020_params*>(p)->event));
        break;
      default: break;
    }
    return;
  }
  const cudaError_t result = *static_cast<const cudaError_t*>(d->functionReturnValue);
  if (result != cudaSuccess) {
    const bool reports_earlier = id == CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020 ||
                                 id == CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020;
    if (!reports_earlier && g_tally->first_runtime_failure.empty())
      g_tally->first_runtime_failure = std::string(d->functionName) + " returned " + cudaGetErrorName(result) + " (" +
                                       cudaGetErrorString(result) + ")";
    return;
  }
  auto allocated = [&](void* const* where, size_t bytes) {
    if (where) created(Kind::allocation, handle_of(*where), bytes);
  };
  switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
      const auto* a = static_cast<const cudaMalloc_v3020_params*>(p);
      allocated(a->devPtr, a->size);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
      const auto* a = static_cast<const cudaMallocPitch_v3020_params*>(p);
      allocated(a->devPtr, a->pitch ? *a->pitch * a->height : 0);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
      const auto* a = static_cast<const cudaMallocHost_v3020_params*>(p);
      allocated(a->ptr, a->size);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
      const auto* a = static_cast<const cudaHostAlloc_v3020_params*>(p);
      allocated(a->pHost, a->size);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
      const auto* a = static_cast<const cudaMallocManaged_v6000_params*>(p);
      allocated(a->devPtr, a->size);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
      const auto* a = static_cast<const cudaMallocAsync_v11020_params*>(p);
      allocated(a->devPtr, a->size);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020: {
      const auto* a = static_cast<const cudaMallocFromPoolAsync_v11020_params*>(p);
      allocated(a->ptr, a->size);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020: {
      const auto* a = static_cast<const cudaEventCreate_v3020_params*>(p);
      if (a->event) created(Kind::event, handle_of(*a->event));
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020: {
      const auto* a = static_cast<const cudaEventCreateWithFlags_v3020_params*>(p);
      if (a->event) created(Kind::event, handle_of(*a->event));
      break;
    }
    default: break;
  }
}

void driver_call(CUpti_CallbackId id, const CUpti_CallbackData* d) {
  const void* p = d->functionParams;
  if (d->callbackSite == CUPTI_API_ENTER) {
    switch (id) {
      case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        released(Kind::allocation, static_cast<uintptr_t>(static_cast<const cuMemFree_v2_params*>(p)->dptr));
        break;
      case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
        released(Kind::allocation, static_cast<uintptr_t>(static_cast<const cuMemFreeAsync_params*>(p)->dptr));
        break;
      case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
        released(Kind::event, handle_of(static_cast<const cuEventDestroy_v2_params*>(p)->hEvent));
        break;
      default: break;
    }
    return;
  }
  const CUresult result = *static_cast<const CUresult*>(d->functionReturnValue);
  if (result != CUDA_SUCCESS) {
    // No cuGetErrorName: the harness does not link the driver library (it starts without one).
    if (g_tally->first_driver_failure.empty())
      g_tally->first_driver_failure = std::string(d->functionName) + " returned CUresult " + std::to_string(result);
    return;
  }
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
      const auto* a = static_cast<const cuMemAlloc_v2_params*>(p);
      if (a->dptr) created(Kind::allocation, static_cast<uintptr_t>(*a->dptr), a->bytesize);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: {
      const auto* a = static_cast<const cuMemAllocAsync_params*>(p);
      if (a->dptr) created(Kind::allocation, static_cast<uintptr_t>(*a->dptr), a->bytesize);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventCreate: {
      const auto* a = static_cast<const cuEventCreate_params*>(p);
      if (a->phEvent) created(Kind::event, handle_of(*a->phEvent));
      break;
    }
    default: break;
  }
}

void resource_event(CUpti_CallbackId id, const void* data) {
  switch (id) {
    case CUPTI_CBID_RESOURCE_STREAM_CREATED:
      created(Kind::stream, handle_of(static_cast<const CUpti_ResourceData*>(data)->resourceHandle.stream));
      break;
    case CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING:
      released(Kind::stream, handle_of(static_cast<const CUpti_ResourceData*>(data)->resourceHandle.stream));
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
      created(Kind::graph, handle_of(static_cast<const CUpti_GraphData*>(data)->graph));
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING:
      released(Kind::graph, handle_of(static_cast<const CUpti_GraphData*>(data)->graph));
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
      created(Kind::graph_exec, handle_of(static_cast<const CUpti_GraphData*>(data)->graphExec));
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
      released(Kind::graph_exec, handle_of(static_cast<const CUpti_GraphData*>(data)->graphExec));
      break;
    default: break;
  }
}

void CUPTIAPI on_callback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (t_in_callback) return;
  const std::lock_guard lock(g_mutex);
  if (!g_tally) return;
  t_in_callback = true;
  struct Reset {
    ~Reset() { t_in_callback = false; }
  } reset;
  switch (domain) {
    case CUPTI_CB_DOMAIN_RUNTIME_API: {
      const auto* d = static_cast<const CUpti_CallbackData*>(data);
      if (d->callbackSite == CUPTI_API_EXIT && t_runtime_depth > 0) --t_runtime_depth;
      runtime_call(id, d);
      if (d->callbackSite == CUPTI_API_ENTER) ++t_runtime_depth;
      break;
    }
    case CUPTI_CB_DOMAIN_DRIVER_API: {
      const auto* d = static_cast<const CUpti_CallbackData*>(data);
      if (d->callbackSite == CUPTI_API_ENTER && t_runtime_depth == 0) note_first_call(d->functionName);
      driver_call(id, d);
      break;
    }
    case CUPTI_CB_DOMAIN_RESOURCE: resource_event(id, data); break;
    default: break;
  }
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  throw HarnessError(std::string("CUPTI ") + what + " failed: " + (text ? text : "unknown error"));
}

}  // namespace

ApiWindow::ApiWindow() {
  const std::lock_guard lock(g_mutex);
  if (g_tally) throw HarnessError("an API window is already open");
  check(cuptiSubscribe(&g_subscriber, on_callback, nullptr), "callback subscription");
  for (const CUpti_CallbackDomain d :
       {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RESOURCE}) {
    const CUptiResult r = cuptiEnableDomain(1, g_subscriber, d);
    if (r != CUPTI_SUCCESS) {
      cuptiUnsubscribe(g_subscriber);
      g_subscriber = nullptr;
      check(r, "enabling a callback domain");
    }
  }
  g_tally = new Tally;
}

ApiWindow::~ApiWindow() {
  CUpti_SubscriberHandle subscriber = nullptr;
  {
    const std::lock_guard lock(g_mutex);
    delete g_tally;
    g_tally = nullptr;
    subscriber = g_subscriber;
    g_subscriber = nullptr;
  }
  if (subscriber) cuptiUnsubscribe(subscriber);
}

ResourceBalance ApiWindow::balance() const {
  const std::lock_guard lock(g_mutex);
  ResourceBalance b;
  auto count = [&](Kind k, int64_t& n) {
    for (const auto& [key, bytes] : g_tally->alive)
      if (key.first == k) {
        ++n;
        if (k == Kind::allocation) b.allocated_bytes += bytes;
      }
    for (const auto& key : g_tally->released_earlier)
      if (key.first == k) --n;
  };
  count(Kind::allocation, b.allocations);
  count(Kind::event, b.events);
  count(Kind::stream, b.streams);
  count(Kind::graph, b.graphs);
  count(Kind::graph_exec, b.graph_execs);
  return b;
}

std::string ApiWindow::first_call() const {
  const std::lock_guard lock(g_mutex);
  return g_tally->first_call;
}

std::string ApiWindow::first_failure() const {
  const std::lock_guard lock(g_mutex);
  return g_tally->first_runtime_failure.empty() ? g_tally->first_driver_failure : g_tally->first_runtime_failure;
}

}  // namespace kb::judge
