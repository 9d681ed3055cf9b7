// Splitting a sweep over several runners: `--shard I/N` takes the I-th of N disjoint sets of the
// target kernels. Every runner computes the same split from the same inputs (the config's kernels
// and the archive restored from the last night), so the N sets cover every kernel exactly once
// with no coordination. Sets are balanced by the original's last measured GPU time, which the
// search time grows with; a kernel never measured counts as the median of those that were, and
// with no measurement at all the split is by count.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kb::search {
class Archive;
}

namespace kb::bot {

struct Shard {
  int index = 0;  // from 0, as GitHub's strategy.job-index
  int count = 1;
};

// "I/N" with 0 <= I < N. Throws UsageError otherwise.
Shard parse_shard(const std::string& text);

struct ShardPlan {
  std::vector<std::vector<std::string>> shards;  // kernel names per shard, in the order given
  bool by_time = false;                          // false: balanced by count
};

// The original's GPU time (microseconds, summed over the size sets) per kernel, from the newest
// archived measurement of each kernel.
std::map<std::string, double> last_gpu_times_us(const search::Archive& archive);

// Deterministic: the same kernels and times give the same plan on every machine. Longest first,
// each to the least loaded shard (ties: the lower index); kernels keep their given order in a shard.
ShardPlan plan_shards(const std::vector<std::string>& kernels, const std::map<std::string, double>& times_us,
                      int count);

}  // namespace kb::bot
