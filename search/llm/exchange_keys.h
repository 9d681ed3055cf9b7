// The names of the llm proposer's exchanges with a model: the key under which a recording stores
// each reply and a replay looks it up. A person writing a replay must be able to predict them,
// and a key must not change with what else a round produced (whether the tuner added an idea,
// where the engine put the crossover), so keys name what the model was asked, not the candidate
// the reply became:
//
//   ideas      r<round>                  (r<round>-retry: the one reminder after a reply without JSON)
//   implement  r<round>-i<k>-b<b>        k: the idea's place in that round's ideas reply, from 0,
//                                        among those kept (idea_diversity.h: near-duplicates
//                                        merged, at most ideas_per_round spread over families)
//   crossover  r<round>-crossover-b<b>   (the engine adds at most one crossover a round)
//   repair     the key of the exchange that wrote the failed code: r1-i1-b0, r2-crossover-b0;
//              "-fix<n>" appended when the n-th repair failed again and is repaired once more
//
// The model's ideas come first in a round, so an implement key is also its candidate's id; the
// crossover's candidate comes after every other idea (r2-i0-b0 or r2-i1-b0 in the tree) and
// keeps the same key either way.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "search/types/proposer.h"

namespace kb::search {

std::string ideas_key(int64_t round);

// The proposer's tag for the model's idea number `index` of a round (ProposedIdea::key), and
// that number back from a tag, or nullopt for an idea the model did not write.
std::string model_idea_tag(size_t index);
std::optional<size_t> model_idea_index(const std::string& tag);

// "r2-i0" or "r2-crossover": what a branch request's exchanges are named after. An idea that is
// neither the model's nor a crossover is named after its candidates (request.id_prefix).
std::string branch_key_prefix(int64_t round, const BranchRequest& request);
std::string branch_key(const std::string& prefix, int64_t branch);

// Remembers which key prefix each idea's candidates were written under, so that the repair of
// candidate "r2-i0-b1" is asked as "r2-crossover-b1" when r2-i0 was the crossover. Thread-safe.
class RepairKeys {
 public:
  void remember(const std::string& id_prefix, const std::string& key_prefix);
  // The repair key for the failed candidate; its own id when its idea is not known.
  std::string key_for(const std::string& candidate_id) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::string> prefixes_;  // "r2-i0" -> "r2-crossover"
};

}  // namespace kb::search
