// The passes of a verification after its main trials, and the one interface they share. Each pass
// holds the candidate to the original under one condition a real caller creates (inputs changed in
// place, special values, sizes nobody configured, shifted pointers, another stream, a CUDA graph,
// concurrent callers, many calls): where the original itself fails the condition, the pass is
// skipped and the report says so; otherwise the candidate must do what the original does.
//
// A pass has three parts: its plan (this file: host-only, decided from the job, unit-tested without
// a GPU), its device run (pass_runs.h: one function per pass, in its own file), and its outcome:
// a verdict with a reason that names the pass and the condition, or one line in the report's
// `passes` (what the PR claims), or a line in `skipped_checks` (what the original itself fails).
// The registry below lists them in the order they run, as nvbench lists its stopping criteria.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

enum class PassKey {
  state_independence,
  special_values,
  generalization_sizes,
  alignment,
  per_thread_stream,
  gpu_slice,
  graph_capture,
  concurrent_callers,
  ledger,
};

// What a pass does for one job, decided before any call.
struct PassPlan {
  bool runs = true;
  // Why it does not run, when it cannot apply to this launcher at all (no stream argument to give,
  // no float input to fill with NaN): not a skip, since no caller could create the condition.
  std::string not_applicable;
  // The size sets it calls at, in order (empty: the pass chooses per case, e.g. every size set).
  std::vector<size_t> sizes;

  static PassPlan not_for(std::string why) {
    PassPlan p;
    p.runs = false;
    p.not_applicable = std::move(why);
    return p;
  }
};

struct PassInfo {
  PassKey key;
  std::string_view name;    // "CUDA graph capture": how reasons, logs and the docs name it
  std::string_view proves;  // one sentence a reviewer reads: what passing it shows
  PassPlan (*plan)(const DecodedJob& job);
  // Whether a screening runs it too. A screening never accepts (search/engine/screening.h): the caller's
  // contract is proven by the full measurement that can, once, not again for every candidate a
  // screening turns away.
  bool in_screening = true;
};

// A screening's job (it times only its first size sets): harness_job.h's timed_sizes.
bool is_screening(const DecodedJob& job);

// Every pass after the main trials, in the order verify_candidate runs them.
std::span<const PassInfo> verification_passes();
const PassInfo& pass_info(PassKey key);

// The size set with the most bytes (the first of equals): where a grid grows largest.
size_t largest_size_index(const DecodedJob& job);

// The two size sets the concurrent-callers pass calls at once: the two smallest by bytes (the same
// one twice when the job has one size set), different sizes at the least cost.
std::vector<size_t> concurrent_pass_sizes(const DecodedJob& job);

}  // namespace kb::judge
