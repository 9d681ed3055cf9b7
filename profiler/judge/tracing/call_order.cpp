#include "profiler/judge/tracing/call_order.h"

#include <utility>

namespace kb::judge {
namespace {

bool is_bracket(const ActivityRecord& r, uint32_t bracket_stream, const std::string& name) {
  return r.kind == ActivityRecord::Kind::kernel && r.stream == bracket_stream && r.name.find(name) != std::string::npos;
}

}  // namespace

CallOrderVerdict judge_call_order(const std::vector<ActivityRecord>& records, uint32_t bracket_stream,
                                  const std::string& gate_name, const std::string& marker_name) {
  const ActivityRecord* gate = nullptr;
  const ActivityRecord* marker = nullptr;
  for (const auto& r : records) {
    if (is_bracket(r, bracket_stream, gate_name) && (!gate || r.end > gate->end)) gate = &r;
    if (is_bracket(r, bracket_stream, marker_name) && (!marker || r.start < marker->start)) marker = &r;
  }
  CallOrderVerdict verdict;
  if (!gate || !marker) return verdict;
  verdict.judged = true;
  // The worst escape is reported: ending late (the timed region misses its tail) before starting
  // early, then the larger amount.
  auto keep_worst = [&](CallOrderFinding f) {
    const auto rank = [](const CallOrderFinding& x) {
      return std::pair(x.kind == CallOrderFinding::Kind::ended_late, x.by_us);
    };
    if (!verdict.finding || rank(f) > rank(*verdict.finding)) verdict.finding = std::move(f);
  };
  for (const auto& r : records) {
    if (&r == gate || &r == marker) continue;
    if (r.end > marker->start + kCallOrderToleranceNs)
      keep_worst({CallOrderFinding::Kind::ended_late, r, static_cast<double>(r.end - marker->start) / 1e3});
    else if (r.start + kCallOrderToleranceNs < gate->end)
      keep_worst({CallOrderFinding::Kind::started_early, r, static_cast<double>(gate->end - r.start) / 1e3});
  }
  return verdict;
}

}  // namespace kb::judge
