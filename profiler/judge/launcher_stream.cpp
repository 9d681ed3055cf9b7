#include "profiler/judge/launcher_stream.h"

#include "profiler/judge/activity_monitor.h"
#include "profiler/judge/cuda_check.h"

namespace kb::judge {

LauncherStream::LauncherStream(const DecodedJob& job) {
  const DecodedArg* arg = stream_arg(job);
  if (!arg) return;
  arg_name_ = arg->name;
  cuda_check(cudaStreamCreate(&handle_), "creating the launcher's stream");
}

LauncherStream::~LauncherStream() {
  if (handle_) cudaStreamDestroy(handle_);
}

std::string LauncherStream::describe() const {
  return given() ? "the stream argument '" + arg_name_ + "'" : std::string("the default stream");
}

void LauncherStream::bind(ArgSet& set) const {
  for (size_t i = 0; i < set.arg_count(); ++i)
    if (set.arg(i).is_stream()) set.set_stream(i, handle_);
}

uint32_t LauncherStream::cupti_id() const {
  if (!cupti_id_) cupti_id_ = ActivityMonitor::instance().stream_id_of(capture_stream());
  return *cupti_id_;
}

}  // namespace kb::judge
