#include "core/harness_job.h"

#include <utility>

#include "core/arg_type_names.h"

namespace kb {
namespace {

constexpr std::pair<JobMode, const char*> kModes[] = {{JobMode::verify_and_time, "verify_and_time"},
                                                      {JobMode::verify, "verify"},
                                                      {JobMode::time_baseline, "time_baseline"},
                                                      {JobMode::metrics, "metrics"}};

[[noreturn]] void bad_field(const nlohmann::json& j, const std::string& message) {
  throw nlohmann::json::other_error::create(501, "job field " + message, &j);
}

}  // namespace

const char* to_string(JobMode mode) {
  for (const auto& [m, name] : kModes)
    if (m == mode) return name;
  return "unknown";
}

void to_json(nlohmann::json& j, const JobMode& mode) { j = to_string(mode); }

void from_json(const nlohmann::json& j, JobMode& mode) {
  const std::string s = j.get<std::string>();
  for (const auto& [m, name] : kModes)
    if (s == name) {
      mode = m;
      return;
    }
  bad_field(j, "mode: unknown mode '" + s + "' (expected verify_and_time, verify, time_baseline or metrics)");
}

void to_json(nlohmann::json& j, const HarnessArg& a) {
  j = nlohmann::json{{"name", a.name},
                     {"role", to_string(a.role)},
                     {"dtype", a.dtype ? to_string(*a.dtype) : ""},
                     {"counts", a.counts},
                     {"values", a.values},
                     {"distribution", a.distribution},
                     {"rtol", a.rtol},
                     {"atol", a.atol},
                     {"error_scale", a.error_scale},
                     {"ranges", a.ranges}};
}

// As NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT reads: a missing key keeps its default.
void from_json(const nlohmann::json& j, HarnessArg& a) {
  const HarnessArg defaults;
  a.name = j.value("name", defaults.name);
  const std::string where = "args ('" + a.name + "')";
  const std::string role = j.value("role", std::string(to_string(defaults.role)));
  if (auto r = parse_arg_role(role)) a.role = *r;
  else
    bad_field(j, where + ".role: unknown role '" + role +
                     "' (expected input, output, inout, scalar, size, stream or workspace)");
  const std::string dtype = j.value("dtype", std::string());
  a.dtype = std::nullopt;
  if (!dtype.empty()) {
    a.dtype = parse_dtype(dtype);
    if (!a.dtype) bad_field(j, where + ".dtype: unknown dtype '" + dtype + "'");
  }
  a.counts = j.value("counts", defaults.counts);
  a.values = j.value("values", defaults.values);
  a.distribution = j.value("distribution", defaults.distribution);
  a.rtol = j.value("rtol", defaults.rtol);
  a.atol = j.value("atol", defaults.atol);
  a.error_scale = j.value("error_scale", defaults.error_scale);
  a.ranges = j.value("ranges", defaults.ranges);
}

}  // namespace kb
