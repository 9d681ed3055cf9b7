#include "search/ignored_kernels.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <stdexcept>

#include "common/sha256.h"

namespace kb::search {
namespace {

// Throws with the database's message when an SQLite call did not succeed.
void check(sqlite3* db, int rc, const std::filesystem::path& path) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(fmt::format("archive {}: ignored kernels: {}", path.string(), sqlite3_errmsg(db)));
}

std::string column_text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

std::string source_fingerprint(const std::string& text) { return "sha256:" + sha256_hex(text); }

IgnoredKernels::IgnoredKernels(const std::filesystem::path& archive) : path_(archive) {
  std::error_code ec;
  if (archive.has_parent_path()) std::filesystem::create_directories(archive.parent_path(), ec);
  if (sqlite3_open_v2(archive.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(fmt::format("archive: cannot open {}: {}", archive.string(), msg));
  }
  sqlite3_busy_timeout(db_, 10'000);  // the archive's own connection may be writing
  try {
    exec("CREATE TABLE IF NOT EXISTS ignored_kernels ("
         " kernel TEXT PRIMARY KEY NOT NULL, source_sha256 TEXT NOT NULL, by TEXT NOT NULL, url TEXT NOT NULL)");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

IgnoredKernels::~IgnoredKernels() { sqlite3_close(db_); }

void IgnoredKernels::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string msg = error ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error(fmt::format("archive {}: ignored kernels: {}", path_.string(), msg));
  }
}

void IgnoredKernels::record(const IgnoredKernel& k) {
  sqlite3_stmt* s = nullptr;
  check(db_,
        sqlite3_prepare_v2(db_,
                           "INSERT INTO ignored_kernels (kernel, source_sha256, by, url) VALUES (?,?,?,?) "
                           "ON CONFLICT (kernel) DO UPDATE SET source_sha256=excluded.source_sha256, "
                           "by=excluded.by, url=excluded.url",
                           -1, &s, nullptr),
        path_);
  sqlite3_bind_text(s, 1, k.kernel.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, k.source_sha256.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, k.by.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 4, k.url.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  check(db_, rc, path_);
}

bool IgnoredKernels::forget(const std::string& kernel) {
  sqlite3_stmt* s = nullptr;
  check(db_, sqlite3_prepare_v2(db_, "DELETE FROM ignored_kernels WHERE kernel = ?", -1, &s, nullptr), path_);
  sqlite3_bind_text(s, 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  check(db_, rc, path_);
  return sqlite3_changes(db_) > 0;
}

std::optional<IgnoredKernel> IgnoredKernels::of(const std::string& kernel) const {
  for (auto& k : all())
    if (k.kernel == kernel) return k;
  return std::nullopt;
}

std::vector<IgnoredKernel> IgnoredKernels::all() const {
  sqlite3_stmt* s = nullptr;
  check(db_,
        sqlite3_prepare_v2(db_, "SELECT kernel, source_sha256, by, url FROM ignored_kernels ORDER BY kernel", -1, &s,
                           nullptr),
        path_);
  std::vector<IgnoredKernel> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back({column_text(s, 0), column_text(s, 1), column_text(s, 2), column_text(s, 3)});
  sqlite3_finalize(s);
  check(db_, rc, path_);
  return out;
}

}  // namespace kb::search
