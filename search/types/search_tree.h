// The search tree's nodes and the views of it the proposers see: the baseline node, candidate
// ids ("r2-i1-b0": round, idea, branch), "what was tried" as outcomes, seeds. Also the
// launcher's signature for prompts.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "search/types/proposer.h"
#include "search/types/search_types.h"

namespace kb::search {

std::string candidate_id(int64_t round, size_t idea, size_t branch);
std::string idea_prefix(int64_t round, size_t idea);

// The original as the tree's root: measured on its own, speedup 1.
CandidateRecord baseline_record(const Variant& original, const std::string& hash, const EvalResult& profile);

std::vector<Outcome> outcomes_of(const std::vector<CandidateRecord>& tree);
Seed seed_of(const CandidateRecord& record);

// "void launch_saxpy(const float * x, float * y, float a, int n)" from the source, or, when the
// scanner cannot find it, built from the [[kernel]].arg list.
std::string launcher_signature(const config::KernelSpec& spec, const std::string& source);

// The best accepted candidate (highest speedup; the earlier one on a tie), or nullptr. Advisory
// probes (search/types/advisory_findings.h) are never the best: no PR can make their change.
const CandidateRecord* best_accepted(const std::vector<CandidateRecord>& tree);

// The highest speedup among correct candidates, the original's 1.0 included.
double best_correct_speedup(const std::vector<CandidateRecord>& tree);

}  // namespace kb::search
