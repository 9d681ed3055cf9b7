// The Proposer: where a search's ideas and code come from. The engine asks it, each round, for
// natural-language ideas conditioned on the code, its profile and what was tried, then asks it
// to branch each idea into several concrete Variants of a seed. Implementations: `llm` (a chat
// model), `builtin` (a profile-guided tuner of launch parameters and compile flags) and
// `replay` (an llm proposer reading recorded replies). See proposer_factory.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/variant.h"
#include "search/types/proposal_types.h"
#include "search/types/search_types.h"

namespace kb::search {

// The interface every proposer implements; the engine calls it from the threads noted below.
class Proposer {
 public:
  virtual ~Proposer() = default;

  virtual std::string name() const = 0;

  // Up to ctx.ideas_wanted ideas for this round; empty when it has nothing left to try.
  virtual std::vector<ProposedIdea> propose_ideas(const ProposalContext& ctx) = 0;

  // Up to request.branches variants implementing the idea on the seed. May be called from
  // several threads at once (one per idea).
  virtual std::vector<Branch> implement(const ProposalContext& ctx, const BranchRequest& request) = 0;

  // A fixed variant after `failed` did not compile (`compile_log`), or nullopt. Called from the
  // engine's compile threads; `candidate_id` names the failed candidate.
  virtual std::optional<Variant> repair(const ProposalContext& /*ctx*/, const std::string& /*candidate_id*/,
                                        const Idea& /*idea*/, const Variant& /*failed*/,
                                        const std::string& /*compile_log*/) {
    return std::nullopt;
  }

  // Variants this proposer is likely to ask for in the first rounds, most likely first, at most
  // `limit`, known before the original has run (ctx.baseline_profile holds only the compiler's
  // facts): the engine compiles them while the GPU measures the original, so that round 1 finds
  // them in the compile cache. Nothing is measured or proposed by this. Default: none.
  virtual std::vector<Variant> likely_variants(const ProposalContext& /*ctx*/, size_t /*limit*/) { return {}; }

  // One cheap check, before any GPU work, that the proposer can work at all (a model's endpoint,
  // key and name: one small request). Throws UsageError for a configuration the user must fix,
  // kb::Error for a service that fails. Default: nothing to check.
  virtual void preflight() {}

  // Whether the engine should add crossover ideas (merging two good seeds) from round 2 on.
  virtual bool supports_crossover() const { return false; }

  virtual TokenUsage usage() const { return {}; }

  // Why propose_ideas returned nothing ("search space exhausted", "replay has no ideas for round 3").
  virtual std::string exhausted_reason() const { return "no more ideas"; }

  // Why the last propose_ideas lacks the ideas it was asked for through no fault of ideas: the
  // model could not be asked, or its reply could not be read even after a reminder. "" when
  // it does not. The engine goes on to the next round and does not count such a round against
  // [search].patience (round_patience.h). Called from the engine's thread after propose_ideas.
  virtual std::string ideas_lost() const { return ""; }

  // Called once the search has finished (the recorder writes its summary line here).
  virtual void finish(const SearchResult& /*result*/) {}
};

}  // namespace kb::search
