#include "profiler/judge/call/judged_call.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "profiler/judge/buffers/arg_inputs.h"
#include "profiler/judge/buffers/guard_check.h"
#include "profiler/judge/inputs/dtype_codec.h"
#include "profiler/judge/outputs/device_checks.h"
#include "profiler/judge/outputs/output_comparator.h"
#include "profiler/judge/runtime/cuda_check.h"

namespace kb::judge {

std::string describe_trial(const DecodedJob& job, const TrialPlan& p, int64_t trials) {
  return "trial " + std::to_string(p.trial + 1) + " of " + std::to_string(trials) + " at size " +
         job.raw.size_labels[p.size] + " (distribution " + to_string(p.distribution) + ", seed " +
         std::to_string(p.seed) + ")";
}

OutputError& output_entry(VerificationReport& report, const DecodedArg& a) {
  for (auto& o : report.outputs)
    if (o.name == a.name) return o;
  OutputError o;
  o.name = a.name;
  o.dtype = to_string(a.type);
  o.rtol = a.tolerance.rtol;
  o.atol = a.tolerance.atol;
  report.outputs.push_back(o);
  return report.outputs.back();
}

JudgeBuffer::JudgeBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes) cuda_check(cudaMalloc(&ptr_, bytes), "allocating the judge's check buffers");
}

JudgeBuffer::~JudgeBuffer() {
  if (ptr_) cudaFree(ptr_);
}

JudgeBuffer& JudgeBuffer::operator=(JudgeBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

HostBuffer JudgeBuffer::download() const {
  HostBuffer out(bytes_);
  if (bytes_) cuda_check(cudaMemcpy(out.data(), ptr_, bytes_, cudaMemcpyDeviceToHost), "reading a check buffer");
  return out;
}

SizeChecks size_checks(const DecodedJob& job, const ArgSet& set, bool scaled) {
  SizeChecks c;
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    const size_t bytes = set.bytes(i);
    c.pristine.emplace_back(a.role == ArgRole::input ? bytes : 0);
    c.scale.emplace_back(scaled && a.is_written() && a.error_scale == ErrorScale::abs_inputs ? bytes : 0);
  }
  return c;
}

bool needs_error_scale(const DecodedJob& job) {
  for (const auto& a : job.args)
    if (a.is_written() && a.error_scale == ErrorScale::abs_inputs) return true;
  return false;
}

DeviceScratch::DeviceScratch()
    : counter_(sizeof(unsigned long long)),
      stats_(sizeof(DeviceOutputStats)),
      reference_counts_(3 * sizeof(unsigned long long)) {}

ReferenceCounts DeviceScratch::count_reference(DType t, ArgRole role, const void* data, size_t count) {
  ReferenceCounts c;
  c.count = count;
  if (count == 0) return c;
  auto* counts = static_cast<unsigned long long*>(reference_counts_.get());
  uint64_t poison = 0;
  fill_poison(t, &poison, 1);
  cuda_check(cudaMemsetAsync(counts, 0, 3 * sizeof *counts, cudaStreamLegacy), "clearing the reference's counts");
  cuda_check(launch_reference_counts(data, static_cast<int>(t), count, role == ArgRole::output, poison, counts,
                                     cudaStreamLegacy),
             "counting the reference's values");
  unsigned long long got[3] = {};
  cuda_check(cudaMemcpy(got, counts, sizeof got, cudaMemcpyDeviceToHost), "reading the reference's counts");
  uint64_t first = 0;
  cuda_check(cudaMemcpy(&first, data, dtype_size(t), cudaMemcpyDeviceToHost), "reading the reference's first element");
  c.poison = got[0];
  c.finite = got[1];
  c.differ = got[2];
  c.first = load_double(t, &first, 0);
  return c;
}

unsigned long long DeviceScratch::count_differences(const void* a, const void* b, size_t bytes) {
  if (bytes == 0) return 0;
  auto* counter = static_cast<unsigned long long*>(counter_.get());
  cuda_check(cudaMemsetAsync(counter, 0, sizeof *counter, cudaStreamLegacy), "clearing a counter");
  cuda_check(launch_count_differences(a, b, bytes, counter, cudaStreamLegacy), "comparing buffers");
  unsigned long long n = 0;
  cuda_check(cudaMemcpy(&n, counter, sizeof n, cudaMemcpyDeviceToHost), "reading a counter");
  return n;
}

void copy_device(void* to, const void* from, size_t bytes) {
  if (bytes)
    cuda_check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, cudaStreamLegacy), "copying a buffer");
}

void prepare(const DecodedJob& job, const TrialPlan& p, SizeChecks& checks, ArgSet& base, ArgSet& cand) {
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.is_read()) {
      fill_input_on_device(base, i, p.distribution, p.seed, cudaStreamLegacy);
      copy_device(cand.device(i), base.device(i), base.bytes(i));
      if (checks.pristine[i].get()) copy_device(checks.pristine[i].get(), base.device(i), base.bytes(i));
    } else if (a.is_value() && a.values[p.size].empty()) {
      const double v = random_scalar(a.type, input_distribution(a, p.distribution), p.seed, i);
      base.set_scalar(i, v);
      cand.set_scalar(i, v);
    }
  }
  base.poison_outputs();
  cand.poison_outputs();
  cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "preparing a trial");
}

void prepare_keeping_scalars(const DecodedJob& job, const TrialPlan& p, SizeChecks& checks, ArgSet& base, ArgSet& cand,
                             const std::vector<double>& kept_scalars) {
  prepare(job, p, checks, base, cand);
  for (size_t i = 0; i < job.args.size() && i < kept_scalars.size(); ++i)
    if (job.args[i].is_value()) {
      base.set_scalar(i, kept_scalars[i]);
      cand.set_scalar(i, kept_scalars[i]);
    }
}

VerificationOutcome compute_error_scale(const DecodedJob& job, const Servers& servers, const TrialPlan& p,
                                        SizeChecks& checks, ArgSet& base, ArgSet& cand, const std::string& trial_text,
                                        int slot, const std::vector<double>* kept_scalars) {
  if (kept_scalars) prepare_keeping_scalars(job, p, checks, base, cand, *kept_scalars);
  else prepare(job, p, checks, base, cand);
  std::vector<double> scalars(job.args.size());
  for (size_t i = 0; i < job.args.size(); ++i) scalars[i] = base.scalar(i);
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.role == ArgRole::input || a.role == ArgRole::inout) {
      cuda_check(launch_abs_in_place(base.device(i), static_cast<int>(a.type), base.count(i), cudaStreamLegacy),
                 "taking |inputs|");
    } else if (a.is_value() && dtype_is_float(a.type)) {
      base.set_scalar(i, std::fabs(base.scalar(i)));
    }
  }
  cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "taking |inputs|");
  const Reply sc = call(*servers.baseline, slot < 0 ? static_cast<int>(p.size) : slot, base, false, servers.timeout_s);
  if (sc.status == Status::fault)
    return {Verdict::infra_error,
            "the original kernel failed on |inputs|: " + fault_text(sc) + " (" + trial_text + ")"};
  for (size_t i = 0; i < job.args.size(); ++i) {
    if (checks.scale[i].get()) copy_device(checks.scale[i].get(), base.device(i), base.bytes(i));
    if (job.args[i].is_value()) base.set_scalar(i, scalars[i]);
  }
  return {};
}

namespace {

// compare_output's numbers, computed on the GPU; when anything fails, the buffers are read back
// and compared on the host, which also finds the elements the reason names.
OutputComparison compare_on_device(const DecodedArg& a, const ArgSet& base, const ArgSet& cand, size_t i,
                                   const JudgeBuffer& scale, DeviceOutputStats* stats) {
  uint64_t poison = 0;
  fill_poison(a.type, &poison, 1);
  cuda_check(cudaMemsetAsync(stats, 0, sizeof *stats, cudaStreamLegacy), "clearing the comparison");
  cuda_check(launch_output_stats(base.device(i), cand.device(i), scale.get(), static_cast<int>(a.type), base.count(i),
                                 a.tolerance.rtol, a.tolerance.atol, poison, stats, cudaStreamLegacy),
             "comparing outputs");
  DeviceOutputStats got;
  cuda_check(cudaMemcpy(&got, stats, sizeof got, cudaMemcpyDeviceToHost), "reading the comparison");
  if (got.mismatches > 0) {
    const HostBuffer ref = base.download(i), out = cand.download(i);
    const HostBuffer sc = scale.get() ? scale.download() : HostBuffer{};
    OutputComparison host = compare_output(a.type, ref.data(), out.data(), base.count(i), a.tolerance,
                                           sc.empty() ? nullptr : sc.data());
    // The GPU's count is the verdict; the read-back only explains it. When the buffers agree
    // once read back, they changed after the comparison ran: the caller reports that.
    if (host.passed()) host.changed_after_check = static_cast<int64_t>(got.mismatches);
    return host;
  }
  auto value = [](unsigned long long bits) {
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  };
  OutputComparison c;
  c.scaled = scale.get() != nullptr;
  c.elements = static_cast<int64_t>(got.elements);
  c.max_abs_error = value(got.max_abs_bits);
  c.max_rel_error = value(got.max_rel_bits);
  c.max_reference = value(got.max_ref_bits);
  return c;
}

}  // namespace

Reply call(VariantProcess& server, int id, const ArgSet& set, bool traced, double timeout_s) {
  Request r = slot_request(Op::call, {id}, traced ? 1 : 0);
  put_scalars(r, set);
  const Reply reply = server.ask(r, timeout_s);
  expect_no_harness_error(reply, "call the launcher", server);
  return reply;
}

std::string fault_text(const Reply& r) { return untrusted_note(r, 300); }

std::string late_work_advice(const DecodedJob& job) {
  if (const DecodedArg* stream = stream_arg(job))
    return "queue the work on the stream argument '" + stream->name +
           "', or make that stream wait for your streams before returning; it may be a non-blocking stream, which "
           "work on the legacy default stream (a kernel or cudaMemsetAsync without a stream) is not ordered with";
  return "use the default stream, or make it wait for your streams before returning";
}

BothCalls call_both(const DecodedJob& job, const Servers& servers, int base_id, const ArgSet& base, int cand_id,
                    const ArgSet& cand, bool traced, const std::string& trial_text) {
  BothCalls r;
  const Reply b = call(*servers.baseline, base_id, base, traced, servers.timeout_s);
  if (b.status == Status::fault) {
    r.original_faulted = true;
    r.outcome = {Verdict::infra_error, "the original kernel failed: " + fault_text(b) + " (" + trial_text + ")"};
    return r;
  }
  const Reply c = call(*servers.candidate, cand_id, cand, traced, servers.timeout_s);
  if (c.status == Status::fault)
    r.outcome = {Verdict::crashed,
                 "the candidate's launch failed: " + fault_text(c) + " during verification " + trial_text};
  else if (c.status == Status::late_work)
    r.outcome = {Verdict::rejected, "the candidate does work on a stream the caller does not wait for: " +
                                        fault_text(c) + " (" + late_work_advice(job) + ") (" + trial_text + ")"};
  return r;
}

VerificationOutcome check_call(const DecodedJob& job, const ArgSet& base, const ArgSet& cand, const SizeChecks& checks,
                               DeviceScratch& scratch, VerificationReport& report, const std::string& trial_text) {
  // A write outside a buffer first: it names the bug, where the outputs only show its effects.
  if (VerificationOutcome g = check_guards(base, cand, trial_text); g.failed()) return g;
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.role != ArgRole::input || base.bytes(i) == 0) continue;
    const void* pristine = checks.pristine[i].get();
    if (scratch.count_differences(pristine, base.device(i), base.bytes(i)) > 0) {
      const auto change = compare_input(a.type, checks.pristine[i].download().data(), base.download(i).data(),
                                        base.count(i));
      return {Verdict::infra_error, describe_input_change(a.name, "original kernel", change) +
                                        ": declare it role = \"inout\" in the [[kernel]] spec (" + trial_text + ")"};
    }
    if (scratch.count_differences(pristine, cand.device(i), cand.bytes(i)) > 0) {
      const auto change = compare_input(a.type, checks.pristine[i].download().data(), cand.download(i).data(),
                                        cand.count(i));
      return {Verdict::wrong_result, describe_input_change(a.name, "candidate", change) + " (" + trial_text + ")"};
    }
  }
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (!a.is_written() || base.bytes(i) == 0) continue;
    const OutputComparison cmp = compare_on_device(a, base, cand, i, checks.scale[i],
                                                   static_cast<DeviceOutputStats*>(scratch.stats()));
    OutputError& o = output_entry(report, a);
    o.elements += cmp.elements;
    o.mismatches += cmp.mismatches;
    if (std::isfinite(cmp.max_abs_error)) o.max_abs_error = std::max(o.max_abs_error, cmp.max_abs_error);
    if (std::isfinite(cmp.max_rel_error)) o.max_rel_error = std::max(o.max_rel_error, cmp.max_rel_error);
    o.max_reference = std::max(o.max_reference, cmp.max_reference);
    report.worst_abs_error = std::max(report.worst_abs_error, o.max_abs_error);
    report.worst_rel_error = std::max(report.worst_rel_error, o.max_rel_error);
    if (cmp.changed_after_check > 0)
      return {Verdict::rejected,
              describe_change_after_check("output " + a.name, cmp.changed_after_check) + " (" + trial_text + ")"};
    if (!cmp.passed())
      return {Verdict::wrong_result, describe_output_failure(a.name, cmp, a.tolerance) + " (" + trial_text + ")"};
  }
  return {};
}

std::string lead_with(const std::string& pass, const std::string& context, std::string reason) {
  const std::string suffix = " (" + context + ")";
  if (reason.ends_with(suffix)) reason.resize(reason.size() - suffix.size());
  return pass + ": " + context + ": " + reason;
}

}  // namespace kb::judge
