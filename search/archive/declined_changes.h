// The changes reviewers turned down: one row per kernelbot PR closed without merging, kept in
// the archive's SQLite file (its own table, beside the candidates) so that the same change is
// never proposed again even after GitHub's branch or PR is gone, and a later winner is measured
// against the speedup that was declined (bot/pr/pr_lifecycle.h decides).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "search/archive/archive_side_table.h"

namespace kb::search {

struct DeclinedChange {
  std::string kernel;
  std::string change_id;  // "sha256:<hex>" of the PR's file text (bot/pr/pr_lifecycle.h), "" when unknown
  double speedup = 0;     // what the PR claimed; 0 when unknown
  int64_t number = 0;     // the PR
  std::string url;
  std::string closed_at;  // ISO 8601, as GitHub reports it
};

class DeclinedChanges {
 public:
  // Opens (creating the file, its directories and the table); throws kb::Error naming
  // the file on failure.
  explicit DeclinedChanges(const std::filesystem::path& archive);

  // Records a closed PR; the same PR number of the same kernel is stored once (the newer facts win).
  void record(const DeclinedChange& change);
  // The kernel's declined changes, oldest PR first.
  std::vector<DeclinedChange> of(const std::string& kernel) const;

 private:
  ArchiveSideTable table_;
};

}  // namespace kb::search
