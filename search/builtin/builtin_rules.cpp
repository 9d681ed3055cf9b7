#include "search/builtin/builtin_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kb::search {
namespace {

double log2_distance_preference(double value, double target) {
  if (value <= 0 || target <= 0) return 0.1;
  return 1.0 / (1.0 + std::abs(std::log2(value) - std::log2(target)));
}

double as_number(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && !s.empty() ? v : -1;
}

bool tiny_blocks(const TuningDimension& dim) {
  if (dim.role != cuda_source::MacroRole::block_size) return false;
  double v = as_number(dim.values[dim.default_index]);
  return v > 0 && v < 128;
}

std::string join_values(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
  return out;
}

}  // namespace

ProfileFacts read_profile_facts(const EvalResult& profile) {
  ProfileFacts facts;
  for (const auto& t : profile.timings)
    if (t.floor_us > 0 && t.baseline_pct_of_floor > 0)
      facts.pct_of_floor = facts.pct_of_floor < 0 ? t.baseline_pct_of_floor
                                                  : std::min(facts.pct_of_floor, t.baseline_pct_of_floor);
  for (const auto& [name, value] : profile.baseline_metrics.values)
    if (name.find("occupancy") != std::string::npos) facts.occupancy_pct = value;
  facts.registers = profile.baseline_metrics.registers_per_thread;
  return facts;
}

bool fast_math_allowed(const config::Config& config, const config::KernelSpec& spec) {
  bool any_float_output = false;
  for (const auto& a : spec.args) {
    if (!role_is_buffer(a.role) || a.role == ArgRole::input) continue;
    if (!dtype_is_float(a.dtype)) continue;
    any_float_output = true;
    if (config.tolerance_for(spec, a.dtype).rtol < kFastMathMinRtol) return false;
  }
  return any_float_output;
}

double dimension_weight(const TuningDimension& dim, const ProfileFacts& facts) {
  bool low_occupancy = facts.occupancy_pct >= 0 && facts.occupancy_pct < 50;
  switch (dim.kind) {
    case TuningDimension::Kind::launch_bounds: return 1.0;
    case TuningDimension::Kind::flags:
      if (dim.name == kRegisterCapDimension) return low_occupancy ? 2.0 : 1.0;
      return facts.far_from_roofline() ? 0.5 : 1.5;
    case TuningDimension::Kind::macro:
    case TuningDimension::Kind::literal:
    case TuningDimension::Kind::argument: break;
  }
  switch (dim.role) {
    case cuda_source::MacroRole::block_size:
    case cuda_source::MacroRole::block_dimension: return tiny_blocks(dim) || low_occupancy ? 3.0 : 2.0;
    case cuda_source::MacroRole::work_per_thread: return facts.far_from_roofline() ? 2.5 : 1.5;
    case cuda_source::MacroRole::other: return 1.0;
  }
  return 1.0;
}

double value_preference(const TuningDimension& dim, size_t index) {
  if (!dim.is_numeric_knob()) return 1.0;
  double v = as_number(dim.values[index]);
  switch (dim.role) {
    case cuda_source::MacroRole::block_size: return log2_distance_preference(v, 256);
    case cuda_source::MacroRole::block_dimension: return 1.0;  // judged on the whole shape in point_score
    case cuda_source::MacroRole::work_per_thread: return log2_distance_preference(v, 4);
    case cuda_source::MacroRole::other: return log2_distance_preference(v, as_number(dim.values[dim.default_index]));
  }
  return 1.0;
}

double point_score(const TuningSpace& space, const TuningPoint& point, const ProfileFacts& facts) {
  const auto& dims = space.dimensions();
  double shape = 1;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].role == cuda_source::MacroRole::block_dimension)
      shape *= std::max(1.0, as_number(dims[i].values[point[i]]));
  double score = 0;
  for (size_t i : space.changed_dimensions(point)) {
    double pref = dims[i].role == cuda_source::MacroRole::block_dimension ? log2_distance_preference(shape, 256)
                                                                          : value_preference(dims[i], point[i]);
    score += dimension_weight(dims[i], facts) * pref;
  }
  return score;
}

Idea explain_idea(const TuningSpace& space, const std::vector<size_t>& dim_indices,
                  const std::vector<std::string>& values, const ProfileFacts& facts) {
  const auto& dims = space.dimensions();
  Idea idea;
  idea.family = "parallelism";
  std::string names;
  for (size_t i : dim_indices) names += (names.empty() ? "" : " and ") + dims[i].name;
  std::string where = facts.pct_of_floor >= 0
                          ? fmt::format(" The original reaches {:.0f}% of its roofline floor.", facts.pct_of_floor)
                          : "";
  if (dim_indices.size() != 1) {
    idea.text = fmt::format("Combine {}: {}", names, join_values(values));
    idea.rationale = "Knobs interact (block size, launch bounds, work per thread); each was good alone." + where;
    return idea;
  }
  const TuningDimension& d = dims[dim_indices[0]];
  const std::string& now = d.values[d.default_index];
  switch (d.kind) {
    case TuningDimension::Kind::launch_bounds:
      // The step goes to `values` from the seed, which may already have them: say which way it goes,
      // so the idea path in a PR describes what the variant really is.
      idea.text = values.size() == 1 && values[0] == "off" ? "Remove __launch_bounds__ from the launched kernel"
                  : values.size() == 1                     ? "Add __launch_bounds__(block size) to the launched kernel"
                                       : "Try the launched kernel with and without __launch_bounds__(block size)";
      idea.rationale = "With the block size known at compile time ptxas can budget registers for it, which can "
                       "raise occupancy or avoid spills.";
      return idea;
    case TuningDimension::Kind::flags:
      idea.family = "compile_flags";
      if (d.name == kRegisterCapDimension) {
        idea.text = fmt::format("Cap registers per thread: {}", join_values(values));
        idea.rationale = fmt::format("The original uses {} registers per thread{}; fewer registers let more warps "
                                     "be resident, if the spills they cause cost less.",
                                     facts.registers,
                                     facts.occupancy_pct >= 0
                                         ? fmt::format(" at {:.0f}% achieved occupancy", facts.occupancy_pct)
                                         : "");
        return idea;
      }
      idea.text = values.size() == 1 && values[0].empty() ? "Compile without --use_fast_math"
                                                          : "Compile with --use_fast_math";
      idea.rationale = fmt::format("Every floating-point output's tolerance is at least rtol {:g}, so fast "
                                   "intrinsics and flush-to-zero may be used.",
                                   kFastMathMinRtol);
      return idea;
    case TuningDimension::Kind::argument:
      idea.text = fmt::format("Probe {} at {} threads per block (advisory: its callers choose it, so no PR can "
                              "change it; the best measured value is reported)",
                              d.words(), join_values(values));
      idea.rationale = (tiny_blocks(d) ? fmt::format("{}-thread blocks: the per-SM limit on resident blocks caps "
                                                     "occupancy.",
                                                     now)
                                       : std::string("The block size sets occupancy and bytes in flight per SM.")) +
                       where;
      return idea;
    case TuningDimension::Kind::macro:
    case TuningDimension::Kind::literal: break;
  }
  const std::string& name = d.words();
  switch (d.role) {
    case cuda_source::MacroRole::block_size:
      idea.text = fmt::format("Set {} to {} threads per block (original: {})", name, join_values(values), now);
      idea.rationale = tiny_blocks(d)
                           ? fmt::format("{}-thread blocks: the per-SM limit on resident blocks caps occupancy, "
                                         "and the scheduler handles many tiny blocks.",
                                         now)
                           : "The block size sets occupancy and bytes in flight per SM." + where;
      break;
    case cuda_source::MacroRole::block_dimension:
      idea.text = fmt::format("Reshape the block: {} = {} (original: {})", name, join_values(values), now);
      idea.rationale = "The block shape decides which threads of a warp touch neighbouring addresses "
                       "(coalescing) and how many threads a block has." +
                       where;
      break;
    case cuda_source::MacroRole::work_per_thread:
      idea.text = fmt::format("Give each thread more work: {} = {} (original: {})", name, join_values(values), now);
      idea.rationale = "More independent items per thread puts more loads in flight and amortizes index "
                       "arithmetic." +
                       where;
      break;
    case cuda_source::MacroRole::other:
      idea.text = fmt::format("Tune {}: {} (original: {})", name, join_values(values), now);
      idea.rationale = d.kind == TuningDimension::Kind::literal
                           ? "A compile-time constant of the source; its value is a guess worth measuring." + where
                           : "A compile-time parameter the kernel exposes for tuning.";
      break;
  }
  return idea;
}

}  // namespace kb::search
