// Levenshtein distance, for "did you mean" hints (misspelled config keys, launcher names).
#pragma once

#include <string>
#include <vector>

namespace kb {

size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` within `max_distance` edits (exclusive), or "" when none is.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates, size_t max_distance = 3);

}  // namespace kb
