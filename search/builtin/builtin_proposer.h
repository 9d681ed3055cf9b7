// The `builtin` proposer: a profile-guided tuner of what a kernel already exposes (its tunable
// macros, __launch_bounds__, nvcc flags the tolerance allows), used when no model is
// configured. It changes launch configurations and compile-time parameters, never other code.
// Strategy: when the whole space fits the candidate budget, it is enumerated (most promising
// first: single changes ranked by the rules, then combinations); otherwise local search around
// the best point so far plus one random-restart idea per round. A value that alone (every other
// knob at the original's) gave a wrong result, a crash or a compile error breaks the kernel: the
// tuner learns it from the history and proposes no point with it again.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>

#include "search/builtin/builtin_rules.h"
#include "search/builtin/tuning_space.h"
#include "search/types/proposer.h"

namespace kb::search {

// The builtin tuner as a Proposer: ideas are groups of points of the TuningSpace.
class BuiltinProposer : public Proposer {
 public:
  BuiltinProposer(const config::Config& config, const config::KernelSpec& spec, uint64_t random_seed = 1);

  std::string name() const override { return "builtin"; }
  std::vector<ProposedIdea> propose_ideas(const ProposalContext& ctx) override;
  std::vector<Branch> implement(const ProposalContext& ctx, const BranchRequest& request) override;
  std::string exhausted_reason() const override;
  // The points next to the original (one knob changed, best-ranked first), then the others: what
  // round 1's local search or enumeration takes first.
  std::vector<Variant> likely_variants(const ProposalContext& ctx, size_t limit) override;

 private:
  struct Planned {
    std::vector<size_t> dims;  // what the idea changes
    std::vector<TuningPoint> points;
    std::string seed_id;
  };
  void ensure_space(const ProposalContext& ctx);
  std::vector<Planned> plan_exhaustive(const std::vector<TuningPoint>& untried) const;
  std::vector<Planned> plan_local(const ProposalContext& ctx, const std::set<std::string>& tried, size_t capacity);
  void learn_broken_values(const ProposalContext& ctx);
  bool breaks(const TuningPoint& point) const;

  const config::Config& config_;
  const config::KernelSpec& spec_;
  mutable std::mutex mutex_;
  std::optional<TuningSpace> space_;
  ProfileFacts facts_;
  std::mt19937_64 rng_;
  std::set<std::string> proposed_;                         // point keys handed out in earlier rounds
  std::map<std::string, std::vector<TuningPoint>> plans_;  // idea key -> its points
  std::set<std::pair<size_t, size_t>> broken_;             // (dimension, value index) that broke the kernel
  int64_t next_key_ = 0;
  std::string exhausted_;
};

}  // namespace kb::search
