// Reading the HarnessJob the bot wrote and writing the EvalResult back, both as JSON, plus the
// job's arguments decoded into the types the harness works with. Every problem with a job names
// the JSON field, so a bot bug shows up as a readable usage error (exit 2), not a crash.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/harness_job.h"
#include "core/result_types.h"
#include "profiler/judge/inputs/dtype_codec.h"
#include "profiler/judge/inputs/input_generator.h"
#include "profiler/judge/outputs/output_comparator.h"

namespace kb::judge {

// A job file that cannot be read or does not make sense.
struct JobError : Error {
  using Error::Error;
};

// An integer input's range = [lo, hi] at one size set: values drawn from lo <= v < hi.
struct InputRange {
  int64_t lo = 0, hi = 0;
};

// One launcher parameter, decoded. A stream is a cudaStream_t the variant server creates
// (launcher_stream.h): no type, counts or values.
struct DecodedArg {
  std::string name;
  ArgRole role = ArgRole::input;
  DType type = DType::float32;      // unused for a stream
  std::vector<int64_t> counts;      // per size set (buffers)
  std::vector<std::string> values;  // per size set (scalars, sizes); "" = random
  bool has_distribution = false;    // per-argument override of the job's distributions
  Distribution distribution = Distribution::uniform;
  Tolerance tolerance;
  ErrorScale error_scale = ErrorScale::plain;  // outputs: how the allowed error scales
  std::vector<InputRange> ranges;              // per size set, for inputs with a range; else empty
  bool is_buffer() const { return role_is_buffer(role); }
  bool is_written() const { return role_is_compared(role); }  // a result: compared with the original's
  bool is_read() const { return role_is_filled(role); }
  bool is_workspace() const { return role == ArgRole::workspace; }  // lent and poisoned, never compared
  bool is_value() const { return role == ArgRole::scalar || role == ArgRole::size; }  // host value passed by pointer
  bool is_stream() const { return role == ArgRole::stream; }
  bool has_range() const { return !ranges.empty(); }
};

// The job with its arguments decoded and checked.
struct DecodedJob {
  HarnessJob raw;
  std::vector<DecodedArg> args;
  std::vector<Distribution> distributions;
  // The configured size sets: what the main verification, timing and metrics use.
  size_t size_count() const { return raw.size_labels.size() - static_cast<size_t>(raw.verify_only_sizes); }
  // With the trailing verification-only (generalization) sets, which only their own pass uses.
  size_t all_size_count() const { return raw.size_labels.size(); }
};

// The job's first stream argument, or null when the launcher takes no stream.
const DecodedArg* stream_arg(const DecodedJob& job);

// Parses and checks a job. Throws JobError naming the field at fault.
DecodedJob decode_job(const HarnessJob& job);
// `text` is a job file's JSON; `origin` names it in errors ("the job file /x/job.json").
DecodedJob parse_job(const std::string& text, const std::string& origin);
DecodedJob load_job(const std::string& path);
// The job file's text (the judge hands the same text to its servers). Throws JobError.
std::string read_job_text(const std::string& path);

// Host value of a literal scalar/size argument, parsed as `type`. Throws JobError.
double parse_value(const DecodedArg& arg, size_t size_index);

// Writes JSON atomically (common/file_write.h: a temporary file renamed over `path`, never through
// a symlink), so a reader never sees half a result. Throws kb::Error.
void write_json_file(const std::string& path, const nlohmann::json& j);
void write_result(const std::string& path, const EvalResult& result);

// The size set the metrics mode profiles: job.metrics_size, or the one moving the most bytes.
size_t metrics_size_index(const DecodedJob& job);

}  // namespace kb::judge
