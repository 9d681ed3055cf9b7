// The archive: every evaluated candidate of every search, in one SQLite file
// ([search].archive), keyed by the original's source hash, the spec hash, the GPU model and the
// CUDA toolkit. A new search starts from the best archived candidate, does not re-evaluate a
// variant it already has, and shows a model the wins on other kernels as examples.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "search/types/proposer.h"
#include "search/types/search_types.h"

struct sqlite3;

namespace kb::search {

// What makes two searches the same search: the same code, spec, GPU model and toolkit.
struct ArchiveKey {
  std::string kernel;  // for display; not part of the identity
  std::string source_hash;
  std::string spec_hash;
  std::string gpu;
  std::string toolkit;
};

// One stored candidate with everything that identifies it: what an export carries.
struct ArchiveRow {
  ArchiveKey key;
  CandidateRecord record;
  std::string diff;
  std::string created_at;  // ISO 8601, when it was measured
};

ArchiveKey make_archive_key(const config::Config& config, const config::KernelSpec& spec,
                            const std::string& original_source, const DeviceInfo& device);

// The archive file: store candidates, look them up by variant, find the best and examples.
class Archive {
 public:
  static constexpr int kSchemaVersion = 1;

  // Opens (creating the file and its directories) and migrates; throws kb::Error
  // naming the file on failure, or when it was written by a newer schema.
  explicit Archive(const std::filesystem::path& path);
  ~Archive();
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  // Stores (or replaces, for the same variant) a candidate with the diff that made it.
  // Infra errors and pending records are not stored: they say nothing about the candidate.
  void store(const ArchiveKey& key, const CandidateRecord& record, const std::string& diff);

  // The stored record of a variant under this key (marked from_archive), if any.
  std::optional<CandidateRecord> find(const ArchiveKey& key, const std::string& variant_hash) const;

  // The accepted candidate with the highest speedup under this key.
  std::optional<CandidateRecord> best(const ArchiveKey& key) const;

  // The best win of each other search (other kernels, or this one on other GPUs/toolkits),
  // wins on the same GPU model first, then by speedup.
  std::vector<ArchiveExample> examples(const ArchiveKey& exclude, size_t limit) const;

  int64_t count(const ArchiveKey& key) const;

  // The rows of kernel `kernel` ("" = every kernel) stored after row `after_row_id`, oldest first:
  // a sweep shard exports what its run added (see last_row_id).
  std::vector<ArchiveRow> rows(const std::string& kernel = "", int64_t after_row_id = 0) const;
  int64_t last_row_id() const;

  // Adds a row from another archive. The same candidate (key and variant) already here keeps
  // whichever of the two ranks higher: accepted before anything else, then the higher speedup,
  // then the earlier measurement. That order makes a merge of several archives come out the same
  // whatever order they are merged in. Returns true when the row was added or replaced one.
  bool merge(const ArchiveRow& row);
  const std::filesystem::path& path() const { return path_; }

 private:
  void exec(const char* sql);
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
};

}  // namespace kb::search
