// The host-only decisions of the per-thread default-stream pass (stream_pass.h): whether it runs,
// at which size set, and how its skips and failures read. Unit-tested without a GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// The size set the pass calls both variants at: the one whose buffers hold the fewest elements
// (the first of equals), or none when the launcher takes no stream argument (it has nothing to
// be given) or the job has no size sets.
std::optional<size_t> per_thread_pass_size(const DecodedJob& job);

// "the per-thread default stream as the stream argument 'stream' (size n=4096, distribution
// uniform, seed 42)": the condition, as reasons and skip lines name it.
std::string describe_per_thread_condition(const DecodedJob& job, size_t size, const std::string& distribution,
                                          uint64_t seed);

// The report's line when the original itself fails under the condition: the check is skipped.
std::string per_thread_skip_line(const std::string& condition, const std::string& original_failure);

// A candidate's failure under the condition, as its verdict's reason: the rule, then what failed.
std::string per_thread_failure(const std::string& failure);

}  // namespace kb::judge
