// What a search produces: every candidate it tried, as a tree (each with its parent, idea and
// round), its verdict and measurements, and the winner. Serialized for --json, the archive and
// the PR body's idea path.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result_types.h"
#include "core/variant.h"

namespace kb::search {

// A natural-language optimization idea, written before any code.
struct Idea {
  std::string text;    // "Use 256-thread blocks: 32-thread blocks cap occupancy at 25%"
  std::string family;  // memory_access | async_latency | precision | control_flow | parallelism | fusion | compile_flags
  std::string rationale;
};

// One node of the search tree.
struct CandidateRecord {
  std::string id;         // "r2-i1-b0" (round, idea, branch); "baseline" for the original
  std::string parent_id;  // the seed it was derived from ("baseline" in round 1)
  int64_t round = 0;
  Idea idea;
  Variant variant;
  Verdict verdict = Verdict::pending;
  std::string reason;
  double speedup = 0;     // vs the original, geometric mean over size sets
  double median_us = 0;   // at the first size set
  EvalResult eval;
  bool from_archive = false;  // not measured in this run: the archive's earlier result was reused
  std::string variant_hash;   // content hash of source, defines and flags (the archive's key)
  int64_t device_index = -1;  // the GPU that evaluated it (-1: not evaluated in this run)
  double compile_s = 0;
  bool compile_cached = false;  // the evaluator's compile cache already held this variant
};

// How much of each budget was spent.
struct BudgetUse {
  int64_t candidates = 0;  // compiled in this run (archive reuses are free)
  double wall_time_s = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double cost_usd = 0;
  int64_t llm_requests = 0;
};

struct SearchResult {
  std::string kernel;
  std::string proposer;
  std::vector<CandidateRecord> tree;  // in evaluation order, baseline first
  std::string best_id;                // empty: nothing beat the original
  std::string stop_reason;            // "rounds done", "no gain in round 3", "budget: candidates", ...
  BudgetUse budget;
  DeviceInfo device;
  EvalResult baseline_profile;        // the original measured on its own (timing + metrics)
  int64_t rounds_run = 0;
  std::string archive_path;           // empty: no archive
  int64_t archive_reused = 0;         // candidates whose result came from the archive

  const CandidateRecord* find(const std::string& id) const;
  const CandidateRecord* best() const { return best_id.empty() ? nullptr : find(best_id); }
  // The original's text exactly as the search measured it (the baseline record's source): what
  // a PR's change is spliced into. Throws kb::Error when the result has no baseline record.
  const std::string& original_source() const;
  // From the original to `id`, following parents.
  std::vector<const CandidateRecord*> path_to(const std::string& id) const;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Idea, text, family, rationale)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CandidateRecord, id, parent_id, round, idea, variant, verdict,
                                                reason, speedup, median_us, eval, from_archive, variant_hash,
                                                device_index, compile_s, compile_cached)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BudgetUse, candidates, wall_time_s, prompt_tokens,
                                                completion_tokens, cost_usd, llm_requests)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchResult, kernel, proposer, tree, best_id, stop_reason, budget,
                                                device, baseline_profile, rounds_run, archive_path, archive_reused)

}  // namespace kb::search
