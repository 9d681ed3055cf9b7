#include "profiler/judge/passes/state_independence_check.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <cstring>

#include "common/os_random.h"
#include "profiler/judge/plans/state_change_plan.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

// Element `i` of a device buffer of `size`-byte elements, read or written synchronously (after
// the copies queued before it on the legacy stream).
uint64_t read_element(const void* buffer, size_t i, size_t size) {
  uint64_t bits = 0;
  cuda_check(cudaMemcpy(&bits, static_cast<const char*>(buffer) + i * size, size, cudaMemcpyDeviceToHost),
             "reading an input element");
  return bits;
}
void write_element(void* buffer, size_t i, size_t size, uint64_t bits) {
  cuda_check(cudaMemcpy(static_cast<char*>(buffer) + i * size, &bits, size, cudaMemcpyHostToDevice),
             "changing an input element");
}

// Changes a few elements of every input and inout buffer, identically in both sets and in the
// pristine copy. Returns the reason's words for them ("5 elements of input x changed (at ...)").
std::string change_inputs(const DecodedJob& job, ArgSet& base, ArgSet& cand, SizeChecks& checks) {
  std::string changed;
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (!a.is_read() || base.count(i) < 2) continue;
    const size_t size = dtype_size(a.type);
    const uint64_t source_seed = random_u64();
    std::vector<size_t> done;
    for (const size_t p : pick_change_positions(base.count(i), kChangedElementsPerInput, random_u64())) {
      const uint64_t old_bits = read_element(base.device(i), p, size);
      // A buffer of few distinct values (a narrow range) may need a few tries; none of them is a
      // failure, the element just keeps its value.
      for (int attempt = 0; attempt < 8; ++attempt) {
        const uint64_t bits = read_element(base.device(i), pick_source_position(base.count(i), p, source_seed, attempt),
                                           size);
        if (bits == old_bits) continue;
        write_element(base.device(i), p, size, bits);
        write_element(cand.device(i), p, size, bits);
        if (checks.pristine[i].get()) write_element(checks.pristine[i].get(), p, size, bits);
        done.push_back(p);
        break;
      }
    }
    if (done.empty()) continue;
    changed += (changed.empty() ? "" : ", ") +
               describe_changed_elements(a.role == ArgRole::inout ? "inout" : "input", a.name, done);
  }
  return changed;
}

bool any_inout(const DecodedJob& job) {
  for (const auto& a : job.args)
    if (a.role == ArgRole::inout) return true;
  return false;
}

// check_call's reason ends with " (" + context + ")": the reason here leads with the context.
}  // namespace

VerificationOutcome check_state_independence(const DecodedJob& job, const Servers& servers,
                                             const std::vector<std::unique_ptr<ArgSet>>& base_sets,
                                             const std::vector<std::unique_ptr<ArgSet>>& cand_sets,
                                             std::vector<SizeChecks>& checks, DeviceScratch& scratch,
                                             VerificationReport& report) {
  const bool traced = !job.raw.under_sanitizer;
  for (size_t s = 0; s < job.size_count(); ++s) {
    ArgSet& base = *base_sets[s];
    ArgSet& cand = *cand_sets[s];
    const int slot = static_cast<int>(s);
    // Each inout buffer's input to the previous call of the sequence (none before call 2).
    std::vector<JudgeBuffer> previous_inout(job.args.size());
    for (int call = 2; call <= kStateSequenceCalls; ++call) {
      const std::string which = describe_sequence_call(call, kStateSequenceCalls, job.raw.size_labels[s]);
      set_phase("state independence, " + which);
      // The previous call's correct result, in both sets: the original's. From the second call of
      // the sequence on, an inout buffer instead holds the previous call's input again: a result
      // keyed on part of an inout buffer (its first elements unchanged since the last call) must
      // still see the elements that changed.
      bool inout_restored = false;
      for (size_t i = 0; i < job.args.size(); ++i) {
        if (!job.args[i].is_written()) continue;
        if (previous_inout[i].get()) {
          copy_device(base.device(i), previous_inout[i].get(), base.bytes(i));
          inout_restored = true;
        }
        copy_device(cand.device(i), base.device(i), base.bytes(i));
      }
      const std::string changed = change_inputs(job, base, cand, checks[s]);
      for (size_t i = 0; i < job.args.size(); ++i) {
        if (job.args[i].role != ArgRole::inout) continue;
        if (!previous_inout[i].get()) previous_inout[i] = JudgeBuffer(base.bytes(i));
        copy_device(previous_inout[i].get(), base.device(i), base.bytes(i));
      }
      cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "preparing a state-independence call");
      const std::string context =
          which + ", after " + (changed.empty() ? std::string("no input changed") : changed) +
          (inout_restored ? ", every inout buffer holding the previous call's input and every output its result"
                          : ", every output holding the previous call's correct result");
      spdlog::debug("state independence: {}", context);
      const BothCalls calls = call_both(job, servers, slot, base, slot, cand, traced, context);
      if (calls.outcome.failed())
        return {calls.outcome.verdict, lead_with("state independence", context, calls.outcome.reason)};
      const VerificationOutcome checked = check_call(job, base, cand, checks[s], scratch, report, context);
      if (checked.failed()) return {checked.verdict, lead_with("state independence", context, checked.reason)};
    }
  }
  report.passes.push_back("state independence at " + std::to_string(job.size_count()) + " size set" +
                          (job.size_count() == 1 ? "" : "s") + ": " + std::to_string(kStateSequenceCalls) +
                          " calls on the same buffers, a few input elements changed between calls and the outputs "
                          "holding the previous call's result" +
                          (any_inout(job)
                               ? std::string(" (an inout buffer, in the last call, the previous call's input)")
                               : std::string()));
  return {};
}

}  // namespace kb::judge
