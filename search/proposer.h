// The Proposer: where a search's ideas and code come from. The engine asks it, each round, for
// natural-language ideas conditioned on the code, its profile and what was tried, then asks it
// to branch each idea into several concrete Variants of a seed. Implementations: `llm` (a chat
// model), `builtin` (a profile-guided tuner of launch parameters and compile flags) and
// `replay` (an llm proposer reading recorded replies). See proposer_factory.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result_types.h"
#include "core/variant.h"
#include "search/search_types.h"

namespace kb::search {

// Tokens and money a proposer has spent so far (zero for proposers without a model).
struct TokenUsage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double cost_usd = 0;
  int64_t requests = 0;
  int64_t total() const { return prompt_tokens + completion_tokens; }
};

// One earlier candidate and how it fared, for "what was tried before".
struct Outcome {
  std::string id;
  std::string parent_id;
  int64_t round = 0;
  Idea idea;
  Variant variant;
  Verdict verdict = Verdict::pending;
  std::string reason;
  double speedup = 0;
};

// A verified candidate the next ideas build on (the original is a seed too, id "baseline").
struct Seed {
  std::string id;
  Idea idea;  // the idea that produced it (family "original" for the baseline)
  Variant variant;
  double speedup = 1.0;
  EvalResult eval;
};

// A past win from the archive, offered to a model as an example of what worked.
struct ArchiveExample {
  std::string kernel;
  std::string gpu;
  Idea idea;
  double speedup = 0;
  std::string diff;  // unified diff against that kernel's original (may be shortened)
};

// Everything a proposer may condition on in one round.
struct ProposalContext {
  const config::Config* config = nullptr;
  const config::KernelSpec* spec = nullptr;
  std::string original_source;
  std::string launcher_signature;  // "void launch_saxpy(const float* x, float* y, float a, int n)"
  DeviceInfo device;
  EvalResult baseline_profile;  // timings with roofline %, metrics of the original
  std::vector<Outcome> history;  // every candidate so far, in order
  std::vector<Seed> seeds;       // best first; always at least the original
  std::vector<ArchiveExample> examples;
  int64_t round = 1;
  int64_t ideas_wanted = 4;
  int64_t branches_per_idea = 3;
  int64_t candidates_left = 0;  // the candidate budget still unspent
};

// An idea as proposed: which seed it applies to (empty: the engine picks), and for crossover
// the second parent. `key` is private to the proposer that made it.
struct ProposedIdea {
  Idea idea;
  std::string seed_id;
  std::string mate_id;
  std::string key;
};

// What the engine asks `implement` for.
struct BranchRequest {
  ProposedIdea idea;
  Seed seed;
  std::optional<Seed> mate;  // crossover only
  std::string id_prefix;     // "r2-i1": branch b of it becomes candidate "r2-i1-b<b>"
  int64_t branches = 3;
};

// One branch: a variant to compile, or why none came (a truncated reply, no code...).
struct Branch {
  std::optional<Variant> variant;
  std::string failure;
};

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

  // Whether the engine should add crossover ideas (merging two good seeds) from round 2 on.
  virtual bool supports_crossover() const { return false; }

  virtual TokenUsage usage() const { return {}; }

  // Why propose_ideas returned nothing ("search space exhausted", "replay has no ideas for round 3").
  virtual std::string exhausted_reason() const { return "no more ideas"; }

  // Called once the search has finished (the recorder writes its summary line here).
  virtual void finish(const SearchResult& /*result*/) {}
};

}  // namespace kb::search
