// What a proposer and the search engine exchange: the context of a round (seeds, outcomes so far,
// archive examples), the ideas proposed, the branch requests and the branches that come back, and
// the tokens spent. The interface that produces them is in proposer.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result_types.h"
#include "core/variant.h"
#include "search/types/search_types.h"

namespace kb::search {

// Tokens and money a proposer has spent so far (zero for proposers without a model).
struct TokenUsage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double cost_usd = 0;
  int64_t requests = 0;          // answered
  int64_t estimated_tokens = 0;  // of the tokens above, those of failed requests (no usage came back)
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
  std::string reason;  // a wrong result's holds the failing case: size, index, expected and got, tolerance
  double speedup = 0;
  std::vector<SizeTiming> timings = {};  // per size, for a slow candidate's feedback (empty when never timed)
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
  EvalResult baseline_profile;   // timings with roofline %, metrics of the original
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
  // No variant through no fault of the idea: the request failed, or the reply held no code at
  // all. A round of only such branches is lost, not a round without gain (round_patience.h).
  bool lost = false;
};

}  // namespace kb::search
