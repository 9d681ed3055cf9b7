#include "profiler/judge/call/judge.h"

#include "profiler/judge/buffers/arg_inputs.h"
#include "profiler/judge/outputs/device_checks.h"
#include "profiler/judge/runtime/cuda_check.h"

namespace kb::judge {

void put_scalars(Request& r, const ArgSet& set) {
  for (size_t i = 0; i < set.arg_count() && i < kMaxArgs; ++i) {
    if (!set.arg(i).is_value()) continue;  // buffers travel as IPC handles; streams are the server's
    r.has_scalar[i] = 1;
    r.scalars[i] = set.scalar(i);
  }
}

Request slot_request(Op op, const std::vector<int>& slots, int value) {
  Request r;
  r.op = op;
  r.value = value;
  r.slot_count = static_cast<uint32_t>(std::min(slots.size(), kMaxSlots));
  for (uint32_t k = 0; k < r.slot_count; ++k) r.slots[k] = slots[k];
  return r;
}

void expect_no_harness_error(const Reply& r, const char* what) {
  if (r.status == Status::harness_error)
    throw HarnessError(std::string("a variant server could not ") + what + ": " + untrusted_note(r, 300));
}

void expect_no_harness_error(const Reply& r, const char* what, const VariantProcess& server) {
  if (r.status == Status::harness_error && server.who() == Who::candidate)
    throw VariantGone(Who::candidate, false, true,
                      std::string("the candidate's process could not ") + what + " (\"" + untrusted_note(r, 300) +
                          "\"): the judge's work in the process that runs the candidate's code failed, which counts "
                          "against the candidate");
  expect_no_harness_error(r, what);
}

void bind_slot(VariantProcess& server, int id, const ArgSet& set, double timeout_s, StreamChoice stream) {
  if (set.arg_count() > kMaxArgs) throw HarnessError("more than 64 launcher arguments");
  Request r = slot_request(Op::bind, {id}, static_cast<int>(stream));
  // No size index: the server's job does not hold verification's own size sets (served_job.h).
  for (size_t i = 0; i < set.arg_count(); ++i) {
    if (!set.arg(i).is_buffer() || set.bytes(i) == 0) continue;
    r.counts[i] = set.count(i);
    r.has_handle[i] = 1;
    set.ipc_handle(i, r.handles[i]);
    r.offsets[i] = set.data_offset(i);
  }
  put_scalars(r, set);
  expect_no_harness_error(server.ask(r, timeout_s), "map the judge's buffers", server);
}

void fill_input_on_device(ArgSet& set, size_t i, Distribution trial, uint64_t seed, cudaStream_t stream) {
  const DecodedArg& a = set.arg(i);
  if (a.has_range()) {
    const InputRange& r = a.ranges[set.size_index()];
    cuda_check(launch_fill_range(set.device(i), static_cast<int>(a.type), r.lo, r.hi, seed, i, set.count(i), stream),
               "filling inputs");
    return;
  }
  cuda_check(launch_fill_random(set.device(i), static_cast<int>(a.type), static_cast<int>(input_distribution(a, trial)),
                                seed, i, set.count(i), stream),
             "filling inputs");
}

}  // namespace kb::judge
