#include "bot/commands/evaluation_tables.h"

#include <cstdio>
#include <sstream>

#include "common/text.h"
#include "common/text_table.h"
#include "core/number_format.h"

namespace kb::bot {
namespace {

// %g with `digits` significant digits.
std::string general(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// Under a table with a timing above 100% of its roofline floor.
constexpr const char* kFloorNote =
    "\nabove 100% of the roofline floor: the floor is the spec's estimated bytes ([[kernel]].bytes; default: inputs "
    "read once, outputs written once) over the measured bandwidth; a kernel that moves less runs above it (advice "
    "only: it decides no verdict)\n";

std::string us(double v) { return format_us(v); }
std::string pct(double fraction) { return format_fraction_percent(fraction); }
std::string pct_value(double v) { return v <= 0 ? "-" : format_fixed(v, 1) + "%"; }

std::string metric(const KernelMetrics& m, const std::string& key) {
  auto it = m.values.find(key);
  return it == m.values.end() ? "-" : format_fixed(it->second, 1);
}

std::string metrics_block(const std::string& title, const KernelMetrics& m) {
  std::ostringstream s;
  s << title << ": " << m.status;
  if (!m.kernel_name.empty()) s << " (" << m.kernel_name << (m.size_label.empty() ? "" : " at " + m.size_label) << ")";
  s << "\n  registers/thread " << m.registers_per_thread << ", static shared " << m.static_shared_bytes << " B, spills "
    << m.spill_stores_bytes << "/" << m.spill_loads_bytes << " B (st/ld), stack " << m.stack_frame_bytes << " B\n";
  if (!m.values.empty()) {
    s << " ";
    for (const auto& [k, v] : m.values) s << " " << k << "=" << general(v, 4);
    s << "\n";
  }
  return s.str();
}

}  // namespace

std::string render_eval_result(const EvalResult& r, const std::string& kernel, const std::string& candidate) {
  std::ostringstream s;
  s << "kernel " << kernel << ": candidate " << candidate;
  if (!r.device.name.empty()) s << " on " << r.device.name;
  s << "\nverdict: " << to_string(r.verdict) << "\nreason: " << r.reason << "\n";
  if (r.speedup > 0 && !r.timings.empty()) s << "speedup: " << format_speedup(r.speedup) << " (geometric mean)\n";

  const auto& v = r.verification;
  if (v.trials > 0 || !v.failure.empty()) {
    // A crash or a hang ends verification without a failed comparison: it did not complete.
    const char* state = v.passed ? "passed" : v.failure.empty() ? "not completed" : "FAILED";
    s << "verification: " << state << ", " << v.trials << " trials over " << v.sizes.size() << " sizes ("
      << join(v.distributions, ", ") << ")";
    if (!v.seeds.empty()) s << ", seed " << v.seeds.front();
    if (v.strict_pass) s << "; strict re-verification passed";
    if (v.sanitized) s << "; compute-sanitizer " << (v.sanitizer_report.empty() ? "clean" : "report below");
    s << "\n";
    if (v.sanitized && !sanitizer_scope(v).empty()) s << "compute-sanitizer ran: " << sanitizer_scope(v) << "\n";
    if (!v.failure.empty()) s << "failure: " << v.failure << "\n";
    for (const auto& w : v.warnings) s << "warning: " << w << "\n";
    if (!v.generalization_sizes.empty())
      s << "generalization sizes (verified, not timed): " << join(v.generalization_sizes, ", ") << "\n";
    for (const auto& pass : v.passes) s << "passed: " << pass << "\n";
    for (const auto& skipped : v.skipped_checks) s << "skipped (the original fails it): " << skipped << "\n";
  }
  if (!v.archs_source.empty()) s << "target architectures: " << v.archs_source << "\n";
  for (const auto& a : v.archs) {
    s << "  " << a.arch << ": " << to_string(a.outcome);
    if (a.outcome != ArchOutcome::skipped) s << " (" << a.how << ")";
    s << (a.detail.empty() ? "" : ": ") << a.detail << "\n";
  }
  if (!r.timings.empty()) {
    TextTable t({"size", "baseline us", "candidate us", "speedup", "significant", "noise b/c", "% of floor b/c"});
    for (const auto& st : r.timings)
      t.add_row({st.size_label, us(st.baseline.median_us), us(st.candidate.median_us), format_speedup(st.speedup),
                 st.significant ? "yes" : "no", pct(st.baseline.noise) + " / " + pct(st.candidate.noise),
                 pct_value(st.baseline_pct_of_floor) + " / " + pct_value(st.candidate_pct_of_floor)});
    s << "\n" << t.render();
    for (const auto& st : r.timings)
      if (st.floor_us > 0 && (st.baseline_pct_of_floor > 100 || st.candidate_pct_of_floor > 100)) {
        s << kFloorNote;
        break;
      }
  }
  int64_t compared = 0;
  for (const auto& o : v.outputs) compared += o.elements;
  if (compared > 0) {
    TextTable e({"output", "dtype", "max abs err", "max rel err", "rtol", "atol", "mismatches", "elements"});
    for (const auto& o : v.outputs)
      e.add_row({o.name, o.dtype, general(o.max_abs_error, 3), general(o.max_rel_error, 3), general(o.rtol, 3),
                 general(o.atol, 3), std::to_string(o.mismatches), std::to_string(o.elements)});
    s << "\nworst errors over all trials:\n" << e.render();
  }
  if (!v.sanitizer_report.empty()) s << "\ncompute-sanitizer report:\n" << v.sanitizer_report;
  if (r.baseline_metrics.status != "not collected" || r.candidate_metrics.status != "not collected")
    s << "\n"
      << metrics_block("baseline metrics", r.baseline_metrics)
      << metrics_block("candidate metrics", r.candidate_metrics);
  if (r.verdict == Verdict::compile_error) s << "\ncompiler output:\n" << r.compile_log;
  return s.str();
}

std::string render_kernel_profiles(const std::vector<std::pair<std::string, EvalResult>>& profiles) {
  TextTable t(
      {"kernel", "size", "median us", "noise", "samples", "% of floor", "SM %", "DRAM %", "occupancy %", "regs"});
  std::ostringstream notes;
  for (const auto& [name, r] : profiles) {
    if (r.verdict != Verdict::pending && !verdict_is_correct(r.verdict)) {
      t.add_row({name, "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      notes << name << ": " << to_string(r.verdict) << ": " << r.reason << "\n";
      continue;
    }
    const KernelMetrics& m = r.baseline_metrics;
    for (const auto& st : r.timings) {
      // Metrics are measured at one size set; show them on its row.
      const bool metrics_row = m.size_label.empty() ? &st == &r.timings.back() : m.size_label == st.size_label;
      t.add_row({name, st.size_label, us(st.baseline.median_us), pct(st.baseline.noise),
                 std::to_string(st.baseline.samples), pct_value(st.baseline_pct_of_floor),
                 metrics_row ? metric(m, "sm_throughput_pct") : "", metrics_row ? metric(m, "dram_throughput_pct") : "",
                 metrics_row ? metric(m, "achieved_occupancy_pct") : "",
                 m.registers_per_thread > 0 ? std::to_string(m.registers_per_thread) : "-"});
    }
    if (m.status != "ok" && m.status != "not collected" && m.status != "compiler report only")
      notes << name << ": metrics " << m.status << "\n";
  }
  std::string out = t.render();
  bool above_floor = false;
  for (const auto& [name, r] : profiles)
    for (const auto& st : r.timings) above_floor = above_floor || (st.floor_us > 0 && st.baseline_pct_of_floor > 100);
  if (above_floor) notes << kFloorNote + 1;  // without the leading blank line: notes follow the table
  if (!profiles.empty() && !profiles.front().second.device.name.empty()) {
    const DeviceInfo& d = profiles.front().second.device;
    std::ostringstream head;
    head << "on " << d.name << " (measured copy bandwidth " << format_fixed(d.copy_bandwidth_gbps, 0) << " GB/s, FP32 "
         << format_fixed(d.fp32_tflops, 1) << " TFLOP/s)\n";
    out = head.str() + out;
  }
  if (!notes.str().empty()) {
    out += '\n';
    out += notes.str();
  }
  return out;
}

std::string render_workload_ranking(const profiler::WorkloadRanking& r, const std::string& command, double wall_s) {
  std::ostringstream s;
  s << "workload: " << command << "\n"
    << r.kernels.size() << " kernels, " << r.total_calls << " launches, " << format_fixed(r.total_kernel_ms, 3)
    << " ms of kernel time in " << format_fixed(wall_s, 2) << " s (" << r.processes << " CUDA process"
    << (r.processes == 1 ? "" : "es") << ")\n\n";
  TextTable t({"#", "kernel", "calls", "total ms", "mean us", "share", "grid", "block", "source", "launcher"});
  for (const auto& k : r.kernels) {
    std::string launcher = join(k.launchers, ", ");
    if (!k.configured.empty()) launcher += " [kernel " + join(k.configured, ", ") + "]";
    t.add_row({std::to_string(k.rank), k.name, std::to_string(k.calls), format_fixed(k.total_ms, 3), us(k.mean_us),
               pct(k.share), k.grid, k.block, k.sources.empty() ? "-" : join(k.sources, ", "),
               launcher.empty() ? "-" : launcher});
  }
  s << t.render();
  if (r.dropped_records > 0)
    s << "\nwarning: CUPTI dropped " << r.dropped_records << " records; totals are lower bounds\n";
  return s.str();
}

nlohmann::json workload_ranking_json(const profiler::WorkloadRanking& r, const std::string& command, double wall_s,
                                     int exit_code) {
  nlohmann::json j{{"command", command},
                   {"wall_s", wall_s},
                   {"exit_code", exit_code},
                   {"processes", r.processes},
                   {"total_kernel_ms", r.total_kernel_ms},
                   {"total_calls", r.total_calls},
                   {"dropped_records", r.dropped_records}};
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : r.kernels)
    j["kernels"].push_back({{"rank", k.rank},
                            {"name", k.name},
                            {"signature", k.signature},
                            {"calls", k.calls},
                            {"total_ms", k.total_ms},
                            {"mean_us", k.mean_us},
                            {"min_us", k.min_us},
                            {"max_us", k.max_us},
                            {"share", k.share},
                            {"grid", k.grid},
                            {"block", k.block},
                            {"registers", k.registers},
                            {"sources", k.sources},
                            {"launchers", k.launchers},
                            {"configured_kernels", k.configured}});
  return j;
}

}  // namespace kb::bot
