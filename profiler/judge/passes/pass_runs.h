// The device half of the verification passes (verification_pass.h holds their plans): what one
// pass needs from the verification that ran before it, and the one entry point that runs a pass
// by its key. Adding a pass: its key and plan in verification_pass.*, its run in a file of its
// own beside the others, one case in run_pass (the compiler names a key without one).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result_types.h"
#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/plans/verification_pass.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// The main trials' buffers, bound as slot s (s < job.size_count()) in both servers, holding the
// last main call at each size set; the passes that reuse them overwrite them.
struct MainTrialSets {
  std::vector<std::unique_ptr<ArgSet>> base, cand;
  std::vector<SizeChecks> checks;
};

struct PassContext {
  const DecodedJob& job;
  const Servers& servers;
  MainTrialSets& main;
  DeviceScratch& scratch;
  VerificationReport& report;
};

// Slots a pass lends to both servers, unmapped when the pass ends. Declare it after the argument
// sets it lends: it must run before they are freed.
class PassSlots {
 public:
  PassSlots(const Servers& servers, std::vector<int> ids) : servers_(servers), ids_(std::move(ids)) {}
  ~PassSlots();
  PassSlots(const PassSlots&) = delete;
  PassSlots& operator=(const PassSlots&) = delete;

 private:
  const Servers& servers_;
  std::vector<int> ids_;
};

// One size set's buffers for a pass that calls both variants on the same inputs: the original's
// (`base`) and the candidate's (`cand`), lent to both servers as slot `id` with the stream
// `stream` names, and unmapped (slots, declared last, goes first) before they are freed.
struct PassSet {
  PassSet(const PassContext& ctx, size_t size, int id, bool scaled,
          StreamChoice stream = StreamChoice::launcher_stream);
  ArgSet base, cand;
  SizeChecks checks;
  PassSlots slots;
};

// A pass's seed: past the seeds the report already lists (the main trials', earlier passes').
// Adds it to the report.
uint64_t next_pass_seed(PassContext& ctx);

// A pass's first trial at size set `size`: its own seed, the job's first distribution.
TrialPlan first_pass_trial(PassContext& ctx, size_t size);

// A condition the original itself fails: "<pass>: <condition>: the original <why>" goes to the
// report's skipped_checks (and the log), and the pass holds nothing against the candidate there.
void skip_for_original(PassContext& ctx, std::string_view pass, const std::string& condition, const std::string& why);

// Runs pass `key` as `plan` (which runs) says. Pending when it passed or was skipped; the
// candidate's failure otherwise. Throws VariantGone and HarnessError as verify_candidate does.
VerificationOutcome run_pass(PassKey key, const PassPlan& plan, PassContext& ctx);

}  // namespace kb::judge
