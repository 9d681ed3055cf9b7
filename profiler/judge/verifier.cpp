#include "profiler/judge/verifier.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "profiler/judge/arg_inputs.h"
#include "profiler/judge/cuda_check.h"
#include "profiler/judge/device_checks.h"
#include "profiler/judge/dtype_codec.h"
#include "profiler/judge/output_comparator.h"
#include "profiler/judge/served_job.h"
#include "profiler/judge/tolerance_warning.h"

namespace kb::judge {
namespace {

// One call's plan: which size, which seed, which distribution.
struct TrialPlan {
  int64_t trial = 0;  // 0-based trial number
  size_t size = 0;
  uint64_t seed = 0;
  Distribution distribution = Distribution::uniform;
};

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

// Device memory the judge keeps for itself: never lent to a server.
class JudgeBuffer {
 public:
  JudgeBuffer() = default;
  explicit JudgeBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes) cuda_check(cudaMalloc(&ptr_, bytes), "allocating the judge's check buffers");
  }
  ~JudgeBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  JudgeBuffer(JudgeBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  JudgeBuffer& operator=(JudgeBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  void* get() const { return ptr_; }
  HostBuffer download() const {
    HostBuffer out(bytes_);
    if (bytes_) cuda_check(cudaMemcpy(out.data(), ptr_, bytes_, cudaMemcpyDeviceToHost), "reading a check buffer");
    return out;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// One size set's judge-owned buffers for the whole verification: the inputs as generated (the
// variants' copies are compared with them after every call) and the error scales. The variants'
// first outputs (the determinism check) are held only while that check runs: with every size
// set's buffers alive at once, keeping them too would add two more copies of every output.
struct SizeChecks {
  std::vector<JudgeBuffer> pristine, scale;
};

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

void copy_device(void* to, const void* from, size_t bytes) {
  if (bytes)
    cuda_check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, cudaStreamLegacy), "copying a buffer");
}

// Inputs of one trial, generated on the GPU into the original's set and copied into the
// candidate's (and the pristine copy); outputs poisoned; the same random scalars in both.
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

// Counts the bytes of `a` and `b` that differ, on the GPU.
unsigned long long count_differences(const void* a, const void* b, size_t bytes, unsigned long long* counter) {
  if (bytes == 0) return 0;
  cuda_check(cudaMemsetAsync(counter, 0, sizeof *counter, cudaStreamLegacy), "clearing a counter");
  cuda_check(launch_count_differences(a, b, bytes, counter, cudaStreamLegacy), "comparing buffers");
  unsigned long long n = 0;
  cuda_check(cudaMemcpy(&n, counter, sizeof n, cudaMemcpyDeviceToHost), "reading a counter");
  return n;
}

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

// Asks `server` to call its launcher on slot `id`. Returns the late-work note ("" when none);
// throws VariantGone; a non-sticky fault of the candidate becomes `fault`, of the original a
// HarnessError-like infra failure through `fault` too (the caller tells them apart).
Reply call(VariantProcess& server, int id, const ArgSet& set, bool traced, double timeout_s) {
  Request r = slot_request(Op::call, {id}, traced ? 1 : 0);
  put_scalars(r, set);
  const Reply reply = server.ask(r, timeout_s);
  expect_no_harness_error(reply, "call the launcher");
  return reply;
}

std::string fault_text(const Reply& r) { return untrusted_note(r, 300); }

// What a candidate that left work behind should do instead, for the launcher it implements.
std::string late_work_advice(const DecodedJob& job) {
  if (const DecodedArg* stream = stream_arg(job))
    return "queue the work on the stream argument '" + stream->name +
           "', or make that stream wait for your streams before returning";
  return "use the default stream, or make it wait for your streams before returning";
}

bool needs_error_scale(const DecodedJob& job) {
  for (const auto& a : job.args)
    if (a.is_written() && a.error_scale == ErrorScale::abs_inputs) return true;
  return false;
}

}  // namespace

VerificationOutcome verify_candidate(const DecodedJob& job, const Servers& servers, bool strict,
                                     VerificationReport& report) {
  const bool traced = !job.raw.under_sanitizer;
  const size_t sizes = job.size_count();
  const int64_t trials = job.raw.trials * (strict ? 3 : 1);
  report = VerificationReport{};
  report.trials = trials;
  report.sizes = job.raw.size_labels;
  for (const auto& a : job.args)
    if (a.is_written()) output_entry(report, a);

  // Buffers live for the whole verification: the same addresses in every trial.
  std::vector<std::unique_ptr<ArgSet>> base_sets, cand_sets;
  std::vector<SizeChecks> checks;
  // Unmapped by the servers before the judge frees the buffers (declared after them: runs first).
  struct Unbind {
    const Servers& servers;
    std::vector<int> ids;
    ~Unbind() {
      for (VariantProcess* p : {servers.baseline, servers.candidate}) try {
          if (p && !ids.empty()) p->ask(slot_request(Op::unbind, ids), servers.timeout_s);
        } catch (const std::exception&) {
          // A dead server holds no mappings.
        }
    }
  } unbind{servers, {}};
  const bool scaled = needs_error_scale(job);
  for (size_t s = 0; s < sizes; ++s) {
    unbind.ids.push_back(static_cast<int>(s));
    base_sets.push_back(std::make_unique<ArgSet>(job, s));
    cand_sets.push_back(std::make_unique<ArgSet>(job, s));
    checks.push_back(size_checks(job, *base_sets[s], scaled));
    bind_slot(*servers.baseline, static_cast<int>(s), *base_sets[s], servers.timeout_s);
    bind_slot(*servers.candidate, static_cast<int>(s), *cand_sets[s], servers.timeout_s);
  }
  JudgeBuffer counter_memory(sizeof(unsigned long long)), stats_memory(sizeof(DeviceOutputStats));
  auto* counter = static_cast<unsigned long long*>(counter_memory.get());
  auto* stats = static_cast<DeviceOutputStats*>(stats_memory.get());

  VerificationOutcome outcome;
  auto fail = [&](Verdict v, const std::string& reason) {
    outcome = {v, reason};
    report.failure = reason;
    return outcome;
  };
  for (int64_t t = 0; t < trials; ++t) {
    for (size_t s = 0; s < sizes; ++s) {
      TrialPlan p;
      p.trial = t;
      p.size = s;
      p.seed = job.raw.seed + static_cast<uint64_t>(t) * sizes + s;
      p.distribution = job.distributions[static_cast<size_t>(t + static_cast<int64_t>(s) + job.raw.distribution_start) %
                                         job.distributions.size()];
      const std::string trial_text = describe_trial(job, p, trials);
      set_phase("verification " + trial_text);
      spdlog::debug("verifying {}", trial_text);
      report.seeds.push_back(p.seed);
      if (std::find(report.distributions.begin(), report.distributions.end(), to_string(p.distribution)) ==
          report.distributions.end())
        report.distributions.push_back(to_string(p.distribution));

      ArgSet& base = *base_sets[s];
      ArgSet& cand = *cand_sets[s];
      SizeChecks& check = checks[s];
      // error_scale = "abs_inputs": the original's outputs on |inputs| scale the allowed error (for a
      // sum, the sum of absolute values: what any order of additions may round away).
      if (scaled) {
        prepare(job, p, check, base, cand);
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
        const Reply sc = call(*servers.baseline, static_cast<int>(s), base, false, servers.timeout_s);
        if (sc.status == Status::fault)
          return fail(Verdict::infra_error,
                      "the original kernel failed on |inputs|: " + fault_text(sc) + " (" + trial_text + ")");
        for (size_t i = 0; i < job.args.size(); ++i) {
          if (check.scale[i].get()) copy_device(check.scale[i].get(), base.device(i), base.bytes(i));
          if (job.args[i].is_value()) base.set_scalar(i, scalars[i]);
        }
      }
      prepare(job, p, check, base, cand);

      const Reply b = call(*servers.baseline, static_cast<int>(s), base, traced, servers.timeout_s);
      if (b.status == Status::fault)
        return fail(Verdict::infra_error, "the original kernel failed: " + fault_text(b) + " (" + trial_text + ")");
      const Reply c = call(*servers.candidate, static_cast<int>(s), cand, traced, servers.timeout_s);
      if (c.status == Status::fault)
        return fail(Verdict::crashed,
                    "the candidate's launch failed: " + fault_text(c) + " during verification " + trial_text);
      if (c.status == Status::late_work)
        return fail(Verdict::rejected, "the candidate does work on a stream the caller does not wait for: " +
                                           fault_text(c) + " (" + late_work_advice(job) + ") (" + trial_text + ")");

      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        if (a.role != ArgRole::input || base.bytes(i) == 0) continue;
        const void* pristine = check.pristine[i].get();
        if (count_differences(pristine, base.device(i), base.bytes(i), counter) > 0) {
          const auto change = compare_input(a.type, check.pristine[i].download().data(), base.download(i).data(),
                                            base.count(i));
          return fail(Verdict::infra_error, describe_input_change(a.name, "original kernel", change) +
                                                ": declare it role = \"inout\" in the [[kernel]] spec (" + trial_text +
                                                ")");
        }
        if (count_differences(pristine, cand.device(i), cand.bytes(i), counter) > 0) {
          const auto change = compare_input(a.type, check.pristine[i].download().data(), cand.download(i).data(),
                                            cand.count(i));
          return fail(Verdict::wrong_result,
                      describe_input_change(a.name, "candidate", change) + " (" + trial_text + ")");
        }
      }
      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        if (!a.is_written() || base.bytes(i) == 0) continue;
        const OutputComparison cmp = compare_on_device(a, base, cand, i, check.scale[i], stats);
        OutputError& o = output_entry(report, a);
        o.elements += cmp.elements;
        o.mismatches += cmp.mismatches;
        if (std::isfinite(cmp.max_abs_error)) o.max_abs_error = std::max(o.max_abs_error, cmp.max_abs_error);
        if (std::isfinite(cmp.max_rel_error)) o.max_rel_error = std::max(o.max_rel_error, cmp.max_rel_error);
        o.max_reference = std::max(o.max_reference, cmp.max_reference);
        report.worst_abs_error = std::max(report.worst_abs_error, o.max_abs_error);
        report.worst_rel_error = std::max(report.worst_rel_error, o.max_rel_error);
        if (cmp.changed_after_check > 0)
          return fail(Verdict::rejected, describe_change_after_check("output " + a.name, cmp.changed_after_check) +
                                             " (" + trial_text + ")");
        if (!cmp.passed())
          return fail(Verdict::wrong_result,
                      describe_output_failure(a.name, cmp, a.tolerance) + " (" + trial_text + ")");
      }

      // Determinism, once per size: the same inputs again must give the same bits, unless the
      // original's own outputs vary from call to call (atomics), where the tolerance above rules.
      if (t == 0) {
        set_phase("determinism check at size " + job.raw.size_labels[s]);
        std::vector<JudgeBuffer> first_base, first_cand;
        for (size_t i = 0; i < job.args.size(); ++i) {
          const bool written = job.args[i].is_written();
          first_base.emplace_back(written ? base.bytes(i) : 0);
          first_cand.emplace_back(written ? cand.bytes(i) : 0);
          if (!first_base[i].get()) continue;
          copy_device(first_base[i].get(), base.device(i), base.bytes(i));
          copy_device(first_cand[i].get(), cand.device(i), cand.bytes(i));
        }
        prepare(job, p, check, base, cand);
        const Reply b2 = call(*servers.baseline, static_cast<int>(s), base, false, servers.timeout_s);
        const Reply c2 = call(*servers.candidate, static_cast<int>(s), cand, false, servers.timeout_s);
        if (b2.status == Status::fault)
          return fail(Verdict::infra_error, "the original kernel failed: " + fault_text(b2) + " (" + trial_text + ")");
        if (c2.status == Status::fault)
          return fail(Verdict::crashed,
                      "the candidate's launch failed: " + fault_text(c2) + " during verification " + trial_text);
        for (size_t i = 0; i < job.args.size(); ++i) {
          const auto& a = job.args[i];
          if (!first_base[i].get()) continue;
          const bool original_repeats = count_differences(first_base[i].get(), base.device(i), base.bytes(i),
                                                          counter) == 0;
          if (!original_repeats) report.original_nondeterministic = true;
          if (original_repeats && count_differences(first_cand[i].get(), cand.device(i), cand.bytes(i), counter) > 0) {
            const auto change = compare_input(a.type, first_cand[i].download().data(), cand.download(i).data(),
                                              cand.count(i));
            return fail(Verdict::wrong_result,
                        "the candidate is not deterministic: called twice on the same inputs, it wrote different "
                        "values to output " +
                            a.name + " (" + std::to_string(change.changed) + " elements, first at index " +
                            std::to_string(change.first_index) + ": " + format_number(change.before) + " then " +
                            format_number(change.after) + "), while the original's outputs repeat bit for bit (" +
                            trial_text + ")");
          }
        }
      }
    }
  }
  for (const auto& o : report.outputs) {
    const std::string warning = tolerance_warning(o);
    if (warning.empty()) continue;
    spdlog::warn("{}", warning);
    report.warnings.push_back(warning);
  }
  report.passed = true;
  report.strict_pass = strict;
  report.deterministic_checked = true;
  spdlog::info("verification passed: {} trials x {} sizes, worst abs error {}, worst rel error {}", trials, sizes,
               format_number(report.worst_abs_error), format_number(report.worst_rel_error));
  return outcome;
}

VerificationOutcome run_for_sanitizer(const DecodedJob& job, const Servers& servers) {
  for (int64_t t = 0; t < job.raw.trials; ++t) {
    for (size_t s = 0; s < job.size_count(); ++s) {
      set_phase("sanitizer trial " + std::to_string(t + 1) + " at size " + job.raw.size_labels[s]);
      Request r;
      r.op = Op::local_call;
      r.size_index = static_cast<int32_t>(s);
      r.seed = fresh_server_seed();  // the server fills its own buffers: never a verification's seed
      r.distribution = static_cast<uint32_t>(job.distributions.front());
      const Reply c = servers.candidate->ask(r, servers.timeout_s);
      expect_no_harness_error(c, "run the candidate");
      if (c.status == Status::fault) return {Verdict::crashed, "the candidate's launch failed: " + fault_text(c)};
    }
  }
  return {};
}

}  // namespace kb::judge
