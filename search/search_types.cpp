#include "search/search_types.h"

#include <algorithm>

#include "core/errors.h"

namespace kb::search {

const std::string& SearchResult::original_source() const {
  const CandidateRecord* baseline = find("baseline");
  if (!baseline) throw Error("the search result of '" + kernel + "' has no baseline record: not a result to publish");
  return baseline->variant.source;
}

const CandidateRecord* SearchResult::find(const std::string& id) const {
  for (const auto& c : tree)
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<const CandidateRecord*> SearchResult::path_to(const std::string& id) const {
  std::vector<const CandidateRecord*> path;
  // Bounded by the tree size, so a corrupt parent cycle cannot loop forever.
  for (const CandidateRecord* c = find(id); c && path.size() <= tree.size(); c = find(c->parent_id)) {
    path.push_back(c);
    if (c->parent_id.empty() || c->parent_id == c->id) break;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace kb::search
