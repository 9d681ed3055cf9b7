// One judged call of both variants on the judge's buffers, in pieces every verification pass
// shares: the judge's own check buffers, preparing a call's inputs (identical in both sets),
// calling each server on its slot, and checking what the call left behind (inputs unchanged,
// every output element within tolerance of the original's). The passes (verifier.h and the
// checks beside it) differ only in which buffers, sizes and inputs they use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result_types.h"
#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/outputs/reference_check.h"
#include "profiler/judge/outputs/verification_outcome.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// One call's plan: which size, which seed, which distribution.
struct TrialPlan {
  int64_t trial = 0;  // 0-based trial number
  size_t size = 0;
  uint64_t seed = 0;
  Distribution distribution = Distribution::uniform;
};

// "trial 2 of 3 at size n=1000 (distribution normal, seed 42)", for reasons.
std::string describe_trial(const DecodedJob& job, const TrialPlan& p, int64_t trials);

// The report's entry for output `a` (created on first use).
OutputError& output_entry(VerificationReport& report, const DecodedArg& a);

// Device memory the judge keeps for itself: never lent to a server.
class JudgeBuffer {
 public:
  JudgeBuffer() = default;
  explicit JudgeBuffer(size_t bytes);  // throws HarnessError when device memory runs out
  ~JudgeBuffer();
  JudgeBuffer(JudgeBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  JudgeBuffer& operator=(JudgeBuffer&& o) noexcept;
  void* get() const { return ptr_; }
  HostBuffer download() const;

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// One size set's judge-owned buffers: the inputs as generated (the variants' copies are compared
// with them after every call) and the error scales (error_scale = "abs_inputs" outputs).
struct SizeChecks {
  std::vector<JudgeBuffer> pristine, scale;
};
SizeChecks size_checks(const DecodedJob& job, const ArgSet& set, bool scaled);
// Whether any output's allowed error scales with the original's outputs on |inputs|.
bool needs_error_scale(const DecodedJob& job);

// The judge's scratch on the GPU for counting differences and comparing outputs.
class DeviceScratch {
 public:
  DeviceScratch();
  // Bytes of `a` and `b` that differ, counted on the GPU.
  unsigned long long count_differences(const void* a, const void* b, size_t bytes);
  // check_reference's counts of `count` elements of type `t` at `data` (device memory), taken on
  // the GPU: three counts and element 0 are read back, not the buffer.
  ReferenceCounts count_reference(DType t, ArgRole role, const void* data, size_t count);
  void* stats() const { return stats_.get(); }

 private:
  JudgeBuffer counter_, stats_, reference_counts_;
};

// Device-to-device copy on the legacy default stream (asynchronous).
void copy_device(void* to, const void* from, size_t bytes);

// Inputs of one call, generated on the GPU into the original's set and copied into the
// candidate's (and the pristine copy); outputs poisoned; the same random scalars in both.
void prepare(const DecodedJob& job, const TrialPlan& p, SizeChecks& checks, ArgSet& base, ArgSet& cand);

// Fills `checks.scale` for plan `p`: the original's outputs on |inputs| (error_scale =
// "abs_inputs"). Leaves `base`'s inputs as |inputs|: prepare() again before the judged call.
// The original is called on slot `slot` (-1: slot p.size, the main trials' own).
// `kept_scalars` (one per argument), when given, replaces the plan's random scalars: a call whose
// scalars were fixed earlier (a captured graph's) is scaled with the scalars it runs with.
VerificationOutcome compute_error_scale(const DecodedJob& job, const Servers& servers, const TrialPlan& p,
                                        SizeChecks& checks, ArgSet& base, ArgSet& cand, const std::string& trial_text,
                                        int slot = -1, const std::vector<double>* kept_scalars = nullptr);

// prepare(), then `kept_scalars` (one per argument: ArgSet::scalar's values) put back in both sets.
void prepare_keeping_scalars(const DecodedJob& job, const TrialPlan& p, SizeChecks& checks, ArgSet& base, ArgSet& cand,
                             const std::vector<double>& kept_scalars);

// Asks `server` to call its launcher on slot `id` with `set`'s scalars. Throws VariantGone;
// HarnessError for the server's own failure.
Reply call(VariantProcess& server, int id, const ArgSet& set, bool traced, double timeout_s);
// The untrusted text of a reply, bounded, for a reason.
std::string fault_text(const Reply& r);
// What a candidate that left work behind should do instead, for the launcher it implements.
std::string late_work_advice(const DecodedJob& job);

// Calls the original on slot `base_id`, then the candidate on `cand_id`. A fault of the original
// is an infra_error (the caller may choose to skip the condition instead: `original_faulted`
// says which), of the candidate `crashed`, work the caller does not wait for `rejected`.
struct BothCalls {
  VerificationOutcome outcome;
  bool original_faulted = false;
};
BothCalls call_both(const DecodedJob& job, const Servers& servers, int base_id, const ArgSet& base, int cand_id,
                    const ArgSet& cand, bool traced, const std::string& trial_text);

// After a call of both on identical inputs: no byte outside a buffer changed (guard_check.h),
// the inputs (role "input") must equal the pristine
// copy, and every output must match the original's within tolerance, written everywhere.
// Adds the call's errors to `report`'s outputs. Returns the failure, or pending.
VerificationOutcome check_call(const DecodedJob& job, const ArgSet& base, const ArgSet& cand, const SizeChecks& checks,
                               DeviceScratch& scratch, VerificationReport& report, const std::string& trial_text);

// A pass's failure reason led by the pass and its case: "state independence: <context>: <reason>",
// without the " (<context>)" that check_call and call_both already appended at its end.
std::string lead_with(const std::string& pass, const std::string& context, std::string reason);

}  // namespace kb::judge
