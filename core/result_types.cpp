#include "core/result_types.h"

#include "core/number_format.h"

namespace kb {
namespace {
constexpr std::pair<Verdict, const char*> kVerdicts[] = {
    {Verdict::pending, "pending"},           {Verdict::accepted, "accepted"},
    {Verdict::not_faster, "not_faster"},     {Verdict::compile_error, "compile_error"},
    {Verdict::wrong_result, "wrong_result"}, {Verdict::crashed, "crashed"},
    {Verdict::timed_out, "timed_out"},       {Verdict::rejected, "rejected"},
    {Verdict::infra_error, "infra_error"},   {Verdict::screened_out, "screened_out"}};
}  // namespace

const char* to_string(Verdict v) {
  for (const auto& [verdict, name] : kVerdicts)
    if (verdict == v) return name;
  return "unknown";
}

const char* to_string(ArchOutcome outcome) {
  switch (outcome) {
    case ArchOutcome::verified: return "verified";
    case ArchOutcome::compiled: return "compiled, not run";
    case ArchOutcome::skipped: return "skipped";
    case ArchOutcome::failed: return "failed";
  }
  return "unknown";
}

std::string describe_phases(const std::map<std::string, double>& phase_s, double at_least_s) {
  std::string text;
  for (const auto& [phase, s] : phase_s)
    if (s >= at_least_s) text += (text.empty() ? "" : ", ") + phase + " " + format_fixed(s, 1) + " s";
  return text;
}

bool verdict_is_correct(Verdict v) { return v == Verdict::accepted || v == Verdict::not_faster; }

std::string sanitizer_scope(const VerificationReport& v) {
  std::string tools;
  for (size_t i = 0; i < v.sanitizer_tools.size(); ++i)
    tools += (i == 0 ? "" : i + 1 == v.sanitizer_tools.size() ? " and " : ", ") + v.sanitizer_tools[i];
  if (tools.empty() || v.sanitizer_sizes.empty()) return tools;
  std::string sizes;
  for (const auto& s : v.sanitizer_sizes) sizes += (sizes.empty() ? "" : ", ") + s;
  return tools + (v.sanitizer_sizes.size() == 1
                      ? ", one call each at the size set " + sizes
                      : ", one call each at the smallest and the largest size set (" + sizes + ")");
}

void to_json(nlohmann::json& j, const Verdict& v) { j = to_string(v); }

void from_json(const nlohmann::json& j, Verdict& v) {
  const std::string s = j.get<std::string>();
  for (const auto& [verdict, name] : kVerdicts)
    if (s == name) {
      v = verdict;
      return;
    }
  throw nlohmann::json::other_error::create(501, "unknown verdict '" + s + "'", &j);
}

}  // namespace kb
