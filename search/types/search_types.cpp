#include "search/types/search_types.h"

#include <algorithm>

#include "core/errors.h"

namespace kb::search {

const std::string& CandidateRecord::reason() const {
  static const std::string original = "the original, measured on its own";
  return is_original() ? original : eval.reason;
}

double CandidateRecord::speedup() const {
  if (is_original()) return 1.0;
  return verdict_is_correct(eval.verdict) ? eval.speedup : 0;
}

double CandidateRecord::median_us() const {
  if (eval.timings.empty()) return 0;
  const SizeTiming& first = eval.timings.front();
  return is_original() ? first.baseline.median_us : first.candidate.median_us;
}

double CandidateRecord::compile_s() const { return from_archive || is_original() ? 0 : eval.compile_s; }

void to_json(nlohmann::json& j, const CandidateRecord& r) {
  j = nlohmann::json{{"id", r.id},
                     {"parent_id", r.parent_id},
                     {"round", r.round},
                     {"idea", r.idea},
                     {"variant", r.variant},
                     {"verdict", r.verdict()},
                     {"reason", r.reason()},
                     {"speedup", r.speedup()},
                     {"median_us", r.median_us()},
                     {"eval", r.eval},
                     {"from_archive", r.from_archive},
                     {"variant_hash", r.variant_hash},
                     {"device_index", r.device_index},
                     {"compile_s", r.compile_s()},
                     {"compile_cached", r.compile_cached},
                     {"screening", r.screening}};
}

void from_json(const nlohmann::json& j, CandidateRecord& r) {
  const CandidateRecord defaults;
  r.id = j.value("id", defaults.id);
  r.parent_id = j.value("parent_id", defaults.parent_id);
  r.round = j.value("round", defaults.round);
  r.idea = j.value("idea", defaults.idea);
  r.variant = j.value("variant", defaults.variant);
  r.eval = j.value("eval", defaults.eval);
  r.from_archive = j.value("from_archive", defaults.from_archive);
  r.variant_hash = j.value("variant_hash", defaults.variant_hash);
  r.device_index = j.value("device_index", defaults.device_index);
  r.compile_cached = j.value("compile_cached", defaults.compile_cached);
  r.screening = j.value("screening", defaults.screening);
  // An older kernelbot kept a failed branch's or compile's verdict and reason only beside eval.
  r.eval.verdict = j.value("verdict", r.eval.verdict);
  if (!r.is_original()) r.eval.reason = j.value("reason", r.eval.reason);
}

const std::string& SearchResult::original_source() const {
  const CandidateRecord* baseline = find(kBaselineId);
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
