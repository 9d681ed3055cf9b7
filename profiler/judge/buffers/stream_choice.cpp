#include "profiler/judge/buffers/stream_choice.h"

namespace kb::judge {

bool stream_choice_from_wire(int32_t value, StreamChoice& choice) {
  switch (value) {
    case static_cast<int32_t>(StreamChoice::launcher_stream): choice = StreamChoice::launcher_stream; return true;
    case static_cast<int32_t>(StreamChoice::per_thread_default): choice = StreamChoice::per_thread_default; return true;
    case static_cast<int32_t>(StreamChoice::second_caller): choice = StreamChoice::second_caller; return true;
    default: return false;
  }
}

OrderStream order_stream_for(bool has_stream_arg) {
  return has_stream_arg ? OrderStream::given_stream : OrderStream::legacy_default;
}

std::string describe_given_stream(const std::string& arg_name, StreamChoice choice) {
  if (arg_name.empty()) return "the default stream";
  std::string arg = "the stream argument '" + arg_name + "'";
  switch (choice) {
    case StreamChoice::per_thread_default: return arg + " (the per-thread default stream)";
    case StreamChoice::second_caller: return arg + " (a second caller's stream)";
    case StreamChoice::launcher_stream: break;
  }
  return arg;
}

}  // namespace kb::judge
