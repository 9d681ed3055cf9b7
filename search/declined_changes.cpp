#include "search/declined_changes.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <stdexcept>

namespace kb::search {
namespace {

// Throws with the database's message when an SQLite call did not succeed.
void check(sqlite3* db, int rc, const std::filesystem::path& path) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(fmt::format("archive {}: declined changes: {}", path.string(), sqlite3_errmsg(db)));
}

std::string column_text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

DeclinedChanges::DeclinedChanges(const std::filesystem::path& archive) : path_(archive) {
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
    // Its own table, created where missing: the candidates' schema version is not touched.
    exec("CREATE TABLE IF NOT EXISTS declined_prs ("
         " kernel TEXT NOT NULL, number INTEGER NOT NULL, change_id TEXT NOT NULL, speedup REAL NOT NULL,"
         " url TEXT NOT NULL, closed_at TEXT NOT NULL, PRIMARY KEY (kernel, number))");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

DeclinedChanges::~DeclinedChanges() { sqlite3_close(db_); }

void DeclinedChanges::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string msg = error ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error(fmt::format("archive {}: declined changes: {}", path_.string(), msg));
  }
}

void DeclinedChanges::record(const DeclinedChange& c) {
  sqlite3_stmt* s = nullptr;
  check(db_,
        sqlite3_prepare_v2(db_,
                           "INSERT INTO declined_prs (kernel, number, change_id, speedup, url, closed_at) "
                           "VALUES (?,?,?,?,?,?) ON CONFLICT (kernel, number) DO UPDATE SET "
                           "change_id=excluded.change_id, speedup=excluded.speedup, url=excluded.url, "
                           "closed_at=excluded.closed_at",
                           -1, &s, nullptr),
        path_);
  sqlite3_bind_text(s, 1, c.kernel.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 2, c.number);
  sqlite3_bind_text(s, 3, c.change_id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 4, c.speedup);
  sqlite3_bind_text(s, 5, c.url.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 6, c.closed_at.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  check(db_, rc, path_);
}

std::vector<DeclinedChange> DeclinedChanges::of(const std::string& kernel) const {
  sqlite3_stmt* s = nullptr;
  check(db_,
        sqlite3_prepare_v2(db_,
                           "SELECT kernel, change_id, speedup, number, url, closed_at FROM declined_prs "
                           "WHERE kernel = ? ORDER BY number",
                           -1, &s, nullptr),
        path_);
  sqlite3_bind_text(s, 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<DeclinedChange> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back({column_text(s, 0), column_text(s, 1), sqlite3_column_double(s, 2), sqlite3_column_int64(s, 3),
                   column_text(s, 4), column_text(s, 5)});
  sqlite3_finalize(s);
  check(db_, rc, path_);
  return out;
}

}  // namespace kb::search
