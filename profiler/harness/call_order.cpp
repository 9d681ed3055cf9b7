#include "profiler/harness/call_order.h"

namespace kb::harness {
namespace {

bool is_bracket(const ActivityRecord& r, uint32_t legacy_stream, const std::string& name) {
  return r.kind == ActivityRecord::Kind::kernel && r.stream == legacy_stream &&
         r.name.find(name) != std::string::npos;
}

}  // namespace

CallOrderVerdict judge_call_order(const std::vector<ActivityRecord>& records, uint32_t legacy_stream,
                                  const std::string& gate_name, const std::string& marker_name) {
  const ActivityRecord* gate = nullptr;
  const ActivityRecord* marker = nullptr;
  for (const auto& r : records) {
    if (is_bracket(r, legacy_stream, gate_name) && (!gate || r.end > gate->end)) gate = &r;
    if (is_bracket(r, legacy_stream, marker_name) && (!marker || r.start < marker->start)) marker = &r;
  }
  CallOrderVerdict verdict;
  if (!gate || !marker) return verdict;
  verdict.judged = true;
  for (const auto& r : records) {
    if (&r == gate || &r == marker) continue;
    // Ends late: the worse escape (the timed region misses its tail), reported first.
    if (r.end > marker->start + kCallOrderToleranceNs) {
      const double by = static_cast<double>(r.end - marker->start) / 1e3;
      if (!verdict.finding || verdict.finding->kind == CallOrderFinding::Kind::started_early || by > verdict.finding->by_us)
        verdict.finding = CallOrderFinding{CallOrderFinding::Kind::ended_late, r, by};
    } else if (r.start + kCallOrderToleranceNs < gate->end) {
      const double by = static_cast<double>(gate->end - r.start) / 1e3;
      if (!verdict.finding || (verdict.finding->kind == CallOrderFinding::Kind::started_early && by > verdict.finding->by_us))
        verdict.finding = CallOrderFinding{CallOrderFinding::Kind::started_early, r, by};
    }
  }
  return verdict;
}

}  // namespace kb::harness
