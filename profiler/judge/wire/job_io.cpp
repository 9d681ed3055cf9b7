#include "profiler/judge/wire/job_io.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "common/file_write.h"
#include "core/errors.h"
#include "profiler/judge/wire/server_wire.h"

namespace kb::judge {
namespace {

std::string field(size_t i, const std::string& name) { return "args[" + std::to_string(i) + "] ('" + name + "')"; }

// The smallest and largest values an integer type holds (int64's ends as doubles round, so they
// are kept inside +-2^62: no index range comes near them).
std::pair<double, double> integer_limits(DType t) {
  switch (t) {
    case DType::int8: return {-128, 127};
    case DType::uint8: return {0, 255};
    case DType::int32: return {-2147483648.0, 2147483647.0};
    case DType::uint32: return {0, 4294967295.0};
    default: return {-4611686018427387904.0, 4611686018427387904.0};
  }
}

// ranges: one [lo, hi] per size set, lo < hi, every value of [lo, hi) representable in the type.
std::vector<InputRange> decode_ranges(const HarnessArg& a, const DecodedArg& arg, size_t sizes,
                                      const std::string& where) {
  std::vector<InputRange> out;
  if (a.ranges.empty()) return out;
  if (arg.role != ArgRole::input && arg.role != ArgRole::inout)
    throw JobError("job field " + where + ".ranges: only inputs take a range, not a " + to_string(arg.role));
  if (dtype_is_float(arg.type))
    throw JobError("job field " + where + ".ranges: only integer inputs take a range, not " + to_string(arg.type));
  if (a.ranges.size() != sizes)
    throw JobError("job field " + where + ".ranges has " + std::to_string(a.ranges.size()) + " entries, expected " +
                   std::to_string(sizes) + " (one per size set)");
  const auto [min, max] = integer_limits(arg.type);
  for (size_t s = 0; s < sizes; ++s) {
    const auto& r = a.ranges[s];
    const std::string at = "job field " + where + ".ranges[" + std::to_string(s) + "]";
    if (r.size() != 2) throw JobError(at + ": expected [lo, hi]");
    if (r[0] >= r[1])
      throw JobError(at + ": [" + std::to_string(r[0]) + ", " + std::to_string(r[1]) +
                     ") is empty (values are drawn from lo <= v < hi)");
    if (static_cast<double>(r[0]) < min || static_cast<double>(r[1] - 1) > max)
      throw JobError(at + ": [" + std::to_string(r[0]) + ", " + std::to_string(r[1]) + ") does not fit " +
                     to_string(arg.type));
    out.push_back({r[0], r[1]});
  }
  return out;
}

}  // namespace

DecodedJob decode_job(const HarnessJob& job) {
  DecodedJob r;
  r.raw = job;
  if (job.baseline_library.empty()) throw JobError("job field baseline_library is empty");
  if (mode_compares_candidate(job.mode) && job.candidate_library.empty())
    throw JobError("job field candidate_library is empty, but mode '" + std::string(to_string(job.mode)) +
                   "' compares a candidate");
  const size_t sizes = job.size_labels.size();
  if (sizes == 0) throw JobError("job field size_labels is empty: at least one size set is needed");
  if (job.verify_only_sizes < 0 || static_cast<size_t>(job.verify_only_sizes) >= sizes)
    throw JobError("job field verify_only_sizes " + std::to_string(job.verify_only_sizes) +
                   " is out of range: at least one of the " + std::to_string(sizes) +
                   " size sets must be a configured one");
  if (job.verify_only_sizes > 0 && !mode_compares_candidate(job.mode))
    throw JobError("job field verify_only_sizes: only a verification has generalization sizes, not mode '" +
                   std::string(to_string(job.mode)) + "'");
  if (job.args.empty()) throw JobError("job field args is empty");
  if (!job.flops.empty() && job.flops.size() != sizes)
    throw JobError("job field flops has " + std::to_string(job.flops.size()) + " entries, expected " +
                   std::to_string(sizes) + " (one per size set)");
  if (!job.bytes.empty() && job.bytes.size() != sizes)
    throw JobError("job field bytes has " + std::to_string(job.bytes.size()) + " entries, expected " +
                   std::to_string(sizes) + " (one per size set)");
  if (job.trials < 1) throw JobError("job field trials must be at least 1");
  if (job.distributions.empty()) throw JobError("job field distributions is empty");
  for (const auto& d : job.distributions) {
    auto parsed = parse_distribution(d);
    if (!parsed) throw JobError("job field distributions: unknown distribution '" + d + "'");
    r.distributions.push_back(*parsed);
  }
  bool writes = false;
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    const std::string where = field(i, a.name);
    DecodedArg arg;
    arg.name = a.name;
    arg.role = a.role;
    if (arg.is_stream()) {
      // The server supplies the stream; the job describes no data for it.
      if (!a.counts.empty() || !a.values.empty() || !a.ranges.empty())
        throw JobError("job field " + where + ": a stream argument takes no counts, values or ranges");
      r.args.push_back(std::move(arg));
      continue;
    }
    if (!a.dtype) throw JobError("job field " + where + ".dtype is missing: every argument but a stream has one");
    arg.type = *a.dtype;
    if (!a.distribution.empty()) {
      auto d = parse_distribution(a.distribution);
      if (!d) throw JobError("job field " + where + ".distribution: unknown distribution '" + a.distribution + "'");
      arg.has_distribution = true;
      arg.distribution = *d;
    }
    arg.tolerance = {a.rtol, a.atol};
    const auto scale = parse_error_scale(a.error_scale);
    if (!scale)
      throw JobError("job field " + where + ".error_scale: unknown error scale '" + a.error_scale +
                     "' (plain or abs_inputs)");
    arg.error_scale = *scale;
    arg.ranges = decode_ranges(a, arg, sizes, where);
    if (arg.tolerance.rtol < 0 || arg.tolerance.atol < 0)
      throw JobError("job field " + where + ": rtol and atol must not be negative");
    if (arg.is_buffer()) {
      if (a.counts.size() != sizes)
        throw JobError("job field " + where + ".counts has " + std::to_string(a.counts.size()) + " entries, expected " +
                       std::to_string(sizes) + " (one per size set)");
      for (int64_t c : a.counts)
        if (c < 0) throw JobError("job field " + where + ".counts holds a negative count " + std::to_string(c));
      arg.counts = a.counts;
      writes = writes || arg.is_written();
    } else {
      if (a.values.size() != sizes)
        throw JobError("job field " + where + ".values has " + std::to_string(a.values.size()) + " entries, expected " +
                       std::to_string(sizes) + " (one per size set)");
      if (arg.role == ArgRole::size)
        for (const auto& v : a.values)
          if (v.empty()) throw JobError("job field " + where + ": a size argument needs a value at every size set");
      arg.values = a.values;
    }
    r.args.push_back(std::move(arg));
  }
  if (!writes && mode_compares_candidate(job.mode))
    throw JobError("job field args: no argument has role output or inout, so there is nothing to verify");
  for (const auto& arg : r.args)
    if (arg.is_value())
      for (size_t s = 0; s < sizes; ++s)
        if (!arg.values[s].empty()) parse_value(arg, s);  // throws on a bad literal
  const auto& b = job.bench;
  if (b.min_samples < 1 || b.max_samples < b.min_samples)
    throw JobError("job field bench: need 1 <= min_samples <= max_samples");
  if (b.max_noise <= 0 || b.timeout_s <= 0 || b.min_time_s < 0 || b.max_clock_sag < 0 || b.warmup_runs < 0 ||
      b.max_error < 0)
    throw JobError("job field bench: max_noise and timeout_s must be positive, min_time_s, warmup_runs, "
                   "max_clock_sag and max_error not negative");
  const size_t configured = sizes - static_cast<size_t>(job.verify_only_sizes);
  if (job.metrics_size >= static_cast<int>(configured))
    throw JobError("job field metrics_size " + std::to_string(job.metrics_size) + " is out of range (" +
                   std::to_string(configured) + " configured size sets)");
  return r;
}

const DecodedArg* stream_arg(const DecodedJob& job) {
  for (const auto& a : job.args)
    if (a.is_stream()) return &a;
  return nullptr;
}

double parse_value(const DecodedArg& arg, size_t size_index) {
  const std::string& text = arg.values.at(size_index);
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  double v;
  if (dtype_is_float(arg.type)) {
    v = std::strtod(begin, &end);
  } else {
    const long long i = std::strtoll(begin, &end, 10);
    v = static_cast<double>(i);
  }
  if (end == begin || *end != '\0' || errno == ERANGE)
    throw JobError("job field args ('" + arg.name + "').values[" + std::to_string(size_index) + "]: '" + text +
                   "' is not a " + to_string(arg.type) + " literal");
  return v;
}

DecodedJob parse_job(const std::string& text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw JobError(origin + " is not valid JSON: " + e.what());
  }
  HarnessJob job;
  try {
    job = j.get<HarnessJob>();
  } catch (const nlohmann::json::exception& e) {
    throw JobError(origin + " does not match the job format: " + e.what());
  }
  return decode_job(job);
}

std::string read_job_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JobError("cannot read the job file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kMaxJobBytes)
    throw JobError("the job file " + path + " is over " + std::to_string(kMaxJobBytes >> 20) + " MiB");
  return text.str();
}

DecodedJob load_job(const std::string& path) { return parse_job(read_job_text(path), "the job file " + path); }

void write_json_file(const std::string& path, const nlohmann::json& j) {
  write_file_atomically(path, j.dump(2) + "\n");
}

void write_result(const std::string& path, const EvalResult& result) { write_json_file(path, nlohmann::json(result)); }

size_t metrics_size_index(const DecodedJob& job) {
  if (job.raw.metrics_size >= 0) return static_cast<size_t>(job.raw.metrics_size);
  size_t best = 0;
  double best_bytes = -1;
  for (size_t s = 0; s < job.size_count(); ++s) {
    double bytes = 0;
    for (const auto& a : job.args)
      if (a.is_buffer()) bytes += static_cast<double>(a.counts[s]) * static_cast<double>(dtype_size(a.type));
    if (bytes > best_bytes) {
      best_bytes = bytes;
      best = s;
    }
  }
  return best;
}

}  // namespace kb::judge
