#include "profiler/judge/server/gpu_slice.h"

#include "profiler/judge/runtime/cuda_check.h"

namespace kb::judge {
namespace {

// A driver function by name, in the ABI of the CUDA headers this file was compiled with (green
// contexts came in 12.4, their streams in 12.5); nullptr when the driver has none.
template <class Fn>
Fn driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, CUDART_VERSION, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

struct GreenApi {
  CUresult (*get_resource)(CUdevice, CUdevResource*,
                           CUdevResourceType) = driver_entry<decltype(get_resource)>("cuDeviceGetDevResource");
  CUresult (*split)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned,
                    unsigned) = driver_entry<decltype(split)>("cuDevSmResourceSplitByCount");
  CUresult (*describe)(CUdevResourceDesc*, CUdevResource*,
                       unsigned) = driver_entry<decltype(describe)>("cuDevResourceGenerateDesc");
  CUresult (*create)(CUgreenCtx*, CUdevResourceDesc, CUdevice,
                     unsigned) = driver_entry<decltype(create)>("cuGreenCtxCreate");
  CUresult (*destroy)(CUgreenCtx) = driver_entry<decltype(destroy)>("cuGreenCtxDestroy");
  CUresult (*as_context)(CUcontext*, CUgreenCtx) = driver_entry<decltype(as_context)>("cuCtxFromGreenCtx");
  CUresult (*green_resource)(CUgreenCtx, CUdevResource*,
                             CUdevResourceType) = driver_entry<decltype(green_resource)>("cuGreenCtxGetDevResource");
  CUresult (*stream_create)(CUstream*, CUgreenCtx, unsigned,
                            int) = driver_entry<decltype(stream_create)>("cuGreenCtxStreamCreate");
  CUresult (*set_current)(CUcontext) = driver_entry<decltype(set_current)>("cuCtxSetCurrent");
  CUresult (*get_current)(CUcontext*) = driver_entry<decltype(get_current)>("cuCtxGetCurrent");

  bool complete() const {
    return get_resource && split && describe && create && destroy && as_context && green_resource && stream_create &&
           set_current && get_current;
  }
};

const GreenApi& green_api() {
  static const GreenApi api;
  return api;
}

std::string driver_error(const char* call, CUresult r) { return std::string(call) + " returned " + std::to_string(r); }

// Makes the thread's context at construction current again at destruction.
class RestoreContext {
 public:
  RestoreContext() { green_api().get_current(&saved_); }
  ~RestoreContext() { green_api().set_current(saved_); }
  RestoreContext(const RestoreContext&) = delete;
  RestoreContext& operator=(const RestoreContext&) = delete;

 private:
  CUcontext saved_ = nullptr;
};

}  // namespace

std::unique_ptr<GpuSlice> GpuSlice::create(int device, unsigned min_sms, std::string* why) {
  const GreenApi& api = green_api();
  if (!api.complete()) {
    *why = "this CUDA driver has no green contexts with streams of their own (CUDA 12.5 or later)";
    return nullptr;
  }
  CUdevResource all{};
  if (CUresult r = api.get_resource(device, &all, CU_DEV_RESOURCE_TYPE_SM); r != CUDA_SUCCESS) {
    *why = driver_error("cuDeviceGetDevResource", r);
    return nullptr;
  }
  CUdevResource part{};
  unsigned groups = 1;
  if (CUresult r = api.split(&part, &groups, &all, nullptr, 0, min_sms); r != CUDA_SUCCESS || groups < 1) {
    *why = driver_error("cuDevSmResourceSplitByCount", r);
    return nullptr;
  }
  if (part.sm.smCount >= all.sm.smCount) {
    *why = "the GPU's " + std::to_string(all.sm.smCount) + " SMs cannot be split into a smaller slice";
    return nullptr;
  }
  CUdevResourceDesc desc{};
  if (CUresult r = api.describe(&desc, &part, 1); r != CUDA_SUCCESS) {
    *why = driver_error("cuDevResourceGenerateDesc", r);
    return nullptr;
  }
  std::unique_ptr<GpuSlice> slice(new GpuSlice());
  if (CUresult r = api.create(&slice->green_, desc, device, CU_GREEN_CTX_DEFAULT_STREAM); r != CUDA_SUCCESS) {
    *why = driver_error("cuGreenCtxCreate", r);
    return nullptr;
  }
  CUdevResource got{};
  CUstream stream = nullptr;
  if (CUresult r = api.as_context(&slice->context_, slice->green_); r != CUDA_SUCCESS) {
    *why = driver_error("cuCtxFromGreenCtx", r);
    return nullptr;
  }
  if (CUresult r = api.green_resource(slice->green_, &got, CU_DEV_RESOURCE_TYPE_SM); r != CUDA_SUCCESS) {
    *why = driver_error("cuGreenCtxGetDevResource", r);
    return nullptr;
  }
  if (CUresult r = api.stream_create(&stream, slice->green_, CU_STREAM_NON_BLOCKING, 0); r != CUDA_SUCCESS) {
    *why = driver_error("cuGreenCtxStreamCreate", r);
    return nullptr;
  }
  slice->stream_ = reinterpret_cast<cudaStream_t>(stream);
  slice->sms_ = got.sm.smCount;
  slice->device_sms_ = all.sm.smCount;
  return slice;
}

GpuSlice::~GpuSlice() {
  if (stream_) cudaStreamDestroy(stream_);
  if (green_) green_api().destroy(green_);
}

Reply call_on_slice(EntryFn fn, Who who, ArgSet& slot, const GpuSlice& slice) {
  for (size_t i = 0; i < slot.arg_count(); ++i)
    if (slot.arg(i).is_stream()) slot.set_stream(i, slice.stream());
  RestoreContext restore;
  (void)cudaGetLastError();
  cuda_check(cudaStreamSynchronize(slice.stream()), "waiting for the slice's stream");
  if (CUresult r = green_api().set_current(slice.context()); r != CUDA_SUCCESS)
    throw HarnessError(driver_error("cuCtxSetCurrent (the slice's context)", r));
  int rc = 0;
  {
    CallScope scope(who, "");
    rc = fn(slot.args());
  }
  const cudaError_t launch = cudaPeekAtLastError();
  if (launch != cudaSuccess) check_variant_sync(launch, who, "at launch (on a slice of the GPU)");
  if (rc != 0) throw VariantFault(who, false, "kb_launch returned " + std::to_string(rc) + " on a slice of the GPU");
  {
    CallScope scope(who, "");
    check_variant_sync(cudaStreamSynchronize(slice.stream()), who, "(on a slice of the GPU)");
    // Work the launcher queued on the slice's default stream (no stream argument, or the legacy
    // stream beside it) is waited for too: cudaDeviceSynchronize waits for the current context.
    check_variant_sync(cudaDeviceSynchronize(), who, "(on a slice of the GPU)");
  }
  return make_reply(Status::ok, "", slice.sm_count(), slice.device_sm_count());
}

}  // namespace kb::judge
