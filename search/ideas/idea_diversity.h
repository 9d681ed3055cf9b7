// Keeps a round's ideas diverse. A model asked for several ideas often writes one twice in other
// words, or four of one family: each copy would spend branches, compiles and GPU time on what
// is one idea. Near-duplicates (by normalized text) are merged into the first, and when more
// distinct ideas came than the round has slots, the slots are spread over the families.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "search/types/proposal_types.h"

namespace kb::search {

// Ideas closer than this (idea_similarity) are one idea.
inline constexpr double kNearDuplicate = 0.8;

// 0 (nothing shared) to 1 (the same words): the larger of an edit-distance ratio and the overlap of
// content words, both on lower-cased text with punctuation dropped. "Use float4 loads" and "use
// float4 loads." are 1; "tile in shared memory, 32x32" and "tile in shared memory, 64x64" about 0.85.
double idea_similarity(const std::string& a, const std::string& b);

// The round's ideas after merging and spreading, in the reply's order.
struct IdeaSelection {
  std::vector<ProposedIdea> ideas;
  std::vector<std::string> notes;  // "idea 3 merged into idea 1 (92% alike)", "idea 5 left out: ..."
};

// Merges near-duplicates (a later one into the first it resembles), then keeps at most `slots`:
// the first idea of each family in turn, then the second of each, and so on.
IdeaSelection diversify_ideas(const std::vector<ProposedIdea>& ideas, size_t slots);

}  // namespace kb::search
