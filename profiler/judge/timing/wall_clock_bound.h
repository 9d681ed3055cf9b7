// Bounding a variant's timed claim from outside. Event timing happens inside the process that
// runs the variant's code, so a hostile candidate could make its samples look short (work on a
// stream the events do not bracket, work deferred to later calls, a forged event). The judge
// therefore also measures, with its own clock, a batch of back-to-back calls on fresh inputs whose
// outputs it then checks: that time includes all the work, wherever it ran. Honest variants show
// the same per-call time as their samples, plus launch overheads that the original shows
// too; a claim far below what the clock saw is rejected with both numbers.
#pragma once

#include <cstddef>
#include <string>

namespace kb::judge {

struct WallClockEvidence {
  std::string size_label;
  int calls = 0;                 // per batch
  double baseline_event_us = 0;  // per call, the timed samples' median
  double candidate_event_us = 0;
  double baseline_wall_us = 0;  // per call, the judge's clock (best of the batches)
  double candidate_wall_us = 0;
  // The batch's fixed cost (the request, the final synchronize), measured on the original's server
  // by the judge's clock from batches of one call and of `calls` calls; 0 when not measured. The
  // original's clock-minus-event time holds that cost only when its samples are no slower than its
  // batch calls, and they are slower when the samples start from a flushed L2 cache and the batch's
  // back-to-back calls do not (seen on an H200, 2026-11-29: a 4096x4096 layernorm, 3 calls a batch,
  // the original 1570 us in its samples and 1420 us by the clock, an honest 73.5 us candidate
  // 166 us by the clock). Measured on the original's server, the candidate cannot raise it.
  double baseline_batch_fixed_us = 0;
};

// The slack the rule allows: a candidate's clock time per call may exceed its event time by
// kWallFactor times it, plus the original's own overhead per call (clock minus event time, or its
// batch's measured fixed cost over the calls when that is more, at most kBatchJitterShare of the
// original's clock time per call), plus
// kWallAllowanceUs (launch latency; the check is loose for calls shorter than about 20 us), plus
// kBatchJitterUs / calls (at most kBatchJitterShare of the original's clock time per call).
// The batch's fixed cost (a request to the server, its final synchronize) varies by tens of
// microseconds from batch to batch, and only the original's share of it is known: kBatchJitterUs
// over the batch's calls is allowed on top. With many calls per batch that is nothing; with two
// (seen on an H100, 2026-11-25: a gather whose 200 MB table let the budget hold two argument sets;
// the honest candidate's clock read 140 us per call against the original's 113 us, over a limit
// of 124 us) it keeps the batch's jitter from deciding.
inline constexpr double kWallFactor = 1.5;
inline constexpr double kWallAllowanceUs = 10.0;
// ...but never more than a quarter of the original's own clock time per call, so that a batch of
// one or two long calls does not let a candidate hide 100 us each.
inline constexpr double kBatchJitterUs = 100.0;
inline constexpr double kBatchJitterShare = 0.25;

// How many back-to-back calls one batch makes: enough that the batch's fixed cost (the request
// to the server, its final synchronize: a few hundred microseconds, with tens of jitter) is small
// per call for the *shorter* of the two variants, whose claim is the one under test. Sized by the
// original alone, a 2.5 ms original and a 15 us candidate got one call per batch, and the jitter
// of that fixed cost alone could exceed the slack. At most `max_calls`, at most as many argument
// sets as `budget_bytes` holds (`bytes_per_call` each), at least 1.
size_t wall_clock_calls(double baseline_event_us, double candidate_event_us, size_t bytes_per_call, size_t budget_bytes,
                        size_t max_calls, double target_us);

// The most a candidate's clock time per call may be for its event time to be believed.
double wall_clock_limit_us(const WallClockEvidence& e);

// A batch's fixed cost from the best times of a batch of one call and of `calls` calls (T = fixed
// + calls x per-call): (calls x one - many) / (calls - 1), never below 0; 0 for fewer than 2 calls.
double batch_fixed_cost_us(double one_call_batch_us, double batch_us, int calls);

// Empty when the claim agrees with the clock; otherwise the rejection's reason, naming both numbers.
std::string wall_clock_disagreement(const WallClockEvidence& e);

// When the clock saw more than the claim but the candidate's work all ran on the caller's stream,
// the clock's figures judge the size: the speedup is the original's clock time over the
// candidate's, significant beyond kWallClockSignificance either way (the clock's batches are
// best-of, with no spread to test against).
inline constexpr double kWallClockSignificance = 0.05;
struct ClockRuling {
  double speedup = 0;
  bool significant = false;
  std::string note;  // for the candidate's timing notes: both figures and why the clock rules
};
ClockRuling wall_clock_ruling(const WallClockEvidence& e);

}  // namespace kb::judge
