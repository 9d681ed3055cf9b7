#include "search/engine/seed_selection.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace kb::search {

std::vector<const CandidateRecord*> select_seeds(const std::vector<CandidateRecord>& candidates, int64_t count,
                                                 int64_t max_per_family) {
  std::vector<const CandidateRecord*> ranked;
  std::set<std::string> seen_variants;
  for (const auto& c : candidates) {
    if (!verdict_is_correct(c.verdict())) continue;
    // The same variant reached twice (an archive reuse, a duplicate branch) takes one slot.
    if (!c.variant_hash.empty() && !seen_variants.insert(c.variant_hash).second) continue;
    ranked.push_back(&c);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const CandidateRecord* a, const CandidateRecord* b) { return a->speedup() > b->speedup(); });
  std::vector<const CandidateRecord*> seeds;
  std::map<std::string, int64_t> per_family;
  for (const auto* c : ranked) {
    if (static_cast<int64_t>(seeds.size()) >= count) break;
    const std::string family = c->idea.family.empty() ? "other" : c->idea.family;
    if (per_family[family] >= max_per_family) continue;
    ++per_family[family];
    seeds.push_back(c);
  }
  return seeds;
}

}  // namespace kb::search
