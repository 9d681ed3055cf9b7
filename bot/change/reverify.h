// The PR contains exactly what was measured. The search measured its winner as a candidate
// translation unit, with -D values and extra nvcc flags, perhaps in an earlier run (the archive);
// the PR is a different thing: the kernel's own file with the winner spliced in, built with the
// project's flags only. So before a PR is opened or updated, that file, byte for byte, is compiled,
// verified and timed against the original on this job's GPU, and only a text that is correct and
// faster beyond the noise gets a PR, with the numbers of this measurement.
#pragma once

#include <optional>
#include <string>

#include "bot/change/source_splicer.h"
#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/types/search_types.h"

namespace kb::bot {

// Measures `change.updated` (the PR's file) against `change.original` on `evaluator`, with the
// options the search gives its candidates (timed, [verify].sanitize; the evaluator applies the
// strict re-check above [verify].strict_speedup), and judges it as pr_worthy_winner judges a
// search's winner. `candidate_id` is the winner it was spliced from, `by` the job measuring it
// ("kernelbot run"). A candidate's fault is a failed record, never an exception; the evaluator's
// own failures come back as verdict infra_error.
search::Reverification reverify_pr_text(const config::Config& config, const config::KernelSpec& spec,
                                        const SourceChange& change, const std::string& candidate_id,
                                        Evaluator& evaluator, const std::string& by);

// nullopt when `record` is a re-verification of exactly these texts (the original the search
// measured and the file the PR would now contain) for `candidate_id`; otherwise why it cannot
// vouch for this PR. Whether it passed is not judged here.
std::optional<std::string> record_mismatch(const search::Reverification& record, const SourceChange& change,
                                           const std::string& candidate_id);

}  // namespace kb::bot
