// Archive rows as a portable JSON file, so archives written on different machines can be merged:
// each shard of a sweep exports the rows its run added, and `kernelbot publish` merges them into
// the archive that persists between nights. The file names its format and version; a reader
// refuses a newer version instead of guessing at it.
#pragma once

#include <filesystem>
#include <vector>

#include "search/archive/archive.h"

namespace kb::search {

constexpr const char* kArchiveExportFormat = "kernelbot-archive-export";
constexpr int kArchiveExportVersion = 1;

void write_archive_export(const std::filesystem::path& path, const std::vector<ArchiveRow>& rows);

// Throws kb::Error naming the file when it is missing, not an export, or newer than
// this kernelbot reads.
std::vector<ArchiveRow> read_archive_export(const std::filesystem::path& path);

struct MergeStats {
  size_t changed = 0;  // rows added, or stored rows replaced by a better measurement
  size_t kept = 0;     // rows the archive already had as good or better
};

// Archive::merge for each row (duplicate-safe: one row per candidate, the better one kept).
MergeStats merge_rows(Archive& archive, const std::vector<ArchiveRow>& rows);

}  // namespace kb::search
