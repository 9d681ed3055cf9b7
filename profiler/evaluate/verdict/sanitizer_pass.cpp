#include "profiler/evaluate/verdict/sanitizer_pass.h"

#include <algorithm>
#include <deque>
#include <future>
#include <limits>
#include <regex>
#include <sstream>

#include "common/text.h"

namespace kb::profiler {
namespace {

// The judge's guard zones reach 64 KiB past a buffer (profiler/judge/buffers/guard_layout.h): memcheck's
// padding after every allocation reaches as far, so that an over-read the guards let pass (a
// read changes no guard byte) lands outside every allocation instead of in the buffer that
// happens to follow (seen on an H200: one float past a 2 MiB buffer read the next buffer's first
// bytes and memcheck reported nothing).
constexpr const char* kPaddingBytes = "65536";

// How many report lines a run keeps, and how many more for the summaries and leaked allocations
// that come after them.
constexpr size_t kReportLines = 60;
constexpr size_t kLateReportLines = 20;

// "1,024" or "1024" as a number; saturates instead of overflowing.
int64_t count_of(const std::string& digits) {
  int64_t v = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') continue;
    if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::numeric_limits<int64_t>::max();
    v = v * 10 + (c - '0');
  }
  return v;
}

// 1234567 -> "1,234,567", as compute-sanitizer writes sizes.
std::string with_commas(int64_t v) {
  std::string digits = std::to_string(v);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

std::string memory_text(int64_t allocations, int64_t bytes) {
  return plural_count(allocations, "allocation") + " (" + with_commas(bytes) + " bytes)";
}

// What a second round of calls (one more at each size set) left allocated beyond the first.
struct Leak {
  int64_t allocations = 0;
  int64_t bytes = 0;
  bool any() const { return allocations > 0 || bytes > 0; }
};

Leak growth(const SanitizerFindings& one_call, const SanitizerFindings& two_calls) {
  return {std::max<int64_t>(0, two_calls.leaked_allocations - one_call.leaked_allocations),
          std::max<int64_t>(0, two_calls.leaked_bytes - one_call.leaked_bytes)};
}

// Whether a run's findings can be read: it ran to its end, or found errors before it did not.
bool finished(const SanitizerRun& r) {
  if (r.timed_out) return false;
  if (r.findings.errors > 0) return true;
  return r.findings.ran && r.verdict != Verdict::infra_error && r.verdict != Verdict::crashed;
}

// A candidate's run that ends the pass (a hang, a crash, a tool that failed): fills the outcome.
bool ended(const SanitizerTool& tool, const SanitizerRun& r, SanitizerOutcome& out) {
  if (finished(r)) return false;
  if (r.timed_out) {
    out.verdict = Verdict::timed_out;
    out.reason = "hung under compute-sanitizer " + tool.name + ": killed after " +
                 std::to_string(static_cast<int>(r.wall_s)) + " s";
  } else {
    out.verdict = r.verdict == Verdict::crashed ? Verdict::crashed : Verdict::infra_error;
    out.reason = "compute-sanitizer " + tool.name + " did not finish: " + r.reason;
  }
  out.report += r.findings.report.empty() ? r.output_tail : r.findings.report;
  return true;
}

}  // namespace

const std::vector<SanitizerTool>& sanitizer_tools() {
  static const std::vector<SanitizerTool> tools = {
      {"memcheck",
       {"--leak-check", "full", "--padding", kPaddingBytes},
       "memcheck (with leak check)",
       "out-of-bounds or misaligned accesses, or CUDA calls that failed",
       true},
      {"racecheck", {}, "racecheck", "shared-memory data races", false},
      {"synccheck", {}, "synccheck", "barriers not every thread reaches, or invalid warp synchronization", false},
      {"initcheck", {}, "initcheck", "reads of device memory that nothing had written", false},
  };
  return tools;
}

std::vector<std::string> sanitizer_command(const std::string& tool_path, const SanitizerTool& tool) {
  // Only the candidate's server is tracked: the judge runs no variant code, and under the tool its
  // own start (its context, its modules instrumented) took a second of each run and slowed the
  // other tools' runs beside it. The tool matches the name a process was executed as, and the
  // judge executes its servers as /proc/self/exe (profiler/judge/runtime/server_identity.cpp):
  // "exe". The judge itself is executed as kernelbot-harness.
  std::vector<std::string> argv = {tool_path,
                                   "--tool",
                                   tool.name,
                                   "--target-processes-filter",
                                   kSanitizedProcessName,
                                   "--error-exitcode",
                                   std::to_string(kSanitizerErrorExit),
                                   "--print-limit",
                                   "20"};
  argv.insert(argv.end(), tool.options.begin(), tool.options.end());
  return argv;
}

HarnessJob sanitizer_job(const HarnessJob& full) {
  std::vector<size_t> sets = {smallest_size_index(full)};
  if (const size_t largest = largest_size_index(full); largest != sets.front()) sets.push_back(largest);
  HarnessJob job = size_sets_job(full, sets);
  job.trials = 1;
  job.strict = false;
  job.under_sanitizer = true;
  job.distributions = {full.distributions.empty() ? std::string("uniform") : full.distributions.front()};
  return job;
}

SanitizerFindings read_sanitizer_output(const std::string& tool, const SandboxResult& run, int error_exit_code) {
  SanitizerFindings f;
  const std::string text = run.out + run.err;
  // "ERROR SUMMARY: 3 errors" (memcheck, synccheck, initcheck),
  // "RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)",
  // "LEAK SUMMARY: 1024 bytes leaked in 1 allocations" (memcheck --leak-check full), and one
  // "Leaked 1,024 bytes at 0x7f2906800000" line per allocation (up to the print limit).
  // The counts' lengths are bounded: the candidate's own output is in the text, and std::regex
  // recurses once per character a repetition matches (100 KB of digits would overflow the stack).
  static const std::regex error_summary(R"(ERROR SUMMARY: ([\d,]{1,24}) error)");
  static const std::regex race_summary(R"(RACECHECK SUMMARY: [\d,]{1,24} hazards? displayed \(([\d,]{1,24}) errors?)");
  static const std::regex leak_summary(R"(LEAK SUMMARY: ([\d,]{1,24}) bytes? leaked in ([\d,]{1,24}) allocations?)");
  static const std::regex leaked_line(R"(^=+ +Leaked ([\d,]{1,24}) bytes? at )");
  std::istringstream in(text);
  size_t kept = 0, late = 0;
  int64_t leak_lines = 0, leak_line_bytes = 0, summary_allocations = 0, summary_bytes = 0;
  bool leak_summaries = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("=========")) continue;
    std::smatch m;
    const bool leaked = std::regex_search(line, m, leaked_line);
    if (leaked) {
      ++leak_lines;
      leak_line_bytes += count_of(m[1]);
    }
    if (std::regex_search(line, m, leak_summary)) {
      leak_summaries = true;
      summary_bytes += count_of(m[1]);
      summary_allocations += count_of(m[2]);
    }
    if (kept < kReportLines) {
      f.report += line + "\n";
      ++kept;
    } else if ((leaked || line.find("SUMMARY:") != std::string::npos) && late < kLateReportLines) {
      f.report += line + "\n";
      ++late;
    }
  }
  f.leaked_allocations = leak_summaries ? summary_allocations : leak_lines;
  f.leaked_bytes = leak_summaries ? summary_bytes : leak_line_bytes;
  std::smatch m;
  bool summary = false;
  if (std::regex_search(text, m, race_summary) || std::regex_search(text, m, error_summary)) {
    f.errors = count_of(m[1]);
    summary = true;
  }
  f.errors = std::max(f.errors, f.leaked_allocations);
  f.ran = run.started && !run.timed_out && !run.killed_for_memory && (summary || run.exit_code == error_exit_code);
  if (run.exit_code == error_exit_code && f.errors == 0) f.errors = 1;
  f.clean = f.ran && f.errors == 0;
  if (!f.ran && f.report.empty()) {
    std::string tail;
    std::istringstream lines(text);
    std::vector<std::string> all;
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) all.push_back(line);
    for (size_t i = all.size() > 10 ? all.size() - 10 : 0; i < all.size(); ++i) tail += all[i] + "\n";
    f.report = tool + ": " + run.describe() + "\n" + tail;
  }
  return f;
}

SanitizerRun read_sanitizer_run(const SanitizerTool& tool, const HarnessRun& run, int64_t max_memory_mb) {
  SanitizerRun r;
  r.findings = read_sanitizer_output(tool.name, run.process, kSanitizerErrorExit);
  r.timed_out = run.process.timed_out;
  r.wall_s = run.process.wall_s;
  const EvalResult classified = classify_harness_run(run, max_memory_mb);
  r.verdict = classified.verdict;
  r.reason = classified.reason;
  r.output_tail = run.process.err.substr(0, 4000);
  return r;
}

SanitizerOutcome run_sanitizer_pass(const SanitizerRunner& run, const std::vector<std::string>& sizes,
                                    int64_t at_once) {
  SanitizerOutcome out;
  const std::string at = (sizes.size() == 1 ? "one call at " : "one call at each of ") + join(sizes, ", ");
  const std::vector<SanitizerTool>& tools = sanitizer_tools();
  // The candidate's first run of each tool, started ahead: the tool being read holds one of the
  // `at_once` places (its own further runs, when it needs them, run in it), the others start the
  // next tools' first runs. A pass that ends early waits for those already started (each is
  // bounded by its timeout): their futures end with this scope.
  std::deque<std::future<SanitizerRun>> first_runs;
  size_t started = 0;
  const auto start_next = [&] {
    const SanitizerTool& tool = tools[started++];
    first_runs.push_back(std::async(std::launch::async, [&run, &tool] { return run(tool, false, 1); }));
  };
  const size_t ahead = static_cast<size_t>(std::max<int64_t>(1, at_once)) - 1;
  for (const SanitizerTool& tool : tools) {
    SanitizerRun candidate;
    if (ahead == 0) {
      candidate = run(tool, false, 1);  // one at a time: on this thread, nothing started ahead
    } else {
      while (started < tools.size() && first_runs.size() <= ahead) start_next();
      candidate = first_runs.front().get();
      first_runs.pop_front();
    }
    if (ended(tool, candidate, out)) return out;
    const SanitizerFindings& found = candidate.findings;
    if (found.errors > 0) out.report += found.report;
    // Memory still allocated at the end: allocated on every call (a leak), or once and kept?
    Leak leak;
    SanitizerFindings twice;
    if (tool.leak_check && found.leaked_allocations > 0) {
      const SanitizerRun again = run(tool, false, 2);
      if (ended(tool, again, out)) return out;
      twice = again.findings;
      leak = growth(found, twice);
    }
    const int64_t errors = found.other_errors();
    if (errors == 0 && !leak.any()) {
      if (found.leaked_allocations > 0)
        out.warnings.push_back("compute-sanitizer " + tool.name + ": the candidate keeps " +
                               memory_text(found.leaked_allocations, found.leaked_bytes) +
                               " of device memory that it never frees; allocated once, not on every call (a second "
                               "call at each size set left no more), so not a leak per call");
      out.tools.push_back(tool.label);
      continue;
    }
    // The original's code under the same tool: what it does too is not the candidate's doing.
    SanitizerFindings original;
    Leak original_leak;
    if (const SanitizerRun o = run(tool, true, 1); finished(o)) {
      original = o.findings;
      if (leak.any() && original.leaked_allocations > 0)
        if (const SanitizerRun o2 = run(tool, true, 2); finished(o2)) original_leak = growth(original, o2.findings);
    }
    out.tools.push_back(tool.label);
    const bool errors_held = errors > 0 && original.other_errors() == 0;
    const bool leak_held = leak.allocations > original_leak.allocations || leak.bytes > original_leak.bytes;
    if (errors > 0 && !errors_held)
      out.skipped.push_back("compute-sanitizer " + tool.name + " (" + at + "): " + plural_count(errors, "error") +
                            " (" + tool.finds + "); the original has " + std::to_string(original.other_errors()) +
                            " under the same tool");
    if (leak.any() && !leak_held)
      out.skipped.push_back("compute-sanitizer " + tool.name + "'s leak check (" + at + "): a second call at each " +
                            "size set left " + memory_text(leak.allocations, leak.bytes) +
                            " more never freed; the original's leave " +
                            memory_text(original_leak.allocations, original_leak.bytes));
    if (errors_held) {
      out.verdict = Verdict::rejected;
      out.reason = "compute-sanitizer " + tool.name + " found " + plural_count(errors, "error") + " (" + tool.finds +
                   ") in " + at + "; see the sanitizer report";
      return out;
    }
    if (leak_held) {
      out.verdict = Verdict::rejected;
      out.reason = "compute-sanitizer " + tool.name + " found device memory leaked on every call: a second call at " +
                   "each size set left " + memory_text(leak.allocations, leak.bytes) + " more never freed (after " +
                   at + ": " + memory_text(found.leaked_allocations, found.leaked_bytes) +
                   "; after two: " + memory_text(twice.leaked_allocations, twice.leaked_bytes) + "); " +
                   (original.leaked_allocations == 0
                        ? std::string("the original leaves none")
                        : "the original's second calls leave " +
                              memory_text(original_leak.allocations, original_leak.bytes)) +
                   "; see the sanitizer report for where it was allocated";
      return out;
    }
  }
  return out;
}

}  // namespace kb::profiler
