// The builtin tuner's search space for one base variant: its compile-time knobs (detected
// macros and the [[kernel]]'s declared tunables), the literal knobs its launcher already has
// (cuda_source/knobs/literal_knobs.h: block-size literals, const locals, dim3 shapes, unroll factors),
// probes of a block size its callers pass (advisory only), optional __launch_bounds__, and nvcc
// flags where the tolerance or the profile calls for them. A point picks one value per
// dimension; a point becomes a Variant: -D defines and flags, the source with the literal edits
// applied (back to front) and, when on, the launch-bounds transform of that edited source.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/variant.h"
#include "cuda_source/knobs/literal_knobs.h"
#include "cuda_source/knobs/tunable_macros.h"
#include "search/builtin/kernel_target_knobs.h"

namespace kb::search {

// One axis of the space: a macro, a literal knob of the source, a probe of a caller-chosen
// launcher argument, __launch_bounds__ on/off, or nvcc flags.
struct TuningDimension {
  enum class Kind { macro, flags, launch_bounds, literal, argument };
  Kind kind = Kind::macro;
  std::string name;  // the macro; "nvcc flags"; "__launch_bounds__"; the knob's short name
  cuda_source::MacroRole role = cuda_source::MacroRole::other;
  std::vector<std::string> values;            // macro values; flags ("" = none); "off"/"on"
  size_t default_index = 0;                   // the base variant's value
  std::optional<std::string> source_default;  // the value without any -D (macros only)
  // Literal and argument knobs: the index into the space's literal_knobs_ / argument_knobs_,
  // what ideas call it ("block size of launch_gelu's launch (the literal 32 at src/gelu.cu:41)")
  // and the block shape it is one dimension of.
  size_t knob = 0;
  std::string display;
  std::string group;
  // Whether the values count as threads of one block (block size or one block dimension).
  bool is_numeric_knob() const { return kind == Kind::macro || kind == Kind::literal || kind == Kind::argument; }
  const std::string& words() const { return display.empty() ? name : display; }
};

using TuningPoint = std::vector<size_t>;

// The name of the flags dimension of -maxrregcount values (added for register-heavy kernels).
inline constexpr const char* kRegisterCapDimension = "register cap";

// Which kinds of dimension the space may have.
struct TuningSpaceOptions {
  bool launch_bounds = true;
  bool fast_math = false;     // only where the tolerance allows it (see builtin_rules.h)
  bool spec_tunables = true;  // include the [[kernel]].tunables (the original's declared knobs)
  bool literal_knobs = true;  // the launcher's literal knobs and argument probes
  // Registers per thread of the original (from its profile; 0: unknown): from 64 on, register
  // caps (-maxrregcount) below it are a flags dimension.
  int64_t registers = 0;
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
  // Whether the point's variant is an advisory probe (a caller-chosen argument changed): it is
  // measured and reported, never published.
  bool advisory(const TuningPoint& point) const;

 private:
  // The steps of build(), each adding its dimensions.
  void add_macro_dimensions(const config::KernelSpec& spec, const TuningSpaceOptions& options);
  void add_macro_dimension(const std::map<std::string, std::string>& base_defines, const std::string& name,
                           std::vector<std::string> values, cuda_source::MacroRole role,
                           std::optional<std::string> source_default);
  void add_launcher_knob_dimensions(const config::KernelSpec& spec);
  // A kernel target's: its launch site's literal knobs, else advisory probes of its block.
  void add_kernel_target_dimensions(const config::KernelSpec& spec);
  void add_literal_dimension(cuda_source::LiteralKnob knob);
  // The edit that probes an argument dimension's value (a launcher's argument, a target's block).
  cuda_source::TextEdit probe_edit(const TuningDimension& d, int64_t value) const;
  void add_compiler_dimensions(const config::KernelSpec& spec, const TuningSpaceOptions& options);

  std::string source_of(const TuningPoint& point) const;

  Variant base_;
  std::string launcher_;
  std::string bounded_source_;  // the base source with __launch_bounds__, when the transform applies
  std::vector<TuningDimension> dims_;
  std::vector<cuda_source::LiteralKnob> literal_knobs_;
  std::vector<cuda_source::ArgumentKnob> argument_knobs_;
  std::vector<int64_t> argument_values_;  // what the config passes for each argument knob
  // A kernel target's block probes: argument dimensions whose `knob` is argument_knobs_.size() + i.
  std::vector<LaunchProbe> launch_probes_;
  // The source-changing dimensions' values of every source variant() made, so point_of can read
  // a variant's point back from its text. Filled by variant(), which is const: a cache.
  mutable std::map<std::string, TuningPoint> source_points_;
};

}  // namespace kb::search
