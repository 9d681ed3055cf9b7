// Generalization sizes: size sets a full verification adds to the configured ones so that a
// candidate tuned to the configured sizes (a fixed grid, a fast path keyed on n, a missing tail)
// is caught. For every size name: its smallest allowed value, an odd and a prime value (where its
// size rule allows them), and a value beyond the largest configured one (up to 2x, within the
// rule's max); the other size names are drawn too, so no set keeps all configured values. Drawn
// per job from the job's seed (fresh per job unless [verify].seed pins it): no candidate can be
// tuned to them. The judge verifies them once each and never times them (harness_job.h's
// verify_only_sizes).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/harness_job.h"

namespace kb {

// Bytes of a size set's buffers; throws config::ExpressionError for a set the spec cannot
// describe (a negative count, an empty range): such a set is not drawn.
using SizeSetBytes = std::function<double(const std::map<std::string, int64_t>&)>;

// At most this many sets per job (each costs one call of both variants and its buffers).
inline constexpr size_t kMaxGeneralizationSets = 12;

// The generalization sets for `configured` under `rules`, deterministic for `seed`. Every value
// satisfies its rule; no set equals a configured one or another drawn set; no set's bytes exceed
// twice the largest configured set's.
std::vector<config::SizeSet> generalization_size_sets(const std::vector<config::SizeSet>& configured,
                                                      const std::map<std::string, config::SizeRule>& rules,
                                                      uint64_t seed, const SizeSetBytes& bytes);

bool is_prime(int64_t v);

// Appends the generalization sets of `spec` to a full verification job (verify or
// verify_and_time; a screening never accepts and skips them), every expression evaluated for them
// as for the configured sets, and sets job.verify_only_sizes.
void add_generalization_sizes(HarnessJob& job, const config::Config& config, const config::KernelSpec& spec);

}  // namespace kb
