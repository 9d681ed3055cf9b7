#include "search/llm/exchange_keys.h"

#include <fmt/format.h>

namespace kb::search {
namespace {

constexpr const char* kModelIdeaTag = "llm:";

}  // namespace

std::string ideas_key(int64_t round) { return fmt::format("r{}", round); }

std::string model_idea_tag(size_t index) { return kModelIdeaTag + std::to_string(index); }

std::optional<size_t> model_idea_index(const std::string& tag) {
  const std::string prefix = kModelIdeaTag;
  if (!tag.starts_with(prefix) || tag.size() == prefix.size()) return std::nullopt;
  std::string digits = tag.substr(prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<size_t>(std::stoull(digits));
}

std::string branch_key_prefix(int64_t round, const BranchRequest& request) {
  if (request.mate) return fmt::format("r{}-crossover", round);
  if (auto index = model_idea_index(request.idea.key)) return fmt::format("r{}-i{}", round, *index);
  return request.id_prefix;
}

std::string branch_key(const std::string& prefix, int64_t branch) { return fmt::format("{}-b{}", prefix, branch); }

void RepairKeys::remember(const std::string& id_prefix, const std::string& key_prefix) {
  std::lock_guard<std::mutex> lock(mutex_);
  prefixes_[id_prefix] = key_prefix;
}

std::string RepairKeys::key_for(const std::string& candidate_id) const {
  // A candidate id is its idea's prefix, "-b<branch>", then "-fix<n>" for each repair.
  size_t branch = candidate_id.find("-b");
  if (branch == std::string::npos) return candidate_id;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = prefixes_.find(candidate_id.substr(0, branch));
  return it == prefixes_.end() ? candidate_id : it->second + candidate_id.substr(branch);
}

}  // namespace kb::search
