#include "profiler/judge/plans/stream_pass_plan.h"

#include <limits>

namespace kb::judge {

std::optional<size_t> per_thread_pass_size(const DecodedJob& job) {
  if (!stream_arg(job) || job.size_count() == 0) return std::nullopt;
  size_t best = 0;
  int64_t best_elements = std::numeric_limits<int64_t>::max();
  for (size_t s = 0; s < job.size_count(); ++s) {
    int64_t elements = 0;
    for (const auto& a : job.args)
      if (s < a.counts.size()) elements += a.counts[s];
    if (elements < best_elements) {
      best = s;
      best_elements = elements;
    }
  }
  return best;
}

std::string describe_per_thread_condition(const DecodedJob& job, size_t size, const std::string& distribution,
                                          uint64_t seed) {
  const DecodedArg* stream = stream_arg(job);
  const std::string label = size < job.raw.size_labels.size() ? job.raw.size_labels[size] : std::to_string(size);
  return "the per-thread default stream (cudaStreamPerThread) as the stream argument '" +
         (stream ? stream->name : std::string("stream")) + "' (size " + label + ", distribution " + distribution +
         ", seed " + std::to_string(seed) + ")";
}

std::string per_thread_skip_line(const std::string& condition, const std::string& original_failure) {
  return condition + ": the original fails (" + original_failure + "), so the candidate is not held to it";
}

std::string per_thread_failure(const std::string& failure) {
  return "given the per-thread default stream instead of a stream of the caller's, as callers may: " + failure;
}

}  // namespace kb::judge
