// State independence: after the main trials, each size's buffers see two more calls in which only
// a few input elements change (random positions past the first elements, new values from other
// elements of the same buffer, both drawn from the OS's random source) and the outputs, instead
// of poison, hold the previous call's correct result (the original's, copied into the
// candidate's buffers, so both start from identical bits; inout buffers likewise). The main
// trials' last call at the size is call 1 of the sequence. A launcher whose result depends on
// anything but its current inputs (a cache keyed on part of the input, a skip when the output
// already looks right) is wrong_result, naming the call, the changed elements and the output.
#pragma once

#include <memory>
#include <vector>

#include "core/result_types.h"
#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// The sequence's length, its first call included.
inline constexpr int kStateSequenceCalls = 3;

// `base_sets[s]` and `cand_sets[s]`, bound as slot s in the original's and the candidate's
// server, hold the main verification's last call at size s (inputs, outputs, `checks[s]`'s
// pristine inputs and error scales); all three are changed. Adds the calls' errors to `report`.
// Throws VariantGone and HarnessError as verify_candidate does.
VerificationOutcome check_state_independence(const DecodedJob& job, const Servers& servers,
                                             const std::vector<std::unique_ptr<ArgSet>>& base_sets,
                                             const std::vector<std::unique_ptr<ArgSet>>& cand_sets,
                                             std::vector<SizeChecks>& checks, DeviceScratch& scratch,
                                             VerificationReport& report);

}  // namespace kb::judge
