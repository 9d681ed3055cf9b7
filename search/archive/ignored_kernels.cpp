#include "search/archive/ignored_kernels.h"

#include <sqlite3.h>

#include "common/sha256.h"

namespace kb::search {

std::string source_fingerprint(const std::string& text) { return "sha256:" + sha256_hex(text); }

IgnoredKernels::IgnoredKernels(const std::filesystem::path& archive)
    : table_(archive, "ignored kernels",
             "CREATE TABLE IF NOT EXISTS ignored_kernels ("
             " kernel TEXT PRIMARY KEY NOT NULL, source_sha256 TEXT NOT NULL, by TEXT NOT NULL, url TEXT NOT NULL)") {}

void IgnoredKernels::record(const IgnoredKernel& k) {
  sqlite3_stmt* s = table_.prepare(
      "INSERT INTO ignored_kernels (kernel, source_sha256, by, url) VALUES (?,?,?,?) "
      "ON CONFLICT (kernel) DO UPDATE SET source_sha256=excluded.source_sha256, by=excluded.by, url=excluded.url");
  sqlite3_bind_text(s, 1, k.kernel.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, k.source_sha256.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, k.by.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 4, k.url.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  table_.check(rc);
}

bool IgnoredKernels::forget(const std::string& kernel) {
  sqlite3_stmt* s = table_.prepare("DELETE FROM ignored_kernels WHERE kernel = ?");
  sqlite3_bind_text(s, 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  table_.check(rc);
  return sqlite3_changes(table_.db()) > 0;
}

std::optional<IgnoredKernel> IgnoredKernels::of(const std::string& kernel) const {
  for (auto& k : all())
    if (k.kernel == kernel) return k;
  return std::nullopt;
}

std::vector<IgnoredKernel> IgnoredKernels::all() const {
  sqlite3_stmt* s = table_.prepare("SELECT kernel, source_sha256, by, url FROM ignored_kernels ORDER BY kernel");
  std::vector<IgnoredKernel> out;
  int rc;
  using T = ArchiveSideTable;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back({T::column_text(s, 0), T::column_text(s, 1), T::column_text(s, 2), T::column_text(s, 3)});
  sqlite3_finalize(s);
  table_.check(rc);
  return out;
}

}  // namespace kb::search
