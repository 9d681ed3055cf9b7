// The builtin tuner's profile-guided rules, in the manner of Kernel Tuner: what the original's
// profile says (far from its roofline floor, low occupancy, tiny blocks) decides which knobs
// are tried first and how each idea is explained. Rules only order and explain; every point
// is still measured.
#pragma once

#include <string>

#include "config/config.h"
#include "core/result_types.h"
#include "search/builtin/tuning_space.h"
#include "search/types/search_types.h"

namespace kb::search {

// What the original's profile says, reduced to the facts the rules use (-1: unknown).
struct ProfileFacts {
  double pct_of_floor = -1;   // the lowest % of the roofline floor over the size sets
  double occupancy_pct = -1;  // achieved occupancy, when the metrics have it
  int64_t registers = 0;
  bool far_from_roofline() const { return pct_of_floor >= 0 && pct_of_floor < 70; }
};

ProfileFacts read_profile_facts(const EvalResult& baseline_profile);

// --use_fast_math is tried only when every floating-point output's relative tolerance is at
// least 1e-3 (float32's default is 1e-4, so it takes an explicit, looser [[kernel]] tolerance;
// float16/bfloat16 outputs qualify by default): fast math changes results by a few ulp of
// float32, far inside 1e-3, but not inside 1e-4 for every input.
bool fast_math_allowed(const config::Config& config, const config::KernelSpec& spec);
inline constexpr double kFastMathMinRtol = 1e-3;

// How much a dimension matters for this kernel, given its profile (higher first).
double dimension_weight(const TuningDimension& dim, const ProfileFacts& facts);

// How promising one value of a dimension is, in (0, 1]: block sizes near 256 threads first,
// work per thread near 4 items, other knobs near their default.
double value_preference(const TuningDimension& dim, size_t value_index);

// The score of a point: the weighted preferences of the dimensions it changes.
double point_score(const TuningSpace& space, const TuningPoint& point, const ProfileFacts& facts);

// The natural-language idea for trying `values` of the dimensions `dims` (indices into the space).
Idea explain_idea(const TuningSpace& space, const std::vector<size_t>& dims, const std::vector<std::string>& values,
                  const ProfileFacts& facts);

}  // namespace kb::search
