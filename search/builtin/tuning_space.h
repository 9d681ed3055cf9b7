// The builtin tuner's search space for one base variant: its compile-time knobs (detected
// macros and the [[kernel]]'s declared tunables), optional __launch_bounds__, and nvcc flags
// where the tolerance allows them. A point picks one value per dimension; a point becomes a
// Variant with -D defines and flags, the source changed only by the launch-bounds transform.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/variant.h"
#include "cuda_source/tunable_macros.h"

namespace kb::search {

// One axis of the space: a macro, __launch_bounds__ on/off, or the nvcc flags.
struct TuningDimension {
  enum class Kind { macro, flags, launch_bounds };
  Kind kind = Kind::macro;
  std::string name;  // the macro; "nvcc flags"; "__launch_bounds__"
  cuda_source::MacroRole role = cuda_source::MacroRole::other;
  std::vector<std::string> values;  // macro values; flags ("" = none); "off"/"on"
  size_t default_index = 0;         // the base variant's value
  std::optional<std::string> source_default;  // the value without any -D (macros only)
};

using TuningPoint = std::vector<size_t>;

// Which kinds of dimension the space may have.
struct TuningSpaceOptions {
  bool launch_bounds = true;
  bool fast_math = false;  // only where the tolerance allows it (see builtin_rules.h)
  bool spec_tunables = true;  // include the [[kernel]].tunables (the original's declared knobs)
};

// The space of one base variant; points are indices into each dimension's values.
class TuningSpace {
 public:
  static TuningSpace build(const Variant& base, const config::KernelSpec& spec, const TuningSpaceOptions& options);

  const std::vector<TuningDimension>& dimensions() const { return dims_; }
  const Variant& base() const { return base_; }
  uint64_t size() const;  // the number of points, valid or not (saturates)
  bool empty() const { return dims_.empty(); }
  // Block shapes over 1024 threads, or of fewer than 32 threads in several dimensions, are invalid.
  bool valid(const TuningPoint& point) const;
  TuningPoint default_point() const;
  Variant variant(const TuningPoint& point) const;
  // The point a variant is (nullopt: its source, flags or other defines differ from the space's).
  std::optional<TuningPoint> point_of(const Variant& variant) const;
  std::string describe(const TuningPoint& point) const;  // "SAXPY_BLOCK=256, __launch_bounds__"
  std::string key(const TuningPoint& point) const;
  // Valid points one step away in one dimension.
  std::vector<TuningPoint> neighbours(const TuningPoint& point) const;
  std::optional<TuningPoint> random_point(std::mt19937_64& rng) const;
  // Every valid point, up to `limit` of them, in lexicographic order.
  std::vector<TuningPoint> enumerate(size_t limit) const;
  // The dimensions where `point` differs from the default.
  std::vector<size_t> changed_dimensions(const TuningPoint& point) const;

 private:
  Variant base_;
  std::string bounded_source_;  // the base source with __launch_bounds__, when the transform applies
  std::vector<TuningDimension> dims_;
};

}  // namespace kb::search
