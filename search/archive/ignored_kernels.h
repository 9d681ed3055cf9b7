// Kernels a person asked the bot to leave alone (`@kernelbot ignore` on its PR) until their
// source changes: one row per kernel in the archive's SQLite file (its own table, beside the
// candidates and the declined PRs), so that the request outlives the PR, and the SHA-256 of the
// source as it was, so that new code is searched again without anyone having to say so.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "search/archive/archive_side_table.h"

namespace kb::search {

struct IgnoredKernel {
  std::string kernel;
  std::string source_sha256;  // "sha256:<hex>" of the kernel's source file when it was ignored
  std::string by;             // who asked: a GitHub login
  std::string url;            // the comment that asked
};

class IgnoredKernels {
 public:
  // Opens (creating the file, its directories and the table); throws kb::Error naming
  // the file on failure.
  explicit IgnoredKernels(const std::filesystem::path& archive);

  // Records (or replaces) the kernel's request.
  void record(const IgnoredKernel& ignored);
  // Forgets it; false when there was none.
  bool forget(const std::string& kernel);
  std::optional<IgnoredKernel> of(const std::string& kernel) const;
  std::vector<IgnoredKernel> all() const;

 private:
  ArchiveSideTable table_;
};

// "sha256:<hex>" of a source text, as IgnoredKernel::source_sha256 holds it.
std::string source_fingerprint(const std::string& text);

}  // namespace kb::search
