#include "profiler/judge/tracing/metrics_collector.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace kb::judge {
namespace {

constexpr size_t kMaxRanges = 64;  // kernels per launcher call that get their own range

const char* const kPrivilegeHelp =
    "insufficient privileges: the driver restricts GPU performance counters to administrators. Grant them with "
    "the nvidia kernel module option NVreg_RestrictProfilingToAdminUsers=0 (e.g. in /etc/modprobe.d, then reload "
    "the module or reboot), run kernelbot as root, or give its container CAP_SYS_ADMIN (docker run --cap-add "
    "SYS_ADMIN)";

// A zeroed CUPTI parameter block with its structSize set.
template <typename T>
T params(size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}
#define KB_CUPTI_PARAMS(T) params<T>(T##_STRUCT_SIZE)

// A failed CUPTI step, carrying the status text for KernelMetrics.
struct MetricsUnavailable {
  std::string status;
};

std::string cupti_text(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

void check(CUptiResult r, const char* step) {
  if (r == CUPTI_SUCCESS) return;
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) throw MetricsUnavailable{kPrivilegeHelp};
  throw MetricsUnavailable{std::string("CUPTI ") + step + " failed: " + cupti_text(r)};
}

// The Profiler Host object: turns metric names into a config image and evaluates counter data.
class HostObject {
 public:
  HostObject(const std::string& chip, std::vector<uint8_t>& availability) {
    auto p = KB_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.data();
    check(cuptiProfilerHostInitialize(&p), "profiler host initialization");
    object_ = p.pHostObject;
  }
  ~HostObject() {
    auto p = KB_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = object_;
    cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  CUptiResult add(std::vector<const char*>& names) {
    auto p = KB_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    p.pHostObject = object_;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    return cuptiProfilerHostConfigAddMetrics(&p);
  }

  std::vector<uint8_t> config_image() {
    auto size = KB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = object_;
    check(cuptiProfilerHostGetConfigImageSize(&size), "config image size");
    std::vector<uint8_t> image(size.configImageSize);
    auto p = KB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    p.pHostObject = object_;
    p.pConfigImage = image.data();
    p.configImageSize = image.size();
    check(cuptiProfilerHostGetConfigImage(&p), "config image");
    return image;
  }

  std::vector<double> evaluate(std::vector<uint8_t>& data, size_t range, std::vector<const char*>& names) {
    std::vector<double> values(names.size(), 0);
    auto p = KB_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = object_;
    p.pCounterDataImage = data.data();
    p.counterDataImageSize = data.size();
    p.rangeIndex = range;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    p.pMetricValues = values.data();
    check(cuptiProfilerHostEvaluateToGpuValues(&p), "metric evaluation");
    return values;
  }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// Range profiling enabled on a context, disabled again on scope exit.
class RangeProfiler {
 public:
  explicit RangeProfiler(CUcontext ctx) {
    auto p = KB_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    check(cuptiRangeProfilerEnable(&p), "range profiler enable");
    object_ = p.pRangeProfilerObject;
  }
  ~RangeProfiler() {
    if (std::uncaught_exceptions() > 0) return;  // a crashed variant: leave the dead context alone
    auto p = KB_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = object_;
    cuptiRangeProfilerDisable(&p);
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;
  CUpti_RangeProfiler_Object* get() const { return object_; }

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

std::vector<uint8_t> counter_availability(CUcontext ctx) {
  auto p = KB_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  p.ctx = ctx;
  check(cuptiProfilerGetCounterAvailability(&p), "counter availability");
  std::vector<uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  check(cuptiProfilerGetCounterAvailability(&p), "counter availability");
  return image;
}

// The metrics this chip accepts (each tried on top of those already accepted), and the rest.
std::vector<const char*> supported_metrics(const std::string& chip, std::vector<uint8_t>& availability,
                                           std::vector<std::string>& rejected) {
  std::vector<const char*> all;
  for (const auto& m : collected_metrics()) all.push_back(m.cupti);
  {
    HostObject host(chip, availability);
    if (host.add(all) == CUPTI_SUCCESS) return all;
  }
  std::vector<const char*> accepted;
  for (const char* name : all) {
    std::vector<const char*> trial = accepted;
    trial.push_back(name);
    HostObject host(chip, availability);
    if (host.add(trial) == CUPTI_SUCCESS) accepted = trial;
    else rejected.push_back(name);
  }
  return accepted;
}

// The runtime's current context, through the driver entry point the runtime hands out: the
// harness does not link libcuda itself, so it starts (and says why it cannot work) on a machine
// without a driver.
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaFree(nullptr) != cudaSuccess ||
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, CUDART_VERSION, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess || !fn)
    return nullptr;
  CUcontext ctx = nullptr;
  return reinterpret_cast<GetCurrent>(fn)(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
}

}  // namespace

KernelMetrics collect_metrics(EntryFn fn, ArgSet& args, Who who, int device) {
  KernelMetrics m;
  try {
    auto init = KB_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    check(cuptiProfilerInitialize(&init), "profiler initialization");
    struct Deinitialize {
      ~Deinitialize() {
        if (std::uncaught_exceptions() > 0) return;  // a crashed variant: the process is about to end
        auto p = KB_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
        cuptiProfilerDeInitialize(&p);
      }
    } deinitialize;
    CUcontext ctx = current_context();
    if (!ctx) throw MetricsUnavailable{"no current CUDA context to profile"};
    auto chip_params = KB_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip_params.deviceIndex = static_cast<size_t>(device);
    check(cuptiDeviceGetChipName(&chip_params), "chip name");
    const std::string chip = chip_params.pChipName ? chip_params.pChipName : "";
    std::vector<uint8_t> availability = counter_availability(ctx);

    std::vector<std::string> rejected;
    std::vector<const char*> names = supported_metrics(chip, availability, rejected);
    if (names.empty()) throw MetricsUnavailable{"CUPTI supports none of the metrics on chip " + chip};
    HostObject host(chip, availability);
    check(host.add(names), "adding metrics");
    std::vector<uint8_t> config = host.config_image();

    RangeProfiler profiler(ctx);
    auto size = KB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = profiler.get();
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = kMaxRanges;
    size.maxNumRangeTreeNodes = kMaxRanges;
    check(cuptiRangeProfilerGetCounterDataSize(&size), "counter data size");
    std::vector<uint8_t> data(size.counterDataSize);
    auto image = KB_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    image.pRangeProfilerObject = profiler.get();
    image.pCounterData = data.data();
    image.counterDataSize = data.size();
    check(cuptiRangeProfilerCounterDataImageInitialize(&image), "counter data initialization");

    auto set = KB_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    set.pRangeProfilerObject = profiler.get();
    set.pConfig = config.data();
    set.configSize = config.size();
    set.pCounterDataImage = data.data();
    set.counterDataImageSize = data.size();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kMaxRanges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    check(cuptiRangeProfilerSetConfig(&set), "range profiler configuration");

    auto start = KB_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = profiler.get();
    check(cuptiRangeProfilerStart(&start), "range profiler start");
    call_variant(fn, args.args(), who);
    {
      CallScope scope(who, "");
      check_variant_sync(cudaDeviceSynchronize(), who, "while profiled");
    }
    auto stop = KB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = profiler.get();
    check(cuptiRangeProfilerStop(&stop), "range profiler stop");
    auto decode = KB_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = profiler.get();
    check(cuptiRangeProfilerDecodeData(&decode), "counter data decoding");

    auto info = KB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    check(cuptiRangeProfilerGetCounterDataInfo(&info), "counter data info");
    std::vector<RangeValues> ranges;
    for (size_t r = 0; r < info.numTotalRanges; ++r) {
      const std::vector<double> values = host.evaluate(data, r, names);
      RangeValues rv;
      for (size_t k = 0; k < names.size(); ++k) rv[names[k]] = values[k];
      ranges.push_back(std::move(rv));
    }
    if (ranges.empty()) throw MetricsUnavailable{"the launcher ran no kernel that CUPTI could profile"};
    m.values = aggregate_ranges(ranges);
    m.kernel_count = static_cast<int64_t>(ranges.size());
    m.status = "ok";
    if (!stop.isAllPassSubmitted) m.status += " (not every replay pass was submitted; some values may be partial)";
    if (decode.numOfRangeDropped > 0)
      m.status += " (" + std::to_string(decode.numOfRangeDropped) + " kernels beyond " + std::to_string(kMaxRanges) +
                  " were not profiled)";
    if (!rejected.empty()) {
      m.status += " (not supported on " + chip + ":";
      for (const auto& r : rejected) m.status += " " + r;
      m.status += ")";
    }
  } catch (const MetricsUnavailable& e) {
    m.status = e.status;
    spdlog::warn("hardware metrics of the {}: {}", to_string(who), e.status);
  }
  return m;
}

}  // namespace kb::judge
