// Element-by-element comparison of a candidate's output with the original's, and the sentences a
// reviewer reads when they differ. Host-only: the harness copies both buffers back first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "profiler/judge/inputs/dtype_codec.h"

namespace kb::judge {

struct Tolerance {
  double rtol = 0, atol = 0;
};

// How the allowed error of an output scales ([[kernel.arg]] error_scale in the config).
enum class ErrorScale {
  plain,       // atol + rtol * |r|
  abs_inputs,  // atol + rtol * max(|r|, |s|), s the original's output on the absolute values of its
               // float inputs (for a sum: the sum of absolute values, the scale of its rounding error)
};

// "" and "plain" -> plain, "abs_inputs" -> abs_inputs; nullopt for anything else.
std::optional<ErrorScale> parse_error_scale(const std::string& name);
const char* to_string(ErrorScale s);

// An element that failed, for the failure text.
struct ElementSample {
  int64_t index = -1;
  double expected = 0, got = 0;
  double scale = 0;  // |s| at this element when the comparison had a scale, else 0
};

// The outcome of comparing one output buffer of one call.
struct OutputComparison {
  int64_t elements = 0;          // compared (the original wrote them)
  int64_t not_written = 0;       // the original wrote them, the candidate left the poison there
  int64_t mismatches = 0;        // outside the tolerance, including not_written and non-finite ones
  int64_t non_finite = 0;        // NaN or Inf where the original is finite
  int64_t ignored = 0;           // the original left the poison there too: not part of the contract
  double max_abs_error = 0;      // over finite pairs
  double max_rel_error = 0;      // |c - r| / |r|, over finite pairs with r != 0
  double max_reference = 0;      // the largest finite |r| (0 for integers compared exactly): at or
                                 // below atol, the check passes any value within atol of zero
  ElementSample worst;           // the largest |c - r| among mismatches (or overall when none)
  ElementSample first;           // the first mismatch
  bool scaled = false;           // compared with a per-element scale (ErrorScale::abs_inputs)
  int64_t scale_not_finite = 0;  // scale elements that were NaN, Inf or poison: |r| used there
  // Set by the judge's GPU comparison (verifier.cpp): elements it found outside the tolerance
  // that matched once read back, i.e. outputs still changing after the call returned. compare_output
  // never sets it.
  int64_t changed_after_check = 0;
  bool passed() const { return mismatches == 0 && changed_after_check == 0; }
};

// Compares `count` elements. Rules per element, r the original's value and c the candidate's:
// r is poison -> ignored; c is poison -> not written; r NaN -> c must be NaN; r +-Inf -> c must be
// the same Inf; r finite -> c finite and |c - r| <= atol + rtol * |r|. Integers with zero
// tolerance compare exactly (no rounding through double).
OutputComparison compare_output(DType t, const void* reference, const void* candidate, size_t count, Tolerance tol);

// The same with a per-element error scale: `scale` holds `count` elements of type `t` (the
// original's output on |inputs|, see abs_in_place), and a finite r passes when
//   |c - r| <= atol + rtol * max(|r|, |s|).
// A scale element that is NaN, Inf or poison gives no information: that element is judged by the
// plain rule (stricter, never looser) and counted in scale_not_finite. scale == nullptr is the
// plain rule. The other rules (poison, NaN, Inf, exact integers) are unchanged.
OutputComparison compare_output(DType t, const void* reference, const void* candidate, size_t count, Tolerance tol,
                                const void* scale);

// Replaces every element of a float buffer by its absolute value (the sign bit cleared: exact,
// NaN stays NaN). Integer buffers are left alone: integer arithmetic is exact, and integer inputs
// are often indices or counts whose sign means something. To compute the scale for
// ErrorScale::abs_inputs, run the original on copies of its float input and inout buffers passed
// through this, with float scalars replaced by their absolute values too.
void abs_in_place(DType t, void* data, size_t count);

// "output y: 3712 of 1048576 elements differ, worst abs error 2.1 at index 17 (expected 0.52,
// got 2.62), first at index 3 (...), tolerance rtol 1e-4 atol 1e-5" (with a scale: "... (expected
// 0.52, got 2.62, scale 4096) ..., tolerance rtol 1e-5 atol 1e-5 relative to max(|expected|, the
// original's output on |inputs|)") or "output y was not fully
// written: 1024 elements still hold the poison value ...". Empty when `c` passed.
std::string describe_output_failure(const std::string& name, const OutputComparison& c, Tolerance tol);

// Bytes of `count` elements that differ between two copies of an input buffer.
struct InputChange {
  int64_t changed = 0;
  int64_t first_index = -1;
  double before = 0, after = 0;
};
InputChange compare_input(DType t, const void* before, const void* after, size_t count);
std::string describe_input_change(const std::string& name, const std::string& who, const InputChange& c);

// Why a GPU comparison that counted `elements` differing elements of `what` ("output y", "input
// x") is a failure though the buffers agreed when read back moments later: they were still
// changing after the comparison ran, i.e. the candidate's work lands after its call returns.
std::string describe_change_after_check(const std::string& what, int64_t elements);

// A number printed for people: up to 6 significant digits, no trailing zeros.
std::string format_number(double v);

}  // namespace kb::judge
