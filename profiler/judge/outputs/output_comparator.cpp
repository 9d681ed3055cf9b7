#include "profiler/judge/outputs/output_comparator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "profiler/judge/outputs/non_finite_rule.h"

namespace kb::judge {
namespace {

// `err` is HUGE_VAL for unwritten or non-finite elements, so those rank worst in the text.
void note_mismatch(OutputComparison& c, double& worst_err, int64_t i, double expected, double got, double err) {
  ++c.mismatches;
  if (c.first.index < 0) c.first = {i, expected, got};
  if (c.worst.index < 0 || err > worst_err) {
    c.worst = {i, expected, got};
    worst_err = err;
  }
}

}  // namespace

std::optional<ErrorScale> parse_error_scale(const std::string& name) {
  if (name.empty() || name == "plain") return ErrorScale::plain;
  if (name == "abs_inputs") return ErrorScale::abs_inputs;
  return std::nullopt;
}

const char* to_string(ErrorScale s) {
  switch (s) {
    case ErrorScale::plain: return "plain";
    case ErrorScale::abs_inputs: return "abs_inputs";
  }
  return "unknown";
}

OutputComparison compare_output(DType t, const void* reference, const void* candidate, size_t count, Tolerance tol) {
  return compare_output(t, reference, candidate, count, tol, nullptr);
}

OutputComparison compare_output(DType t, const void* reference, const void* candidate, size_t count, Tolerance tol,
                                const void* scale) {
  OutputComparison c;
  c.scaled = scale != nullptr;
  const bool exact_int = !dtype_is_float(t) && tol.rtol == 0 && tol.atol == 0;
  ElementSample worst_overall;
  double worst_overall_err = -1;
  double worst_mismatch_err = -1;
  for (size_t k = 0; k < count; ++k) {
    const auto i = static_cast<int64_t>(k);
    if (is_poison(t, reference, k)) {
      ++c.ignored;
      continue;
    }
    ++c.elements;
    const double r = load_double(t, reference, k);
    const double v = load_double(t, candidate, k);
    if (is_poison(t, candidate, k)) {
      ++c.not_written;
      note_mismatch(c, worst_mismatch_err, i, r, v, HUGE_VAL);
      continue;
    }
    if (exact_int) {
      const int64_t ri = load_int(t, reference, k), vi = load_int(t, candidate, k);
      const double err = std::fabs(static_cast<double>(vi) - static_cast<double>(ri));
      if (ri != vi) {
        note_mismatch(c, worst_mismatch_err, i, r, v, err);
        c.max_abs_error = std::max(c.max_abs_error, err);
        if (ri != 0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(r));
      }
      continue;
    }
    if (const int m = non_finite_mismatch(r, v); m >= 0) {
      if (m) note_mismatch(c, worst_mismatch_err, i, r, v, HUGE_VAL);
      continue;
    }
    c.max_reference = std::max(c.max_reference, std::fabs(r));
    if (!std::isfinite(v)) {
      ++c.non_finite;
      note_mismatch(c, worst_mismatch_err, i, r, v, HUGE_VAL);
      continue;
    }
    const double err = std::fabs(v - r);
    double magnitude = std::fabs(r);
    double s = 0;
    if (scale) {
      s = is_poison(t, scale, k) ? HUGE_VAL : std::fabs(load_double(t, scale, k));
      if (std::isfinite(s)) {
        magnitude = std::max(magnitude, s);
      } else {
        ++c.scale_not_finite;
        s = 0;
      }
    }
    c.max_abs_error = std::max(c.max_abs_error, err);
    if (r != 0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(r));
    if (err > worst_overall_err) {
      worst_overall_err = err;
      worst_overall = {i, r, v, s};
    }
    if (err > tol.atol + tol.rtol * magnitude) {
      note_mismatch(c, worst_mismatch_err, i, r, v, err);
      if (c.first.index == i) c.first.scale = s;
      if (c.worst.index == i) c.worst.scale = s;
    }
  }
  if (c.mismatches == 0) c.worst = worst_overall;
  return c;
}

namespace {

// Clears the top (sign) bit of every `Bits`-sized element.
template <typename Bits>
void clear_sign_bits(void* data, size_t count) {
  auto* p = static_cast<char*>(data);
  constexpr Bits kMagnitude = static_cast<Bits>(~(Bits{1} << (8 * sizeof(Bits) - 1)));
  for (size_t i = 0; i < count; ++i) {
    Bits b;
    std::memcpy(&b, p + i * sizeof(Bits), sizeof(Bits));
    b = static_cast<Bits>(b & kMagnitude);
    std::memcpy(p + i * sizeof(Bits), &b, sizeof(Bits));
  }
}

}  // namespace

void abs_in_place(DType t, void* data, size_t count) {
  switch (t) {
    case DType::float64: clear_sign_bits<uint64_t>(data, count); return;
    case DType::float32: clear_sign_bits<uint32_t>(data, count); return;
    case DType::float16:
    case DType::bfloat16: clear_sign_bits<uint16_t>(data, count); return;
    default: return;  // integers: left alone (see the header)
  }
}

std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string describe_output_failure(const std::string& name, const OutputComparison& c, Tolerance tol) {
  if (c.passed()) return "";
  const std::string tolerance = "tolerance rtol " + format_number(tol.rtol) + " atol " + format_number(tol.atol) +
                                (c.scaled ? " relative to max(|expected|, the original's output on |inputs|)" : "");
  if (c.not_written > 0) {
    std::string s = "output " + name + " was not fully written: " + std::to_string(c.not_written) + " of " +
                    std::to_string(c.elements) + " elements still hold the poison value the harness wrote before " +
                    "the call (first at index " + std::to_string(c.first.index) + ")";
    if (c.mismatches > c.not_written)
      s += "; " + std::to_string(c.mismatches - c.not_written) + " more elements differ (" + tolerance + ")";
    return s;
  }
  auto sample = [&c](const ElementSample& e) {
    return "index " + std::to_string(e.index) + " (expected " + format_number(e.expected) + ", got " +
           format_number(e.got) + (c.scaled && e.scale > 0 ? ", scale " + format_number(e.scale) : "") + ")";
  };
  std::string s = "output " + name + ": " + std::to_string(c.mismatches) + " of " + std::to_string(c.elements) +
                  " elements differ";
  if (c.non_finite > 0) s += " (" + std::to_string(c.non_finite) + " are NaN or Inf where the original is finite)";
  s += ", worst abs error " + format_number(std::fabs(c.worst.got - c.worst.expected)) + " at " + sample(c.worst);
  if (c.first.index != c.worst.index) s += ", first at " + sample(c.first);
  s += ", " + tolerance;
  return s;
}

std::string describe_change_after_check(const std::string& what, int64_t elements) {
  return what + ": " + std::to_string(elements) +
         " elements differed from the original's when the judge compared them on the GPU, and matched when read "
         "back moments later: the candidate's work lands after its call returns";
}

InputChange compare_input(DType t, const void* before, const void* after, size_t count) {
  InputChange change;
  const size_t size = dtype_size(t);
  const auto* a = static_cast<const char*>(before);
  const auto* b = static_cast<const char*>(after);
  if (std::memcmp(a, b, count * size) == 0) return change;
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(a + i * size, b + i * size, size) == 0) continue;
    if (change.first_index < 0) {
      change.first_index = static_cast<int64_t>(i);
      change.before = load_double(t, before, i);
      change.after = load_double(t, after, i);
    }
    ++change.changed;
  }
  return change;
}

std::string describe_input_change(const std::string& name, const std::string& who, const InputChange& c) {
  if (c.changed == 0) return "";
  return "input " + name + " was modified by the " + who + ": " + std::to_string(c.changed) +
         " elements changed, first at index " + std::to_string(c.first_index) + " (was " + format_number(c.before) +
         ", now " + format_number(c.after) + ")";
}

}  // namespace kb::judge
