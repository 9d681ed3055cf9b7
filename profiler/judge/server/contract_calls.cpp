#include "profiler/judge/server/contract_calls.h"

#include <dirent.h>

#include <string>
#include <thread>

#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/tracing/api_ledger.h"
#include "profiler/judge/tracing/ledger_compare.h"

namespace kb::judge {
namespace {

std::string error_name(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

// Throws VariantFault when the context was lost (a sticky error): nothing more can run here.
void throw_if_context_lost(Who who, const std::string& what) {
  if (cudaDeviceSynchronize() == cudaSuccess) return;
  throw VariantFault(who, true, what);
}

int64_t host_threads() {
  int64_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

}  // namespace

DeviceSettings device_settings(cudaStream_t stream) {
  std::map<std::string, std::string> s;
  auto put = [&](const char* name, cudaError_t e, const std::string& value) {
    s[name] = e == cudaSuccess ? value : "unavailable";
    if (e != cudaSuccess) (void)cudaGetLastError();
  };
  int device = -1;
  put("the current device", cudaGetDevice(&device), std::to_string(device));
  unsigned flags = 0;
  put("the device flags", cudaGetDeviceFlags(&flags), std::to_string(flags));
  cudaFuncCache cache{};
  put("the cache configuration", cudaDeviceGetCacheConfig(&cache), std::to_string(static_cast<int>(cache)));
  // Only what this device supports is asked: a refused query is an API error compute-sanitizer
  // reports in every variant's run (seen on an H200: cudaLimitDevRuntimeSyncDepth, which sm_90
  // does not support, made memcheck find an "error" in the original and the candidate alike).
  int persisting_l2 = 0, pools = 0;
  if (cudaDeviceGetAttribute(&persisting_l2, cudaDevAttrMaxPersistingL2CacheSize, device) != cudaSuccess)
    persisting_l2 = 0;
  if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) pools = 0;
  const std::pair<const char*, cudaLimit> limits[] = {
      {"cudaLimitStackSize", cudaLimitStackSize},
      {"cudaLimitPrintfFifoSize", cudaLimitPrintfFifoSize},
      {"cudaLimitMallocHeapSize", cudaLimitMallocHeapSize},
      {"cudaLimitMaxL2FetchGranularity", cudaLimitMaxL2FetchGranularity},
  };
  for (const auto& [name, limit] : limits) {
    size_t value = 0;
    put(name, cudaDeviceGetLimit(&value, limit), std::to_string(value));
  }
  if (persisting_l2 > 0) {
    size_t value = 0;
    put("cudaLimitPersistingL2CacheSize", cudaDeviceGetLimit(&value, cudaLimitPersistingL2CacheSize),
        std::to_string(value));
  }
  if (pools) {
    cudaMemPool_t pool = nullptr;
    uint64_t threshold = 0;
    cudaError_t e = cudaDeviceGetDefaultMemPool(&pool, device);
    if (e == cudaSuccess) e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    put("the default memory pool's release threshold", e, std::to_string(threshold));
  }
  if (stream && persisting_l2 > 0) {
    cudaStreamAttrValue window{};
    const cudaError_t w = cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window);
    put("the caller's stream's L2 access policy window", w,
        std::to_string(window.accessPolicyWindow.num_bytes) + " bytes at " +
            std::to_string(reinterpret_cast<uintptr_t>(window.accessPolicyWindow.base_ptr)));
  }
  return s;
}

namespace {

void wait_for(cudaStream_t stream, Who who, const char* what) {
  CallScope scope(who, "");
  check_variant_sync(stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize(), who, what);
}

// What becomes of an error left pending before one more call.
std::string pending_error_after_call(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream) {
  (void)cudaGetLastError();
  cudaDeviceProp props{};
  const cudaError_t planted = cudaGetDeviceProperties(&props, -1);  // an invalid device: fails, harmlessly
  if (planted == cudaSuccess || cudaPeekAtLastError() != planted)
    return "not tested: the runtime kept no error to leave pending";
  int rc = 0;
  {
    CallScope scope(who, "");
    rc = fn(slot.args());
  }
  const cudaError_t done = stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize();
  if (done != cudaSuccess) check_variant_sync(done, who, "(a call with an error pending)");
  const cudaError_t after = cudaGetLastError();
  if (rc != 0) return "the launcher returned " + std::to_string(rc);
  if (after == planted) return "kept";
  if (after == cudaSuccess) return "cleared";
  return "replaced by " + std::string(cudaGetErrorName(after));
}

}  // namespace

Reply capture_one_call(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream, cudaGraphExec_t* exec) {
  if (*exec) cudaGraphExecDestroy(*exec);
  *exec = nullptr;
  wait_for(stream, who, "before a capture");
  (void)cudaGetLastError();
  cudaGraph_t graph = nullptr;
  int rc = 0;
  cudaError_t end = cudaSuccess;
  std::string first_failure;
  {
    ApiWindow window;
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "beginning a capture");
    {
      CallScope scope(who, "");
      rc = fn(slot.args());
    }
    end = cudaStreamEndCapture(stream, &graph);
    first_failure = window.first_failure();
  }
  const cudaError_t left = cudaGetLastError();  // a failed capture leaves a non-sticky error behind
  std::string broke;
  if (end != cudaSuccess || left != cudaSuccess || rc != 0 || !graph) {
    if (!first_failure.empty()) broke = first_failure;
    else if (rc != 0) broke = "kb_launch returned " + std::to_string(rc) + " under capture";
    else broke = "cudaStreamEndCapture returned " + error_name(end != cudaSuccess ? end : left);
  } else if (const cudaError_t made = cudaGraphInstantiate(exec, graph, 0); made != cudaSuccess) {
    broke = "cudaGraphInstantiate returned " + error_name(made);
    *exec = nullptr;
  }
  if (graph) cudaGraphDestroy(graph);
  if (broke.empty()) return make_reply(Status::ok, "", 1);
  (void)cudaGetLastError();
  throw_if_context_lost(who, "the context was lost during a capture: " + broke);
  return make_reply(Status::ok, broke, 0);
}

Reply replay_graph(cudaGraphExec_t exec, Who who, cudaStream_t stream) {
  if (!exec) throw HarnessError("no captured graph to replay");
  cudaError_t e = cudaSuccess;
  {
    CallScope scope(who, "");
    e = cudaGraphLaunch(exec, stream);
  }
  check_variant_sync(e, who, "launching the captured graph");
  wait_for(stream, who, "replaying the captured graph");
  return make_reply(Status::ok);
}

Reply call_concurrently(EntryFn fn, Who who, ArgSet& first, cudaStream_t first_stream, ArgSet& second,
                        cudaStream_t second_stream, bool threads) {
  if (!threads) {
    int rc1 = 0, rc2 = 0;
    {
      CallScope scope(who, "");
      rc1 = fn(first.args());
      rc2 = fn(second.args());
    }
    const cudaError_t launch = cudaPeekAtLastError();
    if (launch != cudaSuccess) check_variant_sync(launch, who, "at launch (two calls at once)");
    if (rc1 != 0 || rc2 != 0)
      throw VariantFault(who, false, "kb_launch returned " + std::to_string(rc1 != 0 ? rc1 : rc2));
    wait_for(first_stream, who, "(the first of two calls at once)");
    wait_for(second_stream, who, "(the second of two calls at once)");
    return make_reply(Status::ok);
  }
  struct Outcome {
    int rc = 0;
    cudaError_t launch = cudaSuccess, done = cudaSuccess;
  } a, b;
  int device = 0;
  cuda_check(cudaGetDevice(&device), "reading the current device");
  auto caller = [fn, device](ArgSet* set, cudaStream_t stream, Outcome* out) {
    // A caller's thread selects its device first, as any program's threads must.
    if (cudaSetDevice(device) != cudaSuccess) {
      out->launch = cudaErrorInvalidDevice;
      return;
    }
    out->rc = fn(set->args());
    out->launch = cudaPeekAtLastError();
    out->done = stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize();
  };
  {
    CallScope scope(who, "");
    std::thread t1(caller, &first, first_stream, &a);
    std::thread t2(caller, &second, second_stream, &b);
    t1.join();
    t2.join();
  }
  for (const Outcome* o : {&a, &b}) {
    if (o->launch != cudaSuccess) check_variant_sync(o->launch, who, "at launch (two host threads)");
    if (o->done != cudaSuccess) check_variant_sync(o->done, who, "(two host threads)");
    if (o->rc != 0)
      throw VariantFault(who, false, "kb_launch returned " + std::to_string(o->rc) + " (two host threads)");
  }
  return make_reply(Status::ok);
}

Reply ledger_calls(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream, int calls, const BeforeTheCalls& before) {
  const DeviceSettings& initial = before.settings;
  // Warm-up: what a launcher sets up once (a workspace it keeps, a kernel's local memory) is not
  // held against it.
  for (int k = 0; k < 2; ++k) {
    call_variant(fn, slot.args(), who);
    wait_for(stream, who, "(a warm-up call of the ledger)");
  }
  const int64_t threads_before = host_threads();
  Ledger l;
  l.calls = calls;
  {
    ApiWindow window;
    for (int k = 0; k < calls; ++k) {
      call_variant(fn, slot.args(), who);
      wait_for(stream, who, "(a call of the ledger)");
    }
    const ResourceBalance b = window.balance();
    l.allocations = b.allocations;
    l.allocated_bytes = b.allocated_bytes;
    l.events = b.events;
    l.streams = b.streams;
    l.graphs = b.graphs;
    l.graph_execs = b.graph_execs;
  }
  l.threads = host_threads() - threads_before;
  l.load = before.load;
  for (const auto& [name, after] : device_settings(stream)) {
    const auto it = initial.find(name);
    const std::string was = it == initial.end() ? "unset" : it->second;
    if (was != after) l.changed_settings[name] = was + " -> " + after;
  }
  return make_reply(Status::ok, ledger_to_note(l));
}

Reply call_with_error_pending(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream) {
  return make_reply(Status::ok, pending_error_after_call(fn, who, slot, stream));
}

}  // namespace kb::judge
