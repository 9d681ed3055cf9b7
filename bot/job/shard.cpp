#include "bot/job/shard.h"

#include <algorithm>
#include <numeric>

#include "core/errors.h"
#include "search/archive/archive.h"

namespace kb::bot {

Shard parse_shard(const std::string& text) {
  auto slash = text.find('/');
  auto number = [&](const std::string& part) -> int {
    if (part.empty() || part.size() > 6 || !std::all_of(part.begin(), part.end(), ::isdigit))
      throw UsageError("--shard '" + text + "': expected I/N with 0 <= I < N, e.g. 0/2");
    return std::stoi(part);
  };
  if (slash == std::string::npos) number("");
  Shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.count < 1 || s.index >= s.count)
    throw UsageError("--shard '" + text + "': the index counts from 0 and must be under the count (e.g. 0/2 and 1/2)");
  return s;
}

std::map<std::string, double> last_gpu_times_us(const search::Archive& archive) {
  std::map<std::string, std::pair<std::string, double>> newest;  // kernel -> (created_at, time)
  for (const auto& row : archive.rows()) {
    double total = 0;
    for (const auto& t : row.record.eval.timings) total += t.baseline.median_us;
    if (total <= 0) continue;  // a candidate that never ran has no measurement of the original
    auto& slot = newest[row.key.kernel];
    if (row.created_at >= slot.first) slot = {row.created_at, total};
  }
  std::map<std::string, double> out;
  for (const auto& [kernel, entry] : newest) out[kernel] = entry.second;
  return out;
}

ShardPlan plan_shards(const std::vector<std::string>& kernels, const std::map<std::string, double>& times_us,
                      int count) {
  ShardPlan plan;
  plan.shards.resize(static_cast<size_t>(std::max(count, 1)));
  std::vector<double> known;
  for (const auto& k : kernels)
    if (auto it = times_us.find(k); it != times_us.end()) known.push_back(it->second);
  plan.by_time = !known.empty();
  double median = 1;
  if (!known.empty()) {
    std::sort(known.begin(), known.end());
    median = known[known.size() / 2];
  }
  std::vector<size_t> order(kernels.size());
  std::iota(order.begin(), order.end(), 0);
  auto weight = [&](size_t i) {
    auto it = times_us.find(kernels[i]);
    return it == times_us.end() ? median : it->second;
  };
  // Equal weights keep the given order, so a split by count deals kernels round-robin.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
  std::vector<double> load(plan.shards.size(), 0);
  std::vector<std::vector<size_t>> members(plan.shards.size());
  for (size_t i : order) {
    size_t target = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[target] += weight(i);
    members[target].push_back(i);
  }
  for (size_t s = 0; s < members.size(); ++s) {
    std::sort(members[s].begin(), members[s].end());
    for (size_t i : members[s]) plan.shards[s].push_back(kernels[i]);
  }
  return plan;
}

}  // namespace kb::bot
