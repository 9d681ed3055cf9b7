#include "profiler/judge/server/launcher_stream.h"

#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/tracing/activity_monitor.h"

namespace kb::judge {

LauncherStream::LauncherStream(const DecodedJob& job) {
  const DecodedArg* arg = stream_arg(job);
  if (!arg) return;
  arg_name_ = arg->name;
  cuda_check(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking), "creating the launcher's stream");
  cuda_check(cudaStreamCreateWithFlags(&second_, cudaStreamNonBlocking), "creating a second caller's stream");
}

LauncherStream::~LauncherStream() {
  if (handle_) cudaStreamDestroy(handle_);
  if (second_) cudaStreamDestroy(second_);
}

cudaStream_t LauncherStream::handle(StreamChoice choice) const {
  if (!handle_) return nullptr;
  switch (choice) {
    case StreamChoice::per_thread_default: return cudaStreamPerThread;
    case StreamChoice::second_caller: return second_;
    case StreamChoice::launcher_stream: break;
  }
  return handle_;
}

cudaStream_t LauncherStream::order_stream(StreamChoice choice) const {
  return order_stream_for(given()) == OrderStream::given_stream ? handle(choice) : cudaStreamLegacy;
}

std::string LauncherStream::describe(StreamChoice choice) const { return describe_given_stream(arg_name_, choice); }

void LauncherStream::bind(ArgSet& set, StreamChoice choice) const {
  for (size_t i = 0; i < set.arg_count(); ++i)
    if (set.arg(i).is_stream()) set.set_stream(i, handle(choice));
}

uint32_t LauncherStream::cupti_id(StreamChoice choice) const {
  std::optional<uint32_t>& id = !given()                                     ? legacy_cupti_id_
                                : choice == StreamChoice::per_thread_default ? per_thread_cupti_id_
                                : choice == StreamChoice::second_caller      ? second_cupti_id_
                                                                             : cupti_id_;
  if (!id) id = ActivityMonitor::instance().stream_id_of(order_stream(choice));
  return *id;
}

}  // namespace kb::judge
