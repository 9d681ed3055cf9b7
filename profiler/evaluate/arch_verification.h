// Every architecture the project builds: a candidate already verified on the judge's GPU, for its
// own compile, is compiled and verified for each of the project's other target architectures
// (target_archs.h, arch_plan.h), so that an `#if __CUDA_ARCH__ < 900` branch the judge's compile
// never takes is proven too. The original is compiled and run the same way for each: an
// architecture it does not compile for, or cannot be verified on here, is skipped and said so
// (as every verification pass holds the candidate only to what the original does).
//
// Where it runs, and why there: a file's `kernelbot eval` and the PR text's re-verification
// before any PR (bot/change/reverify.h), not the search's candidates. Each architecture costs two
// compiles and one verification job (no timing) per candidate; the search ranks candidates by
// speed on the judge's GPU and would pay that for every one of them, while only the text a PR
// publishes must hold for every architecture. A winner that fails one is no PR, with the
// architecture named.
#pragma once

#include "config/config.h"
#include "core/result_types.h"
#include "core/variant.h"
#include "profiler/evaluate/archs/target_archs.h"
#include "profiler/evaluate/evaluator.h"

namespace kb::profiler {

// For a `result` of `candidate` against `original` on `evaluator` whose verdict is correct
// (accepted, not_faster): checks each target architecture of `targets` and records each in
// result.verification.archs (and archs_source): verified, compiled (not run), skipped (with why)
// or failed. A failure for one is the result's verdict, its reason naming the architecture. What
// an architecture's own verification skipped (an alignment the original faults on) joins
// skipped_checks, marked with the architecture. Other verdicts are left alone, with only
// archs_source set. Never throws for the candidate's fault.
void verify_target_archs(Evaluator& evaluator, const config::KernelSpec& spec, const Variant& original,
                         const Variant& candidate, const TargetArchs& targets, EvalResult& result);

// The same, with the targets read from the project (read_target_archs).
void verify_target_archs(Evaluator& evaluator, const config::Config& config, const config::KernelSpec& spec,
                         const Variant& original, const Variant& candidate, EvalResult& result);

}  // namespace kb::profiler
