#include "profiler/evaluate/verdict/evaluation_outcome.h"
#include <algorithm>

#include <cstdio>
#include <sstream>
#include <string_view>

#include "common/secret_redactor.h"
#include "core/number_format.h"
#include "core/speedup_rule.h"

namespace kb::profiler {
namespace {

std::string last_lines(const std::string& text, size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s >= 10 ? "%.0f s" : "%.1f s", s);
  return buf;
}

// The end of the child's stderr for an infra error's reason: redacted (sandbox_process already
// did) and bounded again, and marked as the child's words, not kernelbot's.
std::string stderr_excerpt(const std::string& err) {
  std::string tail = last_lines(err, 3);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail.empty() ? "" : "; its stderr ends: " + untrusted_text(tail, 300);
}

}  // namespace

std::string known_crash_cause(const std::string& text) {
  // CUDA's own error strings and the harness's: a closed list, so a candidate that prints a
  // look-alike line chooses among these words at most, never the reason's text.
  static const char* const kCauses[] = {"an illegal memory access was encountered",
                                        "an illegal instruction was encountered",
                                        "misaligned address",
                                        "unspecified launch failure",
                                        "the launch timed out and was terminated",
                                        "too many resources requested for launch",
                                        "invalid configuration argument",
                                        "invalid device function",
                                        "device-side assert triggered",
                                        "out of memory",
                                        "hardware stack error",
                                        "invalid argument",
                                        "operation not permitted when stream is capturing",
                                        "it called exit()",
                                        "illegal address"};
  for (const char* cause : kCauses)
    if (text.find(cause) != std::string::npos) return cause;
  return "";
}

std::string harness_crash_line(const std::string& stderr_text) {
  std::istringstream in(stderr_text);
  std::string fallback;
  for (std::string line; std::getline(in, line);) {
    if (line.find("kb-harness: candidate crashed") != std::string::npos) return line;
    // The judge's own log lines, the servers' (which the judge attributes itself: a candidate's
    // crash is its "candidate crashed" line above) and the original's crash line are not the
    // candidate's crash: a verification pass that skips a condition the original fails on (an
    // alignment, a stream) restarts its server, logs why and goes on.
    const bool judges = line.starts_with("kb-harness [") || line.starts_with("kb-harness server ") ||
                        line.starts_with("kb-harness baseline [") ||
                        line.find("kb-harness: baseline crashed") != std::string::npos;
    if (fallback.empty() && !judges &&
        (line.find("illegal memory access") != std::string::npos || line.find("illegal address") != std::string::npos))
      fallback = line;
  }
  return fallback;
}

EvalResult classify_harness_run(const HarnessRun& run, int64_t max_memory_mb) {
  const SandboxResult& p = run.process;
  EvalResult r = run.result.value_or(EvalResult{});
  // What the judge did not time itself: the sandbox, process start-up, reading the result.
  if (r.run_s > 0 && p.wall_s > r.run_s) r.phase_s["sandbox"] += p.wall_s - r.run_s;
  if (!p.started) {
    r.verdict = Verdict::infra_error;
    r.reason = "kernelbot-harness did not start: " + p.start_error;
    return r;
  }
  if (p.timed_out) {
    r.verdict = Verdict::timed_out;
    r.reason = "hung: killed after " + seconds_text(p.wall_s);
    return r;
  }
  if (p.killed_for_memory) {
    r.verdict = Verdict::rejected;
    r.reason = "used " + std::to_string(p.peak_rss_mb) + " MiB of host memory, over the limit of " +
               std::to_string(max_memory_mb) + " MiB ([verify].max_host_memory_mb); killed";
    return r;
  }
  if (run.forged) {
    r = EvalResult{};
    r.verdict = Verdict::rejected;
    r.reason = "the harness's result was written inside the sandbox by something other than the judge (a "
               "result file rewritten, or a reply on the judge's channel): its seal (an HMAC with a key only "
               "kernelbot and the judge hold) does not verify, so the candidate's code forged or spoiled the verdict";
    return r;
  }
  if (p.exit_code == kHarnessBaselineCrashed) {
    // The original itself faulted: no candidate can be judged against it.
    std::string line;
    std::istringstream in(p.err);
    for (std::string l; std::getline(in, l);)
      if (l.find("baseline crashed") != std::string::npos || l.find("original crashed") != std::string::npos) line = l;
    const std::string cause = known_crash_cause(line.empty() ? p.err : line);
    r.verdict = Verdict::infra_error;
    r.reason = "the original kernel crashed in the harness" + (cause.empty() ? stderr_excerpt(p.err) : ": " + cause);
    return r;
  }
  const std::string crash = harness_crash_line(p.err);
  if (p.exit_code == kHarnessCandidateCrashed || p.signal != 0 || !crash.empty()) {
    // Built from what was measured (the exit status) and the closed list of causes: the crash
    // line itself comes from a process the candidate shares, so its text is never the reason.
    const std::string cause = known_crash_cause(crash);
    r.verdict = Verdict::crashed;
    r.reason = "the candidate crashed" + (cause.empty() ? std::string() : ": " + cause) + " (the harness " +
               (p.signal != 0 ? "was " + p.describe() : "ended with " + p.describe()) + ")";
    // The judge's sealed account says where (which trial, which alignment case): its own words.
    if (run.result && run.result->verdict == Verdict::crashed && !run.result->reason.empty())
      r.reason += "; the judge: " + run.result->reason;
    return r;
  }
  if (p.exit_code == 0 && run.result) return r;
  r.verdict = Verdict::infra_error;
  r.reason = "kernelbot-harness failed (" + p.describe() + ")" +
             (run.result_error.empty() ? "" : ", " + run.result_error) + stderr_excerpt(p.err);
  return r;
}

std::string escaped_work(const EvalResult& result) {
  // The span rule must hold at every size set where it could be measured: work on a stream the
  // caller does not wait for escapes at every size, while the traced span of one call proved
  // unreliable at a single size (a correct float4 saxpy read 325-389 us against a 6-10 us median
  // at n=1000003 on the H100, and agreed at the other sizes).
  std::string first_escape;
  int measured = 0, escaping = 0;
  for (const auto& t : result.timings) {
    const TimingStats& c = t.candidate;
    // One launch per sample: the events bracket exactly one call, so a GPU span longer than the
    // event time is work the caller's stream never waited for. Only there, as the runner's own
    // cross-check does. (Short kernels timed as several launches per sample are left to the
    // verification's per-call trace of every launch and to the wall-clock cross-check; the
    // roofline floor is no evidence, see roofline_advice.)
    // Relative to the original measured the same way: a launcher whose own work is all on the
    // caller's stream (a memset and an atomics kernel, say) can still show a CUPTI span ~15%
    // over its event time (seen on the H100 for examples' row_sum), and an honest one-kernel
    // candidate's traced call can run 6-9% over its median where the original's did not (three
    // block sizes of bias_gelu and one of add_bias on an H200, their original at 0.995). So the
    // allowance is 25% over the original's own ratio, never under the 5% of the judge's note
    // (escaped_timed_region, which alone decides nothing here). Work that escapes by less is
    // the verification's to find: it traces every launch of a call and rejects any that starts
    // before the caller's stream reached the call or ends after it (judge/server/traced_call).
    auto span_ratio = [](const TimingStats& s) {
      return s.cupti_span_us > 0 && s.median_us > 0 ? s.cupti_span_us / s.median_us : 0.0;
    };
    if (c.launches_per_sample <= 1 && span_ratio(c) > 0) {
      ++measured;
      const double allowed = std::max(1.0 / 0.95, 1.25 * span_ratio(t.baseline));
      if (span_ratio(c) > allowed) {
        ++escaping;
        if (first_escape.empty()) {
          char buf[512];
          std::snprintf(buf, sizeof buf,
                        "the candidate's work escapes the caller's stream at %s: one call keeps the GPU busy for "
                        "%.3g us (CUPTI) but the default stream reports it done after %.3g us, so a caller would "
                        "read unfinished results (work on a stream the caller does not wait for)",
                        t.size_label.c_str(), c.cupti_span_us, c.median_us);
          first_escape = buf;
        }
      }
    }
  }
  return measured > 0 && escaping == measured ? first_escape : "";
}

std::string roofline_advice(const SizeTiming& t, const char* who) {
  const bool candidate = std::string_view(who) == "candidate";
  const double pct = candidate ? t.candidate_pct_of_floor : t.baseline_pct_of_floor;
  if (t.floor_us <= 0 || pct <= 100) return "";
  const double median = candidate ? t.candidate.median_us : t.baseline.median_us;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "roofline advice: at %s the %s's %.3g us is %.0f%% of the roofline floor of %.3g us, which is "
                "computed from the spec's estimated bytes and FLOPs, not measured: the kernel moves fewer bytes "
                "than the estimate (a gather, a cache-resident input; set [[kernel]].bytes), or its work escaped "
                "the timing. This decides no verdict: escapes are judged from measured traces and clocks",
                t.size_label.c_str(), who, median, pct, t.floor_us);
  return buf;
}

void apply_accept_rule(EvalResult& result, double min_speedup) {
  if (result.verdict != Verdict::pending && result.verdict != Verdict::accepted &&
      result.verdict != Verdict::not_faster)
    return;
  if (!result.verification.passed) {
    // A harness that judged a candidate correct without the evidence is not believed.
    result.verdict = Verdict::wrong_result;
    result.reason = result.verification.failure.empty() ? "verification did not pass" : result.verification.failure;
    return;
  }
  if (result.timings.empty()) {
    result.verdict = Verdict::not_faster;
    result.reason = "correct (verified only, not timed)";
    return;
  }
  const std::string escaped = escaped_work(result);
  if (!escaped.empty()) {
    result.verdict = Verdict::rejected;
    result.reason = escaped;
    return;
  }
  // Advice only: a timing above the roofline floor is noted beside it and changes nothing.
  std::string advice;
  for (auto& t : result.timings) {
    const std::string a = roofline_advice(t, "candidate");
    if (a.empty()) continue;
    if (advice.empty()) advice = a;
    if (t.candidate.notes.find("roofline advice:") == std::string::npos)
      t.candidate.notes += (t.candidate.notes.empty() ? "" : "; ") + a;
  }
  const SpeedupDecision decision = decide_speedup(result.timings, min_speedup);
  result.speedup = decision.speedup;
  result.verdict = decision.accepted() ? Verdict::accepted : Verdict::not_faster;
  result.reason = decision.reason();
  if (!advice.empty()) result.reason += " (" + advice + ")";
}

HarnessJob size_sets_job(const HarnessJob& job, const std::vector<size_t>& indices) {
  HarnessJob out = job;
  auto pick = [&indices](auto& v) {
    auto kept = v;
    kept.clear();
    for (const size_t i : indices)
      if (i < v.size()) kept.push_back(v[i]);
    v = std::move(kept);
  };
  pick(out.size_labels);
  pick(out.flops);
  pick(out.bytes);
  for (auto& a : out.args) {
    pick(a.counts);
    pick(a.values);
    pick(a.ranges);
  }
  out.metrics_size = -1;
  out.verify_only_sizes = 0;  // configured sets only
  return out;
}

HarnessJob single_size_job(const HarnessJob& job, size_t index) { return size_sets_job(job, {index}); }

namespace {

// The configured size set that moves the fewest (`most` = false) or the most bytes; the first of equals.
size_t extreme_size_index(const HarnessJob& job, bool most) {
  size_t best = 0;
  const size_t configured = job.bytes.size() - std::min(job.bytes.size(), static_cast<size_t>(job.verify_only_sizes));
  for (size_t i = 1; i < configured; ++i)
    if (most ? job.bytes[i] > job.bytes[best] : job.bytes[i] < job.bytes[best]) best = i;
  return best;
}

}  // namespace

size_t smallest_size_index(const HarnessJob& job) { return extreme_size_index(job, false); }

size_t largest_size_index(const HarnessJob& job) { return extreme_size_index(job, true); }

}  // namespace kb::profiler
