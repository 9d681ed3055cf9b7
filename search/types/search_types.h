// What a search produces: every candidate it tried, as a tree (each with its parent, idea and
// round), its verdict and measurements, and the winner. Serialized for --json, the archive and
// the PR body's idea path.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/result_types.h"
#include "core/variant.h"

namespace kb::search {

// A natural-language optimization idea, written before any code.
struct Idea {
  std::string text;    // "Use 256-thread blocks: 32-thread blocks cap occupancy at 25%"
  std::string family;  // memory_access | async_latency | precision | control_flow | parallelism | fusion | compile_flags
  std::string rationale;
};

// A candidate's screening (search/engine/screening.h), when it had one.
struct ScreeningRecord {
  bool ran = false;
  bool passed = false;  // correct on the screening (then screened out or fully evaluated)
  double speedup = 0;   // at the main size, from the short timing
  double noise = 0;     // relative noise of that ratio
  double run_s = 0;
  std::map<std::string, double> phase_s;        // the screening job's EvalResult::phase_s
  std::map<std::string, double> pass_s;         // its VerificationReport::pass_s
  std::map<std::string, double> timing_part_s;  // its EvalResult::timing_part_s
};

// The id of the original's node in the tree.
inline constexpr const char* kBaselineId = "baseline";

// One node of the search tree.
struct CandidateRecord {
  std::string id;         // "r2-i1-b0" (round, idea, branch); kBaselineId for the original
  std::string parent_id;  // the seed it was derived from ("baseline" in round 1)
  int64_t round = 0;
  Idea idea;
  Variant variant;
  // The one source of its verdict, reason, speedup and timings: the full evaluation, or the
  // screening when it ended there. A candidate that never reached the evaluator (no code, no
  // compile) has its verdict and reason here too. For the original: its profile.
  EvalResult eval;
  bool from_archive = false;    // not measured in this run: the archive's earlier result was reused
  std::string variant_hash;     // content hash of source, defines and flags (the archive's key)
  int64_t device_index = -1;    // the GPU that evaluated it (-1: not evaluated in this run)
  bool compile_cached = false;  // the evaluator's compile cache already held this variant
  ScreeningRecord screening;    // eval holds the full evaluation, or the screening when it ended there

  // Read from `eval`, never stored beside it (the JSON still has each under its own key):
  bool is_original() const { return id == kBaselineId; }
  Verdict verdict() const { return eval.verdict; }
  // The original's is "the original, measured on its own" (its profile's own reason stays in eval).
  const std::string& reason() const;
  // vs the original, the geometric mean over size sets, for a correct candidate; 0 for any other
  // verdict; 1 for the original.
  double speedup() const;
  // At the first size set: the candidate's median (the original's, for the original); 0 untimed.
  double median_us() const;
  // Seconds this run spent compiling it (SearchPhases::compile_s sums them): 0 for an archived
  // record (an earlier run compiled it) and for the original (counted in SearchPhases::original_s).
  double compile_s() const;
};

// Where a search's evaluation time went ([search] screening): counts of the candidates this run
// measured and seconds summed over them (over every GPU: more than the wall time with several).
struct SearchPhases {
  bool screening = false;
  int64_t screened = 0;
  int64_t screened_out = 0;      // correct on the screening, clearly slower: never fully measured
  int64_t failed_screening = 0;  // wrong, crashed, hung on the screening
  int64_t fully_evaluated = 0;
  double compile_s = 0;
  double screen_s = 0;
  double full_s = 0;  // full verification and timing
  // Inside those evaluations: seconds per phase of the harness jobs (EvalResult::phase_s: start,
  // verification, timing, wall-clock check, metrics, sandbox), summed over screening and full.
  std::map<std::string, double> job_phase_s;
  // Inside their verification: seconds in the main trials and in each pass (VerificationReport::pass_s).
  std::map<std::string, double> pass_s;
  // Inside their timing: seconds by part (EvalResult::timing_part_s).
  std::map<std::string, double> timing_part_s;
  // The search's own time, outside the candidates' jobs (what leaves a GPU idle): measuring the
  // original (its compile, timing and counters), the proposer's ideas, GPU workers waiting for a
  // candidate (its compile or the proposer's reply; summed over GPUs), the winner's counters.
  double original_s = 0;
  double proposing_s = 0;
  double gpu_wait_s = 0;
  double winner_metrics_s = 0;
};

// How much of each budget was spent.
struct BudgetUse {
  int64_t candidates = 0;  // compiled in this run (archive reuses are free)
  double wall_time_s = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double cost_usd = 0;
  int64_t llm_requests = 0;
};

// The PR's exact text measured after the search (bot/change/reverify.h fills it; the search never does):
// the kernel's file as the PR changes it, compiled with nothing but the project's own flags,
// verified and timed against the original in the job that publishes it, or that saves it for
// `kernelbot publish`. A PR is opened only on a record that passed and is of the same two texts;
// its timing and correctness tables come from here, not from the search.
struct Reverification {
  bool ran = false;             // false: never re-verified (no winner, or saved by an older kernelbot)
  std::string candidate_id;     // the search's winner that was spliced into the file
  std::string path;             // the file, relative to the repository root
  std::string original_sha256;  // the original text it was measured against
  std::string text_sha256;      // the spliced text: exactly the PR's file
  std::string by;               // the job that measured it: "kernelbot run", "kernelbot pr", ...
  std::string at;               // when (ISO-8601, UTC)
  bool sanitize = false;        // compute-sanitizer was asked for ([verify].sanitize)
  double strict_speedup = 0;    // [verify].strict_speedup the evaluator ran under
  double min_speedup = 0;       // [bench].min_speedup it was judged against
  EvalResult eval;              // the evaluator's verdict, verification and timings of that text
  bool passed = false;          // accepted, faster beyond the noise, at least min_speedup
  std::string failure;          // why it did not pass (empty when it did)
};

// A verified speedup no PR can deliver: a probe of a block size the launcher's callers choose
// (search/types/advisory_findings.h). Reported in the run summary, never published.
struct AdvisoryFinding {
  std::string candidate_id;  // the probe's record in the tree
  std::string subject;       // "launch_gather's caller-chosen `threads` (64 in this config)"
  std::string value;         // the probed value: "256"
  std::string setting;       // the whole variant as the tuner labels it
  double speedup = 0;
};

// The kernel's original does not compile as the evaluator builds it: there is nothing to search
// from. `log` is the compiler's whole output (the command that ran the search adds the hints).
struct OriginalDoesNotCompile : Error {
  OriginalDoesNotCompile(const std::string& what, std::string compile_log) : Error(what), log(std::move(compile_log)) {}
  std::string log;
};

// Why a search stopped, as a value code can test (stop_reason says it to people).
enum class SearchStop {
  rounds_done,         // every round ran
  budget,              // a budget was spent
  proposer_failed,     // the proposer could not be asked: with no winner, the search failed
  proposer_exhausted,  // the proposer had no ideas left
  evaluator_failing,   // every candidate of a round was the evaluator's failure
  no_gain,             // a round improved the best by less than min_round_gain
};

struct SearchResult {
  std::string kernel;
  std::string proposer;
  std::vector<CandidateRecord> tree;  // in evaluation order, baseline first
  std::string best_id;                // empty: nothing beat the original
  std::string stop_reason;            // "rounds done", "no gain in round 3", "budget: candidates", ...
  // The kind of stop_reason. In memory only, for the command that ran the search (its exit
  // status); the JSON keeps stop_reason's words, and a result read back says rounds_done.
  SearchStop stop = SearchStop::rounds_done;
  BudgetUse budget;
  DeviceInfo device;
  EvalResult baseline_profile;  // the original measured on its own (timing + metrics)
  int64_t rounds_run = 0;
  std::string archive_path;                 // empty: no archive
  int64_t archive_reused = 0;               // candidates whose result came from the archive
  Reverification reverification;            // the PR's text measured after the search (bot/, not the engine)
  std::vector<AdvisoryFinding> advisories;  // verified probes of caller-chosen arguments (never PRs)
  SearchPhases phases;                      // screening and full evaluation: counts and time

  const CandidateRecord* find(const std::string& id) const;
  const CandidateRecord* best() const { return best_id.empty() ? nullptr : find(best_id); }
  // The original's text exactly as the search measured it (the baseline record's source): what
  // a PR's change is spliced into. Throws kb::Error when the result has no baseline record.
  const std::string& original_source() const;
  // From the original to `id`, following parents.
  std::vector<const CandidateRecord*> path_to(const std::string& id) const;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Idea, text, family, rationale)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ScreeningRecord, ran, passed, speedup, noise, run_s, phase_s, pass_s,
                                                timing_part_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchPhases, screening, screened, screened_out, failed_screening,
                                                fully_evaluated, compile_s, screen_s, full_s, job_phase_s, pass_s,
                                                timing_part_s, original_s, proposing_s, gpu_wait_s, winner_metrics_s)
// The record's JSON keeps a key for each accessor (verdict, reason, speedup, median_us,
// compile_s) beside eval; reading, eval is the source, and verdict and reason written by an older
// kernelbot (which could differ from its eval's) are taken over into it.
void to_json(nlohmann::json& j, const CandidateRecord& r);
void from_json(const nlohmann::json& j, CandidateRecord& r);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BudgetUse, candidates, wall_time_s, prompt_tokens, completion_tokens,
                                                cost_usd, llm_requests)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Reverification, ran, candidate_id, path, original_sha256, text_sha256,
                                                by, at, sanitize, strict_speedup, min_speedup, eval, passed, failure)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AdvisoryFinding, candidate_id, subject, value, setting, speedup)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchResult, kernel, proposer, tree, best_id, stop_reason, budget,
                                                device, baseline_profile, rounds_run, archive_path, archive_reused,
                                                reverification, advisories, phases)

}  // namespace kb::search
